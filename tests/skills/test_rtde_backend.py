"""The UR backend at the ur_rtde boundary: fake `rtde_control` / `rtde_receive` objects with the
library's method names (motions run in a thread; protective stops, emergency stops, disconnects and
hung paths on cue), and the Robotiq gripper against a real TCP server on 127.0.0.1 speaking the
URCap's socket protocol."""

from __future__ import annotations

import math
import sys
import threading
import time
import types

import pytest

from sim.robot import HOME, UR5E
from skills.faults import (
    HELD_UNKNOWN,
    ActionAborted,
    ActionTimeout,
    BackendUnavailable,
    ConnectionLost,
    ProtectiveStop,
)
from skills.guard import GUARDED_SPAN, GUARDED_SPEED, GuardRejection, SafetyGuard
from skills.guarded import GuardedBackend
from skills.robotiq_socket import RobotiqSocketGripper
from skills.rtde_backend import INSTALL_HINT, REGISTERS_IN_USE, RtdeBackend, connect_rtde
from tests.support.descent import descent
from tests.support.fake_rtde import (
    FakeControl,
    FakeDashboard,
    FakeReceive,
    FakeUR,
    RobotiqServer,
    arm_time,
    install,
)


@pytest.fixture(scope="module")
def guard():
    g = SafetyGuard(robot="ur5e", speed=0.25)
    yield g
    g.close()


def _arm(scenario: str, guard: SafetyGuard, margin: float = 0.3):
    receive = FakeReceive()
    control = FakeControl(receive, scenario)
    backend = RtdeBackend(control, receive, guard=guard, margin_s=margin, watchdog_hz=None)
    return control, receive, GuardedBackend(backend, guard)


def _nearby(dq: float = 0.3) -> tuple[float, ...]:
    return tuple(v + (dq if i == 0 else 0.0) for i, v in enumerate(HOME))


def test_a_path_is_one_movej_at_the_guards_speed(guard):
    control, receive, arm = _arm("end", guard)
    arm.execute_trajectory([HOME, _nearby(0.3)])
    (path,) = control.paths
    assert path[-1][:6] == pytest.approx(_nearby(0.3))
    assert all(e[6] <= 0.25 * UR5E.velocity_limits[0] + 1e-9 for e in path)  # 25 % of π rad/s
    assert receive.q == pytest.approx(_nearby(0.3))
    assert not control.stops


def test_protective_stop_is_a_typed_failure(guard):
    control, _, arm = _arm("protective", guard)
    with pytest.raises(ProtectiveStop):
        arm.execute_trajectory([HOME, _nearby()])


def test_disconnect_mid_path_stops_and_fails(guard):
    control, _, arm = _arm("disconnect", guard)
    with pytest.raises(ConnectionLost):
        arm.execute_trajectory([HOME, _nearby()])
    assert control.stops  # a stopJ was attempted


def test_a_path_that_never_ends_is_stopped_after_its_time(guard):
    control, _, arm = _arm("never", guard, margin=0.3)
    t0 = time.monotonic()
    with pytest.raises(ActionTimeout):
        arm.execute_trajectory([HOME, _nearby()])
    assert time.monotonic() - t0 < 0.4 + 0.3 + 1.0 and control.stops


def test_a_refused_path_is_a_typed_failure(guard):
    _, _, arm = _arm("refuse", guard)
    with pytest.raises(ActionAborted, match="refused"):
        arm.execute_trajectory([HOME, _nearby()])


def test_stop_from_another_thread(guard):
    control, receive, arm = _arm("end", guard, margin=5.0)
    control.time_scale = 2.0
    threading.Timer(0.2, arm.stop).start()
    t0 = time.monotonic()
    with pytest.raises(ActionAborted, match="stopped"):
        arm.execute_trajectory([HOME, _nearby(0.5)])
    assert time.monotonic() - t0 < 1.0 and control.stops


