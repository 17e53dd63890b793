"""The UR backend at the ur_rtde boundary: fake `rtde_control` / `rtde_receive` objects with the
library's method names (motions run in a thread; protective stops, emergency stops, disconnects and
hung paths on cue), and the Robotiq gripper against a real TCP server on 127.0.0.1 speaking the
URCap's socket protocol."""

from __future__ import annotations

import math
import socketserver
import sys
import threading
import time

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
from skills.rtde_backend import INSTALL_HINT, RtdeBackend, connect_rtde
from tests.support.descent import descent


class FakeReceive:
    """rtde_receive.RTDEReceiveInterface's methods the backend reads."""

    def __init__(self) -> None:
        self.q = list(HOME)
        self.connected, self.protective, self.emergency = True, False, False
        self.force = [
            0.5,
            0.0,
            -3.0,
            0.0,
            0.0,
            0.0,
        ]  # N, N·m: the tool force (a small resting offset)

    def getActualQ(self):  # noqa: N802 - ur_rtde's names
        return list(self.q)

    def isConnected(self):  # noqa: N802
        return self.connected

    def getActualTCPForce(self):  # noqa: N802
        return list(self.force)

    def isProtectiveStopped(self):  # noqa: N802
        return self.protective

    def isEmergencyStopped(self):  # noqa: N802
        return self.emergency


class FakeControl:
    """rtde_control.RTDEControlInterface's methods; `scenario` plays how the next moveJ goes
    ('contact': the tool force rises by 25 N halfway along the path, which then runs on unless stopped)."""

    def __init__(
        self, receive: FakeReceive, scenario: str = "end", time_scale: float = 0.05
    ) -> None:
        self.r, self.scenario, self.time_scale = receive, scenario, time_scale
        self.paths: list[list[list[float]]] = []
        self.stops: list[float] = []
        self._running = False
        self._halt = threading.Event()

    def isConnected(self):  # noqa: N802
        return self.r.connected

    def moveJ(self, path, asynchronous=False):  # noqa: N802
        if self.scenario == "refuse":
            return False
        self.paths.append([list(e) for e in path])
        self._running = True
        threading.Thread(target=self._run, args=(path,), daemon=True).start()
        return True

    def _run(self, path) -> None:
        prev = list(self.r.q)
        for k, entry in enumerate(path):
            if self.scenario == "contact" and k == len(path) // 2:
                self.r.force[2] += 25.0
                if self._halt.wait(
                    0.5
                ):  # the slow last centimetres: long enough for a poll to see it
                    self._running = False
                    return
            q, speed = entry[:6], entry[6]
            seconds = (
                max(abs(a - b) for a, b in zip(q, prev, strict=True)) / speed * self.time_scale
            )
            if self._halt.wait(seconds):
                self._running = False
                return
            if self.scenario == "protective":
                self.r.protective = True
                return
            if self.scenario == "disconnect":
                self.r.connected = False
                return
            self.r.q, prev = list(q), list(q)
        if self.scenario != "never":
            self._running = False

    def getAsyncOperationProgress(self):  # noqa: N802
        return 0 if self._running else -1

    def stopJ(self, a=2.0, asynchronous=False):  # noqa: N802
        self.stops.append(a)
        self._halt.set()


@pytest.fixture(scope="module")
def guard():
    g = SafetyGuard(robot="ur5e", speed=0.25)
    yield g
    g.close()


def _arm(scenario: str, guard: SafetyGuard, margin: float = 0.3):
    receive = FakeReceive()
    control = FakeControl(receive, scenario)
    backend = RtdeBackend(control, receive, guard=guard, margin_s=margin)
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
    control.time_scale = 1.0
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
class _Robotiq(socketserver.StreamRequestHandler):
    """Plays the URCap: SET answers ack, GET answers 'VAR value'; closing stops at `stop_at`."""

    def handle(self) -> None:
        regs = self.server.regs
        for raw in self.rfile:
            words = raw.decode().split()
            if self.server.hangup:
                return  # the URCap went away: the connection closes without an answer
            if not words:
                continue
            if words[0] == "SET":
                for name, value in zip(words[1::2], words[2::2], strict=True):
                    regs[name] = int(value)
                if regs.get("ACT") == 1:
                    regs["STA"] = 3
                if regs.get("GTO") == 1:
                    regs["POS"] = min(regs.get("POS", 0), self.server.stop_at)
                    regs["OBJ"] = (
                        2
                        if regs["POS"] < 255 and self.server.stop_at < 255 and regs["POS"] > 0
                        else 3
                    )
                self.wfile.write(b"ack\n")
            elif words[0] == "GET":
                self.wfile.write(f"{words[1]} {regs.get(words[1], 0)}\n".encode())


@pytest.fixture()
def robotiq_server():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Robotiq)
    server.daemon_threads = True
    server.regs, server.stop_at, server.hangup = {"STA": 0, "POS": 0, "OBJ": 3}, 255, False
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_robotiq_socket_activates_closes_on_an_object_and_opens(robotiq_server):
    gripper = RobotiqSocketGripper("127.0.0.1", robotiq_server.server_address[1])
    gripper.activate()
    assert robotiq_server.regs["ACT"] == 1
    robotiq_server.stop_at = 180
    receive = FakeReceive()
    backend = RtdeBackend(FakeControl(receive), receive, gripper)
    res = backend.gripper("close")
    assert res.holding == HELD_UNKNOWN and res.width == pytest.approx(0.085 * (1 - 180 / 255))
    assert robotiq_server.regs["FOR"] == 100 and robotiq_server.regs["GTO"] == 1
    assert backend.gripper("open").holding is None
    gripper.close()


def test_robotiq_socket_that_hangs_up_is_a_lost_connection(robotiq_server):
    gripper = RobotiqSocketGripper("127.0.0.1", robotiq_server.server_address[1])
    assert gripper.get("STA") == 0
    robotiq_server.hangup = True
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
