"""A whole `--backend kortex --execute` run with the fake kortex_api (tests/support/fake_kortex.py) installed
under kortex_api's module names: the arm follows the plan and the simulated twin with it; a fault
the arm reports ends the run at once with that typed failure (no replanning against a broken arm);
a motion the person does not confirm never reaches the arm."""

from __future__ import annotations

import json

import pytest

from owl_bt.episode import EpisodeConfig, run_episode
from sim.tasks.berry1 import INSTRUCTION
from tests.support.fake_kortex import fingers_stop_at, install, make_api


def _run(tmp_path, confirm=lambda traj: True):
    cfg = EpisodeConfig(
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
        confirm=confirm,
    )
    return run_episode(cfg)


@pytest.mark.slow
def test_the_arm_follows_the_plan(tmp_path, monkeypatch):
    api = make_api("end")
    fingers_stop_at(api, 0.55)  # the real fingers close on the strawberry (4.4 cm of 8.5)
    install(monkeypatch, api)
    result = _run(tmp_path)
    assert result.success, result.failure
    plans = api.base.executed
    assert len(plans) >= 4 and all(len(p.waypoints) for p in plans)
    grips = [c[1].gripper.finger[0].value for c in api.base.calls if c[0] == "SendGripperCommand"]
    assert grips[:2] == [1.0, 0.0]  # closed on the strawberry, opened over the region
    assert api.base.router.transport.connected_to is None  # the session was closed at the end


@pytest.mark.slow
@pytest.mark.parametrize(
    "scenario, fault", [("abort", None), ("fault", "ArmInFault"), ("disconnect", "ConnectionLost")]
)
def test_an_arm_fault_ends_the_run_with_its_typed_failure(tmp_path, monkeypatch, scenario, fault):
    api = make_api(scenario)
    install(monkeypatch, api)
    result = _run(tmp_path)
    assert not result.success and ("Stop", None) in api.base.calls
    if fault is None:  # an aborted action may be retried: the tree replans
        assert "aborted" in result.failure
    else:
        assert result.attempts == 1 and len(api.base.executed) == 1
        assert result.failure.startswith("execute: pick(strawberry) failed")


@pytest.mark.slow
def test_an_unconfirmed_first_motion_never_reaches_the_arm(tmp_path, monkeypatch):
    api = make_api("end")
    install(monkeypatch, api)
    shown = []
    result = _run(tmp_path, confirm=lambda traj: shown.append(traj) or False)
    assert not result.success and result.attempts == 1 and "not confirmed" in result.failure
    assert shown and not api.base.executed


@pytest.mark.slow
def test_a_real_grasp_that_closed_on_nothing_is_seen_and_replanned(tmp_path, monkeypatch):
    """The twin's fingers hold the strawberry, the real ones closed fully: the arm is the truth."""
    api = make_api("end")
    fingers_stop_at(api, 1.0)
    install(monkeypatch, api)
    result = _run(tmp_path)
    assert not result.success and result.attempts > 1
    assert "place_ontop(strawberry, light_grey_region)" not in result.executed
    assert result.holding is None


@pytest.mark.slow
def test_a_strawberry_that_slips_out_during_the_carry_is_seen_and_picked_again(
    tmp_path, monkeypatch
):
    """The real fingers close all the way during the lift (the strawberry slipped out): the arm is
    the truth, the twin lets go too, and the replan picks it again."""
    api = make_api("end")
    fingers_stop_at(api, 0.55)
    make = api.BaseClient

    def dropping(router):
        first = api.base is None
        client = make(router)
        client.drop_on_carry = client.drop_on_carry or first
        return client

    api.BaseClient = dropping
    install(monkeypatch, api)
    result = _run(tmp_path)
    assert result.success, result.failure
    assert result.attempts > 1
    assert any("slipped" in json.dumps(h) for h in result.history), result.history


@pytest.mark.slow
def test_an_arm_fault_is_cleared_and_the_run_goes_on_with_clear_faults(tmp_path, monkeypatch):
    api = make_api("fault-once")
    fingers_stop_at(api, 0.55)
    install(monkeypatch, api)
    cfg = EpisodeConfig(
        INSTRUCTION,
        "berry1",
        0,
        tmp_path / "run",
        vlm="oracle",
        robot="kinova-gen3",
        backend="kortex",
        ip="192.0.2.10",
        execute=True,
        clear_faults=True,
        speed=1.0,
        confirm=lambda traj: True,
    )
    result = run_episode(cfg)
    assert result.success, result.failure
    assert ("ClearFaults", None) in api.base.calls
    events = [json.loads(line) for line in (result.run_dir / "events.jsonl").open()]
    assert any(e.get("event") == "fault_cleared" for e in events)
