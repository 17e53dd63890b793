"""Whole Berry1 runs on the UR backend (`--backend rtde --execute`) against its fake at the ur_rtde
boundary (tests/support/fake_rtde.py: acceleration-limited motion, the controller's watchdog, a
Robotiq URCap on a real socket). With perception from a recorded folder of frames (made in simulation
by a label-free run's --record-frames, RGB-D only), the arm follows blended paths, the twin follows
the measured joints and success is judged from the camera. A real grasp that fails — the fingers
closed on nothing, or the object slips out during the carry — is seen from the Robotiq's object
detection and replanned."""

from __future__ import annotations

import json

import pytest

from owl_bt.episode import EpisodeConfig, run_episode
from perception.recorded import frame_indices
from sim.tasks.berry1 import INSTRUCTION
from tests.support.fake_rtde import FakeUR, install

STRAWBERRY_POS = 140  # Robotiq POS where the closing pads meet the strawberry (≈ 3.8 cm apart)


@pytest.fixture()
def ur(monkeypatch):
    fake = FakeUR()
    fake.robotiq.object_at = STRAWBERRY_POS
    install(monkeypatch, fake)
    yield fake
    fake.close()


def _run(tmp_path, **kwargs):
    return run_episode(
        EpisodeConfig(
            INSTRUCTION,
            "berry1",
            0,
            tmp_path / "run",
            vlm="oracle",
            robot="ur5e",
            backend="rtde",
            ip="127.0.0.1",
            execute=True,
            speed=1.0,
            confirm=lambda traj: True,
            **kwargs,
        )
    )


@pytest.mark.slow
def test_berry1_on_the_ur_from_recorded_frames(tmp_path, ur):
    frames = tmp_path / "frames"
    made = run_episode(
        EpisodeConfig(
            INSTRUCTION,
            "berry1",
            0,
            tmp_path / "recording",
            vlm="oracle",
            robot="ur5e",
            perception="camera-unlabelled",
            record_frames=frames,
        )
    )
    assert made.success, made.failure
    assert len(frame_indices(frames)) >= 3
    result = _run(tmp_path, camera=f"recorded:{frames}")
    assert result.success, result.failure
    assert result.executed == ["pick(strawberry)", "place_ontop(strawberry, light_grey_region)"]
    assert "judged from the camera" in result.detector_reason
    paths = ur.control.paths
    assert len(paths) >= 4
    inner = [e[8] for p in paths for e in p[:-1]]
    blended = sum(r > 0.0 for r in inner)
    # blended: the arm stops only at a path's end (and where only the wrist turns: no tool motion)
    assert inner and blended >= 0.9 * len(inner), (blended, len(inner))
    assert all(p[-1][8] == 0.0 for p in paths)
    # the dead-man was set and kicked (a stall of this process while the arm stood still may have
    # ended the script; the next motion uploaded it again: `uploads`)
    assert ur.control.watchdog_hz == 2.0 and ur.control.kicks > 0
    assert ur.robotiq.regs["PRE"] == 0  # opened over the region last
    events = [json.loads(line) for line in (result.run_dir / "events.jsonl").open()]
    seen = [e for e in events if e.get("event") == "perceived"]
    assert seen and all("robot" not in e["objects"] for e in seen)
    assert {"strawberry", "light_grey_region"} <= set(seen[0]["objects"])
    assert events[0]["camera"] == f"recorded:{frames}"


@pytest.mark.slow
def test_a_strawberry_that_slips_out_during_the_carry_is_seen_and_picked_again(tmp_path, ur):
    ur.robotiq.drop_on_carry = True
    result = _run(tmp_path, perception="camera-unlabelled")
    assert result.success, result.failure
    assert result.attempts > 1 and result.executed[-1] == (
        "place_ontop(strawberry, light_grey_region)"
    )
    failures = [h for h in result.history if "slipped" in json.dumps(h)]
    assert failures, result.history


@pytest.mark.slow
def test_a_ur_grasp_that_closed_on_nothing_is_seen_and_replanned(tmp_path, ur):
    ur.robotiq.object_at = None  # the real fingers close all the way (OBJ 3): nothing in them
    result = _run(tmp_path)
    assert not result.success and result.attempts > 1
    assert "place_ontop(strawberry, light_grey_region)" not in result.executed
    assert result.holding is None


@pytest.mark.slow
def test_a_protective_stop_is_unlocked_and_the_run_goes_on_with_clear_faults(
    tmp_path, ur, monkeypatch
):
    """--clear-faults: the first motion ends in a protective stop; the safety subtree unlocks it
    through the dashboard, the script is uploaded again and the tree replans to success."""
    monkeypatch.setattr("skills.rtde_backend.UNLOCK_WAIT_S", 0.0)
    ur.control.scenario = "protective-once"
    result = _run(tmp_path, clear_faults=True)
    assert result.success, result.failure
    assert ur.dashboard.unlocks == 1 and ur.control.uploads >= 1
    events = [json.loads(line) for line in (result.run_dir / "events.jsonl").open()]
    assert any(e.get("event") == "fault_cleared" for e in events)
