"""The Kortex backend against an in-process fake of kortex_api's BaseClient (tests/support/fake_kortex.py):
every fault case ends in the right typed failure within its timeout, after a stop, having sent only
what the safety guard allowed."""

from __future__ import annotations

import math
import sys
import threading
import time

import pytest

from sim.robot import GEN3_HOME, KINOVA_GEN3
from skills.faults import (
    HELD_UNKNOWN,
    ActionAborted,
    ActionTimeout,
    ArmInFault,
    BackendUnavailable,
    ConnectionLost,
)
from skills.guard import GUARDED_SPAN, GUARDED_SPEED, GuardRejection, SafetyGuard
from skills.guarded import GuardedBackend
from skills.kortex_backend import (
    INSTALL_HINT,
    MAX_WAYPOINTS,
    PORT,
    RETIME_FACTOR,
    KortexBackend,
    import_kortex,
    to_degrees,
    to_radians,
)
from tests.support.descent import descent
from tests.support.fake_kortex import fingers_stop_at, make_api


@pytest.fixture(scope="module")
def guard():
    g = SafetyGuard(robot="kinova-gen3", speed=0.25)
    yield g
    g.close()


def _arm(scenario: str, guard: SafetyGuard, margin: float = 0.3):
    api = make_api(scenario)
    backend = KortexBackend(
        "192.0.2.10", api=api, guard=guard, action_margin_s=margin, gripper_timeout_s=1.0
    )
    return api, backend, GuardedBackend(backend, guard)


def _nearby(dq: float = 0.3) -> tuple[float, ...]:
    return tuple(v + (dq if i == 0 else 0.0) for i, v in enumerate(GEN3_HOME))


def test_degrees_in_zero_to_360_become_radians_inside_each_joint_window():
    q = to_radians([350.0, 350.0, 180.0, 10.0, 0.0, 300.0, 270.0], KINOVA_GEN3.limits)
    assert q[0] == pytest.approx(math.radians(-10))  # continuous, window ±π
    assert q[1] == pytest.approx(math.radians(-10))  # ±2.24 rad
    assert q[3] == pytest.approx(math.radians(10))
    assert q[5] == pytest.approx(math.radians(-60))
    assert q[6] == pytest.approx(math.radians(270))  # the wrist's window is ±2π
    assert all(0 <= d < 360 for d in to_degrees(q))
    assert to_radians(to_degrees(GEN3_HOME), KINOVA_GEN3.limits) == pytest.approx(GEN3_HOME)


def test_connects_on_port_10000_with_a_dead_man_session(guard):
    api, backend, _ = _arm("end", guard)
    assert backend.transport.connected_to == ("192.0.2.10", PORT)
    info = backend.session.info
    assert 0 < info.connection_inactivity_timeout <= 2000 and info.session_inactivity_timeout > 0
    assert ("SetServoingMode", api.Base_pb2.SINGLE_LEVEL_SERVOING) in api.base.calls
    assert backend.state().joints == pytest.approx(GEN3_HOME, abs=1e-3)
    backend.close()
    assert backend.session.closed and backend.transport.connected_to is None


def test_a_refused_connection_is_a_typed_failure(guard):
    api = make_api()
    api.TCPTransport = type("Refusing", (api.TCPTransport,), {"refuse": True})
    with pytest.raises(BackendUnavailable, match="does not answer"):
        KortexBackend("192.0.2.10", api=api)


def test_a_trajectory_is_validated_then_executed_as_the_guard_timed_it(guard):
    api, backend, arm = _arm("end", guard)
    target = _nearby(0.3)
    arm.execute_trajectory([GEN3_HOME, target])
    names = [c[0] for c in api.base.calls]
    assert names.index("ValidateWaypointList") < names.index("ExecuteWaypointTrajectory")
    plan = api.base.executed[-1]
    assert not plan.use_optimal_blending
    assert plan.waypoints[-1].angular_waypoint.angles == pytest.approx(to_degrees(target))
    total = sum(w.angular_waypoint.duration for w in plan.waypoints)
    assert total >= 0.3 / (0.25 * KINOVA_GEN3.velocity_limits[0]) - 1e-6  # 25 % of joint 1's limit
    assert backend.state().joints == pytest.approx(target, abs=1e-6)