def test_what_the_guard_refuses_never_reaches_the_ur(guard):
    control, _, arm = _arm("end", guard)
    jump = tuple(
        v + (1.0 if i == 2 else 0.0) for i, v in enumerate(HOME)
    )  # one 1 rad jump of the elbow
    with pytest.raises(GuardRejection, match="jumps"):
        arm.execute_trajectory([jump])
    assert not control.paths


def test_missing_ur_rtde_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "rtde_control", None)
    with pytest.raises(BackendUnavailable) as info:
        connect_rtde("127.0.0.1")
    assert str(info.value) == INSTALL_HINT


# -- the Robotiq URCap socket protocol, on a real socket ------------------------------------------
@pytest.fixture()
def robotiq():
    server = RobotiqServer()
    yield server
    server.close()


def test_robotiq_socket_activates_closes_on_an_object_and_opens(robotiq):
    gripper = RobotiqSocketGripper("127.0.0.1", robotiq.port)
    gripper.activate()
    assert robotiq.regs["ACT"] == 1
    robotiq.object_at = 180
    receive = FakeReceive()
    backend = RtdeBackend(FakeControl(receive), receive, gripper, watchdog_hz=None)
    res = backend.gripper("close")
    assert res.holding == HELD_UNKNOWN and res.width == pytest.approx(0.085 * (1 - 180 / 255))
    assert robotiq.regs["FOR"] == 100 and robotiq.regs["PRE"] == 255
    assert backend.gripper("open").holding is None
    assert backend.state().gripper_width == pytest.approx(0.085)
    gripper.close()


def test_robotiq_waits_for_pre_before_reading_obj(robotiq):
    """The URCap takes a request a moment after GTO: OBJ read before PRE echoes it still says 3
    (the last motion's 'at position'), which read as 'done' would report the fingers where they were."""
    robotiq.take_s = 0.2
    gripper = RobotiqSocketGripper("127.0.0.1", robotiq.port)
    gripper.activate()
    robotiq.object_at = 150
    reached, on_object = gripper.move(255)
    assert (reached, on_object) == (150, True)
    assert gripper.get("PRE") == 255


def test_a_slipped_object_is_no_longer_held(robotiq):
    gripper = RobotiqSocketGripper("127.0.0.1", robotiq.port)
    gripper.activate()
    robotiq.object_at = 170
    receive = FakeReceive()
    backend = RtdeBackend(FakeControl(receive), receive, gripper, watchdog_hz=None)
    assert backend.gripper("close").holding == HELD_UNKNOWN
    assert backend.state().held == HELD_UNKNOWN
    robotiq.drop()
    assert backend.state().held is None


def test_robotiq_socket_that_hangs_up_is_a_lost_connection(robotiq):
    gripper = RobotiqSocketGripper("127.0.0.1", robotiq.port)
    assert gripper.get("STA") == 0
    robotiq.hangup = True
    with pytest.raises(ConnectionLost):
        gripper.get("POS")


def test_a_guarded_descent_slows_for_its_last_centimetres_and_stops_at_contact(guard):
    down = descent("ur5e")
    control, receive, arm = _arm("contact", guard, margin=5.0)
    arm.execute_trajectory(
        down, guarded=True
    )  # no failure: stopping at contact is the end of a place
    assert control.stops and receive.q != pytest.approx(
        list(down[-1])
    )  # stopped short of the last waypoint
    (path,) = control.paths
    tools = guard.tool_positions([HOME, *[e[:6] for e in path]])
    prev, slow = list(HOME), []
    for k, entry in enumerate(path):
        seconds = max(abs(a - b) for a, b in zip(entry[:6], prev, strict=True)) / entry[6]
        left = sum(math.dist(a, b) for a, b in zip(tools[k + 1 :], tools[k + 2 :], strict=False))
        if left < GUARDED_SPAN:
            slow.append(math.dist(tools[k], tools[k + 1]) / seconds)
        prev = entry[:6]
    assert slow and max(slow) <= GUARDED_SPEED + 1e-6


