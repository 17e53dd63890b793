"""The UR backend's receive path through the real `ur_rtde` RTDEReceiveInterface, talking RTDE v2 to a
test server on port 30004 of a loopback address (tests/support/rtde_server.py): joint angles, protective and emergency stops
and a controller that goes away all come in over the wire. The control side is a stand-in (the real
RTDEControlInterface uploads a URScript program to the controller, which only a real arm runs)."""

from __future__ import annotations

import os
import threading
import time

import pytest
import rtde_receive

from sim.robot import HOME
from skills.faults import BackendUnavailable, ConnectionLost, ProtectiveStop
from skills.guard import SafetyGuard
from skills.guarded import GuardedBackend
from skills.rtde_backend import RECEIVE_VARIABLES, RtdeBackend, connect_rtde
from tests.support.rtde_server import RtdeController


class ControllerSideControl:
    """rtde_control's methods; a moveJ moves the test server's joints to the path's end after
    `seconds`, unless `hang` (the path never ends, e.g. the arm is stopped by the controller)."""

    def __init__(self, server: RtdeController, hang: bool = False, seconds: float = 0.1) -> None:
        self.server, self.hang, self.seconds = server, hang, seconds
        self.paths, self.stops, self._done = [], [], threading.Event()

    def isConnected(self):  # noqa: N802 - ur_rtde's names
        return True

    def isProgramRunning(self):  # noqa: N802
        return True

    def moveJ(self, path, asynchronous=False):  # noqa: N802
        self.paths.append(path)
        self._done.clear()
        if not self.hang:
            threading.Timer(self.seconds, self._finish, args=(path[-1][:6],)).start()
        return True

    def _finish(self, q) -> None:
        self.server.q = q
        time.sleep(
            0.05
        )  # a data package with the new joints is on its way before the move reports done
        self._done.set()

    def getAsyncOperationProgress(self):  # noqa: N802
        return -1 if self._done.is_set() else 0

    def stopJ(self, a=2.0, asynchronous=False):  # noqa: N802
        self.stops.append(a)


@pytest.fixture()
def server():
    # the RTDE port is fixed (30004): each xdist worker serves on a loopback address of its own
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    ctl = RtdeController(host=f"127.0.0.{10 + int(worker or 0)}")
    ctl.q = HOME
    yield ctl
    ctl.close()


@pytest.fixture(scope="module")
def guard():
    g = SafetyGuard(robot="ur5e", speed=0.25)
    yield g
    g.close()


def _arm(server, guard, **control):
    receive = rtde_receive.RTDEReceiveInterface(server.host, -1.0, RECEIVE_VARIABLES)
    control = ControllerSideControl(server, **control)
    return (
        receive,
        control,
        GuardedBackend(
            RtdeBackend(control, receive, guard=guard, margin_s=2.0, watchdog_hz=None), guard
        ),
    )


def _nearby() -> tuple[float, ...]:
    return tuple(v + (0.2 if i == 0 else 0.0) for i, v in enumerate(HOME))


def test_joint_angles_come_over_rtde_and_a_path_ends_where_planned(server, guard):
    receive, control, arm = _arm(server, guard)
    try:
        assert arm.state().joints == pytest.approx(HOME)
        arm.execute_trajectory([HOME, _nearby()])
        assert control.paths and arm.state().joints == pytest.approx(_nearby())
        assert receive.getActualTCPForce() == pytest.approx([0.5, -0.2, -4.0, 0.0, 0.0, 0.0])
        arm.execute_trajectory(
            [_nearby(), HOME], guarded=True
        )  # a steady tool force: no contact, it runs on
        assert arm.state().joints == pytest.approx(HOME)
    finally:
        receive.disconnect()


@pytest.mark.parametrize("bit, words", [(4, "protective stop"), (128, "emergency stop")])
def test_a_safety_stop_reported_by_the_controller_ends_the_motion(server, guard, bit, words):
    receive, control, arm = _arm(server, guard, hang=True)
    threading.Timer(0.2, lambda: setattr(server, "safety_status_bits", 1 | bit)).start()
    try:
        t0 = time.monotonic()
        with pytest.raises(ProtectiveStop, match=words):
            arm.execute_trajectory([HOME, _nearby()])
        assert time.monotonic() - t0 < 1.5
    finally:
        receive.disconnect()


def test_a_controller_that_goes_away_is_a_lost_connection(server, guard):
    receive, control, arm = _arm(server, guard, hang=True)
    threading.Timer(0.2, server.drop).start()
    try:
        t0 = time.monotonic()
        with pytest.raises(ConnectionLost):
            arm.execute_trajectory([HOME, _nearby()])
        assert time.monotonic() - t0 < 3.0
        assert control.stops  # stopJ was attempted
    finally:
        receive.disconnect()


def test_an_address_where_no_controller_answers_is_unavailable():
    t0 = time.monotonic()
    with pytest.raises(BackendUnavailable, match="does not answer"):
        connect_rtde("127.0.0.3")  # loopback, nothing listening on 30004 there: refused at once
    assert time.monotonic() - t0 < 10.0
