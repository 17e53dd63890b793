"""A whole simulated run leaves a video of its execution (run.gif), and its report opens with it;
with --rerun also its 3D log (run.rrd)."""

from __future__ import annotations

import json
import subprocess
import sys

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


@pytest.mark.slow
def test_run_with_rerun_leaves_run_rrd_in_the_folder(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", "run", "", "--task", "berry1", "-q", "--rerun"]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "run.rrd").stat().st_size > 10_000
    assert "[run.rrd](run.rrd)" in (out / "report.md").read_text(encoding="utf-8")