def test_an_unguarded_move_ignores_the_tool_force(guard):
    control, receive, arm = _arm("contact", guard)
    arm.execute_trajectory(descent("ur5e"))
    assert not control.stops and receive.q == pytest.approx(list(descent("ur5e")[-1]))


# -- blends, acceleration, the watchdog, protective stops ------------------------------------------
def _long_path(n: int = 96, seconds: float = 6.0):
    """n waypoints sweeping the base and shoulder 0.8 rad, planned to last `seconds`."""
    way = [
        tuple(
            v + (0.8 * k / n if i in (0, 1) else 0.0) * (-1 if i == 1 else 1)
            for i, v in enumerate(HOME)
        )
        for k in range(1, n + 1)
    ]
    return way, [seconds * k / n for k in range(1, n + 1)]


def test_a_long_path_is_blended_and_takes_about_its_planned_time(guard):
    """A 96-waypoint path planned at 6 s: blended, the arm runs through in about that time (its
    ramps up and down added); sent with blend 0, it would stop at every waypoint and take far longer."""
    control, receive, arm = _arm("end", guard, margin=2.0)
    way, times = _long_path()
    arm.execute_trajectory(way, times)
    (path,) = control.paths
    radii = [e[8] for e in path]
    assert radii[-1] == 0.0 and all(0.0 < r <= 0.02 for r in radii[:-1])
    (blended,) = control.modelled_s
    assert blended == pytest.approx(arm.inner.last_path_s, rel=0.1)  # the backend waits for that
    assert 6.0 <= blended < 6.0 + 1.0
    stopping, _ = arm_time(HOME, [[*e[:8], 0.0] for e in path])
    assert stopping > 2 * blended  # what blend 0 at every waypoint did
    assert receive.q == pytest.approx(list(way[-1]))


def test_the_watchdog_stops_the_arm_when_owl_bt_stops_kicking(guard):
    receive = FakeReceive()
    control = FakeControl(receive, time_scale=1.0)
    # 4 Hz: a 250 ms window, kicked every 62 ms (a loaded machine delays the kicking thread by
    # tens of milliseconds; at 10 Hz that stopped the arm with nobody gone)
    backend = RtdeBackend(control, receive, guard=guard, watchdog_hz=4.0)
    time.sleep(0.6)
    assert control.watchdog_hz == 4.0 and control.kicks >= 5 and control.program_running
    backend._watchdog.end()  # as when the process dies: nobody kicks any more
    time.sleep(0.6)
    assert not control.program_running
    with pytest.raises(ActionAborted, match="control script"):  # a motion cut short by it fails
        backend.execute_trajectory([HOME, _nearby(0.3)], [0.0, 3.0])
    assert control.uploads == 1 and receive.q != pytest.approx(_nearby(0.3))
    again = RtdeBackend(control, receive, guard=guard)  # owl-bt started again, at its own rate
    again.execute_trajectory([receive.q, _nearby(0.05)], [0.0, 0.5])
    assert control.uploads == 2 and receive.q == pytest.approx(_nearby(0.05))
    again.close()


def test_a_protective_stop_is_refused_until_unlocked_then_the_script_is_uploaded_again(guard):
    control, receive, arm = _arm("protective", guard)
    with pytest.raises(ProtectiveStop, match="unlock it on the pendant"):
        arm.execute_trajectory([HOME, _nearby()])
    control.scenario = "end"
    with pytest.raises(ProtectiveStop, match="protective stop"):
        arm.execute_trajectory([_nearby(0.1)])  # still stopped: nothing is sent
    assert len(control.paths) == 1
    arm.inner.recover(FakeDashboard(receive), wait_s=0.0)
    assert control.uploads == 1 and control.program_running
    arm.execute_trajectory([receive.q, _nearby(0.1)])
    assert len(control.paths) == 2