def test_abort_notification_is_a_typed_failure_after_a_stop(guard):
    api, _, arm = _arm("abort", guard)
    with pytest.raises(ActionAborted, match="aborted"):
        arm.execute_trajectory([GEN3_HOME, _nearby()])
    assert ("Stop", None) in api.base.calls


def test_an_action_that_never_ends_times_out_and_is_stopped(guard):
    api, _, arm = _arm("never", guard, margin=0.3)
    t0 = time.monotonic()
    with pytest.raises(ActionTimeout):
        arm.execute_trajectory([GEN3_HOME, _nearby()])
    assert (
        time.monotonic() - t0 < 0.3 + 2.0
    )  # planned 1 s at 25 % + the margin, never the fake's forever
    assert ("Stop", None) in api.base.calls


def test_an_arm_fault_stops_the_arm(guard):
    api, _, arm = _arm("fault", guard)
    with pytest.raises(ArmInFault):
        arm.execute_trajectory([GEN3_HOME, _nearby()])
    assert ("Stop", None) in api.base.calls


def test_a_lost_connection_falls_back_to_the_emergency_stop(guard):
    api, _, arm = _arm("disconnect", guard)
    with pytest.raises(ConnectionLost):
        arm.execute_trajectory([GEN3_HOME, _nearby()])
    assert api.base.estopped  # Stop itself failed on the dead link


def test_a_trajectory_the_arm_refuses_is_never_executed(guard):
    api, _, arm = _arm("invalid", guard)
    with pytest.raises(ActionAborted, match="refused"):
        arm.execute_trajectory([GEN3_HOME, _nearby()])
    assert not api.base.executed


def test_stop_from_another_thread_ends_a_long_trajectory(guard):
    api, backend, arm = _arm("end", guard, margin=5.0)
    api.base.time_scale = 1.0
    threading.Timer(0.2, backend.stop).start()
    t0 = time.monotonic()
    with pytest.raises(ActionAborted, match="stopped"):
        arm.execute_trajectory([GEN3_HOME, _nearby(0.5)])
    assert time.monotonic() - t0 < 1.0


def test_what_the_guard_refuses_never_reaches_the_arm(guard):
    api, _, arm = _arm("end", guard)
    before = guard.rejections
    beyond = tuple(2.5 if i == 1 else v for i, v in enumerate(GEN3_HOME))  # joint 2 past ±2.24
    with pytest.raises(GuardRejection, match="joint 2"):
        arm.execute_trajectory([GEN3_HOME, beyond])
    assert guard.rejections == before + 1
    assert not [
        c for c in api.base.calls if c[0] in ("ValidateWaypointList", "ExecuteWaypointTrajectory")
    ]


def test_too_fast_durations_are_refused_inside_the_backend(guard):
    api, backend, _ = _arm("end", guard)
    with pytest.raises(GuardRejection, match="rad/s"):
        backend.execute_trajectory(
            [_nearby(0.5)], times=[0.1]
        )  # the raw backend, bypassing the wrapper
    assert not api.base.executed


def test_gripper_in_position_mode_reports_an_object_when_it_stops_early(guard):
    api, _, arm = _arm("end", guard)
    api.base.gripper_stop = 0.6
    res = arm.gripper("close")
    cmd = api.base.calls[-1][1]
    assert cmd.mode == api.Base_pb2.GRIPPER_POSITION and cmd.gripper.finger[0].value == 1.0
    assert res.holding == HELD_UNKNOWN and res.width == pytest.approx(0.085 * 0.4)
    assert arm.gripper("open").holding is None


