"""A whole simulated run leaves a video of its execution (run.gif), and its report opens with it."""

from __future__ import annotations

import json

import pytest
from PIL import Image, ImageSequence

from owl_bt.episode import run_episode
from owl_bt.episode_config import EpisodeConfig
from sim.video import SIZE

BERRY = "put the strawberry onto the light-grey region at the center of the table"


@pytest.mark.slow
def test_a_run_folder_has_the_execution_video_at_the_top_of_its_report(tmp_path):
    out = tmp_path / "run"
    result = run_episode(EpisodeConfig(BERRY, "berry1", 0, out))
    assert result.success
    gif = Image.open(out / "run.gif")
    frames = list(ImageSequence.Iterator(gif))
    assert gif.format == "GIF" and gif.size == SIZE and len(frames) >= 8
    assert (out / "run.gif").stat().st_size < 1_000_000
    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.index("](run.gif)") < md.index("![before](initial.png)") < md.index("## Goal")
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    (video,) = [e for e in events if e["event"] == "video"]
    assert video["frames"] >= 8 and video["render_s"] >= 0 and video["bytes"] > 0