@pytest.fixture
def refusing(monkeypatch):
    """refusing(module, interface, constructor): a faithful fake UR whose ur_rtde `module`'s
    `interface` is `constructor` (one that raises as ur_rtde does when it cannot connect)."""
    fake = FakeUR()
    install(monkeypatch, fake)

    def use(module: str, interface: str, constructor) -> None:
        monkeypatch.setitem(sys.modules, module, types.SimpleNamespace(**{interface: constructor}))

    yield use
    fake.close()


def test_rtde_input_registers_in_use_names_the_fix(refusing):
    def refuse(ip, *args):
        raise RuntimeError(
            "One of the RTDE input registers are already in use! Currently you must disable the "
            "EtherNet/IP adapter, PROFINET or any MODBUS unit configured on the robot."
        )

    refusing("rtde_control", "RTDEControlInterface", refuse)
    with pytest.raises(BackendUnavailable) as info:
        connect_rtde("192.0.2.20")
    assert str(info.value) == REGISTERS_IN_USE and "Fieldbus" in str(info.value)


def test_an_arm_that_does_not_answer_is_one_line_with_what_ur_rtde_printed(refusing, capfd):
    """ur_rtde prints 'connect: Connection refused' on descriptor 2 beside the RuntimeError it
    raises: it was a second stderr line before the run's own; now it is the reason in that line."""
    import os

    def refuse(ip, *args):
        os.write(2, b"connect: Connection refused\n")
        raise RuntimeError(f"Error: Could not connect to: {ip} at 30004, verify the IP")

    refusing("rtde_receive", "RTDEReceiveInterface", refuse)
    with pytest.raises(BackendUnavailable) as info:
        connect_rtde("192.0.2.20")
    assert str(info.value) == (
        "the UR at 192.0.2.20 does not answer: Error: Could not connect to: 192.0.2.20 at 30004, "
        "verify the IP (connect: Connection refused)"
    )
    assert capfd.readouterr().err == ""


@pytest.mark.slow
@pytest.mark.parametrize("clear", [False, True])
def test_a_protective_stop_found_at_connect_is_unlocked_only_when_asked(monkeypatch, guard, clear):
    fake = FakeUR()
    fake.receive.protective = True
    fake.control.program_running = False
    install(monkeypatch, fake)
    monkeypatch.setattr("skills.rtde_backend.UNLOCK_WAIT_S", 0.0)
    try:
        if not clear:
            with pytest.raises(BackendUnavailable, match="--clear-faults"):
                RtdeBackend.connect("127.0.0.1", guard=guard)
            assert fake.dashboard.unlocks == 0
        else:
            backend = RtdeBackend.connect("127.0.0.1", guard=guard, clear_faults=True)
            assert fake.dashboard.unlocks == 1 and fake.control.uploads == 1
            backend.close()
    finally:
        fake.close()


def test_a_protective_stop_in_the_run_is_clearable_when_asked(guard):
    """With a dashboard (--clear-faults) the stop is a fault the tree's safety subtree clears
    (`fault`, `clear_fault`), not one that ends the run."""
    receive = FakeReceive()
    control = FakeControl(receive, "protective-once")
    dashboard = FakeDashboard(receive)
    backend = RtdeBackend(control, receive, guard=guard, watchdog_hz=None, dashboard=dashboard)
    arm = GuardedBackend(backend, guard)
    with pytest.raises(ProtectiveStop):
        arm.execute_trajectory([HOME, _nearby()])
    assert arm.fatal is None and backend.fault == "protective stop"
    backend.recover(dashboard, wait_s=0.0)  # what clear_fault does, without the controller's 5 s
    assert backend.fault is None and dashboard.unlocks == 1 and control.uploads == 1
    arm.execute_trajectory([receive.q, _nearby(0.1)])
    assert receive.q == pytest.approx(_nearby(0.1))


def test_without_clear_faults_a_protective_stop_ends_the_run(guard):
    control, receive, arm = _arm("protective", guard)
    with pytest.raises(ProtectiveStop):
        arm.execute_trajectory([HOME, _nearby()])
    assert isinstance(arm.fatal, ProtectiveStop) and arm.inner.fault is None
