"""A whole Berry1 run on the Kinova Gen3 backend against its fake (tests/support/fake_kortex.py)
with perception from a recorded folder of frames: made in simulation by a label-free run's
--record-frames (RGB-D only, no labels), replayed look by look with --camera recorded:<folder>;
the twin follows the measured joints and the held object comes from the fake's finger position."""

from __future__ import annotations

import json

import pytest

from owl_bt.episode import EpisodeConfig, run_episode
from perception.recorded import frame_indices
from sim.tasks.berry1 import INSTRUCTION
from tests.support.fake_kortex import fingers_stop_at, install, make_api


@pytest.mark.slow
def test_berry1_on_the_gen3_from_recorded_frames(tmp_path, monkeypatch):
    frames = tmp_path / "frames"
    made = run_episode(
        EpisodeConfig(
            INSTRUCTION,
            "berry1",
            0,
            tmp_path / "recording",
            vlm="oracle",
            robot="kinova-gen3",
            perception="camera-unlabelled",
            record_frames=frames,
        )
    )
    assert made.success, made.failure
    looks = len(frame_indices(frames))
    assert looks >= 3
    api = make_api("end")
    fingers_stop_at(api, 0.55)
    install(monkeypatch, api)
    result = run_episode(
        EpisodeConfig(
            INSTRUCTION,
            "berry1",
            0,
            tmp_path / "run",
            vlm="oracle",
            robot="kinova-gen3",
            backend="kortex",
            ip="192.0.2.10",
            execute=True,
            speed=1.0,
            confirm=lambda traj: True,
            camera=f"recorded:{frames}",
        )
    )
    assert result.success, result.failure
    assert result.executed == ["pick(strawberry)", "place_ontop(strawberry, light_grey_region)"]
    assert len(api.base.executed) >= 4
    events = [json.loads(line) for line in (result.run_dir / "events.jsonl").open()]
    seen = [e for e in events if e.get("event") == "perceived"]
    assert seen and all("robot" not in e["objects"] for e in seen)
    assert {"strawberry", "light_grey_region"} <= set(seen[0]["objects"])
    assert events[0]["camera"] == f"recorded:{frames}"