def test_a_gripper_that_never_comes_to_rest_times_out_after_a_stop(guard):
    api, _, arm = _arm("end", guard)
    api.base.gripper_hangs = True
    t0 = time.monotonic()
    with pytest.raises(ActionTimeout, match="gripper"):
        arm.gripper("close")
    assert time.monotonic() - t0 < 1.0 + 0.5 and ("Stop", None) in api.base.calls


def test_missing_kortex_api_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "kortex_api", None)
    with pytest.raises(BackendUnavailable) as info:
        import_kortex()
    assert str(info.value) == INSTALL_HINT and "pip install" in INSTALL_HINT


@pytest.mark.parametrize(
    "error",
    [
        'TypeError("Descriptors cannot be created directly.")',
        "AttributeError(\"module 'google.protobuf.descriptor' has no attribute '_internal_create_key'\")",
    ],
)
def test_kortex_api_against_a_newer_protobuf_is_the_install_hint(monkeypatch, tmp_path, error):
    """kortex_api 2.6's generated code under protobuf ≥ 4 raises TypeError ("Descriptors cannot be
    created directly") or AttributeError while it imports: the hint, not a traceback."""
    stubs = tmp_path / "kortex_api" / "autogen" / "client_stubs"
    stubs.mkdir(parents=True)
    for folder in (tmp_path / "kortex_api", tmp_path / "kortex_api" / "autogen", stubs):
        (folder / "__init__.py").write_text("")
    (stubs / "BaseClientRpc.py").write_text(f"raise {error}\n")
    for name in [m for m in sys.modules if m == "kortex_api" or m.startswith("kortex_api.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(BackendUnavailable) as info:
        import_kortex()
    assert "protobuf installed is not 3.20" in str(info.value)
    assert str(info.value).endswith(INSTALL_HINT) and "--no-deps" in INSTALL_HINT
    assert INSTALL_HINT.index("protobuf==3.20.3") < INSTALL_HINT.index("--no-deps")


def test_the_simulated_twin_starts_where_the_arm_is_and_follows_it(guard):
    from sim.world import SimWorld
    from skills.hardware import TwinBackend
    from skills.sim_backend import SimArmBackend

    api, hardware, _ = _arm("end", guard)
    api.base.angles_deg = to_degrees(_nearby(0.1))  # the real arm is not at the simulated home
    world = SimWorld(robot="kinova-gen3")
    try:
        twin = TwinBackend(hardware, SimArmBackend(world))
        assert world.robot.arm_q() == pytest.approx(_nearby(0.1), abs=1e-6)
        GuardedBackend(twin, guard).execute_trajectory([_nearby(0.1), _nearby(0.3)])
        assert api.base.executed[-1].waypoints[-1].angular_waypoint.angles == pytest.approx(
            to_degrees(_nearby(0.3))
        )
        assert world.robot.arm_q() == pytest.approx(_nearby(0.3), abs=0.02)
    finally:
        world.close()


def _tool_speeds(guard: SafetyGuard, start, plan) -> list[tuple[float, float]]:
    """(metres of tool path still to go after each segment, tool speed in m/s along it) of a sent plan."""
    pts = [tuple(math.radians(a) for a in w.angular_waypoint.angles) for w in plan.waypoints]
    tools = guard.tool_positions([start, *pts])
    steps = [math.dist(a, b) for a, b in zip(tools, tools[1:], strict=False)]
    left = [sum(steps[i + 1 :]) for i in range(len(steps))]
    return [
        (lft, s / w.angular_waypoint.duration)
        for lft, s, w in zip(left, steps, plan.waypoints, strict=True)
    ]


def test_a_guarded_descent_slows_for_its_last_centimetres_and_stops_at_contact(guard):
    down = descent("kinova-gen3")
    api, backend, arm = _arm("contact", guard, margin=5.0)
    arm.execute_trajectory(
        down, guarded=True
    )  # no failure: stopping at contact is the end of a place
    assert ("Stop", None) in api.base.calls and not api.base.estopped
    speeds = _tool_speeds(guard, GEN3_HOME, api.base.executed[-1])
    assert all(v <= GUARDED_SPEED + 1e-6 for left, v in speeds if left < GUARDED_SPAN)
    assert (
        max(v for left, v in speeds if left > GUARDED_SPAN + 0.01) > 2 * GUARDED_SPEED
    )  # the rest at speed


def test_an_unguarded_move_ignores_the_tool_force_and_a_guarded_one_without_contact_runs_to_its_end(
    guard,
):
    down = descent("kinova-gen3")
    api, backend, arm = _arm("contact", guard)
    arm.execute_trajectory(
        down
    )  # a plain move: the controller's own limits, not ours, watch its force
    assert ("Stop", None) not in api.base.calls
    api, backend, arm = _arm("end", guard)
    arm.execute_trajectory(down, guarded=True)
    assert ("Stop", None) not in api.base.calls
    assert backend.state().joints == pytest.approx(down[-1], abs=1e-6)


# -- the arm's state, re-timing, long paths, a lost session, a dropped object ----------------------
def _faulted_api():
    api = make_api("end")
    make = api.BaseClient

    def client(router):
        first = api.base is None
        c = make(router)
        if first:
            c.in_fault = True
        return c

    api.BaseClient = client
    return api


def test_an_arm_in_fault_at_connect_is_refused_with_how_to_clear_it(guard):
    api = _faulted_api()
    with pytest.raises(BackendUnavailable, match="Web App.*--clear-faults"):
        KortexBackend("192.0.2.10", api=api, guard=guard)
    assert ("ClearFaults", None) not in api.base.calls
    assert api.base.router.transport.connected_to is None  # the session was closed


def test_an_arm_in_fault_is_cleared_when_asked(guard):
    api = _faulted_api()
    backend = KortexBackend("192.0.2.10", api=api, guard=guard, clear_faults=True)
    assert ("ClearFaults", None) in api.base.calls and not api.base.in_fault
    backend.execute_trajectory([GEN3_HOME, _nearby(0.05)], [0.0, 1.0])
    assert len(api.base.executed) == 1


def _validations(api) -> list:
    return [c[1] for c in api.base.calls if c[0] == "ValidateWaypointList"]


def test_a_trajectory_refused_for_its_speed_is_slowed_and_validated_again(guard):
    api, backend, arm = _arm("end", guard, margin=2.0)
    api.base.speed_limit_deg_s = 12.0  # 0.3 rad = 17.2° in 1 s is refused; ×1.5 slower passes
    arm.execute_trajectory([GEN3_HOME, _nearby(0.3)], [0.0, 1.0])
    first, second = _validations(api)
    (sent,) = api.base.executed
    assert sent is second and backend.retimed == 1
    total = sum(w.angular_waypoint.duration for w in sent.waypoints)
    assert total == pytest.approx(
        RETIME_FACTOR * sum(w.angular_waypoint.duration for w in first.waypoints)
    )


def test_a_trajectory_refused_for_its_acceleration_is_slowed_until_it_passes(guard):
    """0.3 rad (17.2°) in one 1 s waypoint from rest: 17.2 °/s²; 1.5× slower 7.6, 2.25× slower 3.4
    (acceleration falls with the square of the time)."""
    api, backend, arm = _arm("end", guard, margin=2.0)
    api.base.accel_limit_deg_s2 = 5.0
    arm.execute_trajectory([GEN3_HOME, _nearby(0.3)], [0.0, 1.0])
    assert len(_validations(api)) == 3 and backend.retimed == 2
    (sent,) = api.base.executed
    assert sum(w.angular_waypoint.duration for w in sent.waypoints) == pytest.approx(
        RETIME_FACTOR**2 * 1.0, rel=0.05
    )


def test_a_trajectory_too_fast_even_when_slowed_is_refused(guard):
    api, backend, arm = _arm("end", guard)
    api.base.speed_limit_deg_s = 1.0
    with pytest.raises(ActionAborted, match="slower"):
        arm.execute_trajectory([GEN3_HOME, _nearby(0.3)], [0.0, 1.0])
    assert len(_validations(api)) == 4 and not api.base.executed


def test_a_refusal_not_about_timing_is_not_retimed(guard):
    api, backend, arm = _arm("invalid", guard)
    with pytest.raises(ActionAborted, match="out of range"):
        arm.execute_trajectory([GEN3_HOME, _nearby(0.1)], [0.0, 1.0])
    assert len(_validations(api)) == 1 and backend.retimed == 0


@pytest.mark.parametrize("seconds, sent_n", [(60.0, MAX_WAYPOINTS), (5.0, 100)])
def test_a_dense_path_is_resampled_to_what_the_arm_takes(guard, seconds, sent_n):
    """At most 1000 waypoints, none shorter than the arm's 0.05 s: a 2500-waypoint path keeps its
    planned time and its end."""
    api, backend, arm = _arm("end", guard, margin=2.0)
    n = 2500
    way = [_nearby(0.5 * k / n) for k in range(1, n + 1)]
    arm.execute_trajectory(way, [seconds * k / n for k in range(1, n + 1)])
    (sent,) = api.base.executed
    assert 0.8 * sent_n < len(sent.waypoints) <= sent_n
    assert min(w.angular_waypoint.duration for w in sent.waypoints) >= 0.05
    assert sum(w.angular_waypoint.duration for w in sent.waypoints) == pytest.approx(seconds)
    assert sent.waypoints[-1].angular_waypoint.angles == pytest.approx(to_degrees(way[-1]))


def test_a_lost_session_connects_again_once_and_goes_on(guard):
    api, backend, arm = _arm("end", guard)
    api.base.lose_session()
    arm.execute_trajectory([GEN3_HOME, _nearby(0.05)], [0.0, 1.0])
    assert backend.reconnects == 1 and len(api.base.executed) == 1


def test_a_session_that_cannot_be_made_again_is_a_typed_failure(guard):
    api, backend, arm = _arm("end", guard)
    api.base.lose_session()
    api.base.refuse_sessions = True
    with pytest.raises(ConnectionLost, match="connecting again did not help"):
        arm.execute_trajectory([GEN3_HOME, _nearby(0.05)], [0.0, 1.0])
    assert backend.reconnects == 1 and not api.base.executed


def test_an_object_that_slips_out_during_a_carry_is_no_longer_held(guard):
    api = make_api("end")
    fingers_stop_at(api, 0.55)
    backend = KortexBackend("192.0.2.10", api=api, guard=guard)
    assert backend.gripper("close").holding == HELD_UNKNOWN
    api.base.drop_on_carry = True
    backend.execute_trajectory([GEN3_HOME, _nearby(0.05)], [0.0, 1.0])
    assert backend.state().held is None


def test_a_fault_in_the_run_is_clearable_when_asked(guard):
    api = make_api("fault-once")
    backend = KortexBackend(
        "192.0.2.10", api=api, guard=guard, action_margin_s=0.3, clear_faults=True
    )
    arm = GuardedBackend(backend, guard)
    with pytest.raises(ArmInFault):
        arm.execute_trajectory([GEN3_HOME, _nearby(0.05)], [0.0, 1.0])
    assert arm.fatal is None and backend.fault == "arm in fault"
    backend.clear_fault()
    assert backend.fault is None and ("ClearFaults", None) in api.base.calls
    arm.execute_trajectory([backend.state().joints, _nearby(0.05)], [0.0, 1.0])
    assert len(api.base.executed) == 2


def test_without_clear_faults_a_fault_ends_the_run(guard):
    api, backend, arm = _arm("fault", guard)
    with pytest.raises(ArmInFault):
        arm.execute_trajectory([GEN3_HOME, _nearby(0.05)], [0.0, 1.0])
    assert isinstance(arm.fatal, ArmInFault) and backend.fault is None
