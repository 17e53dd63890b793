"""`ArmBackend` for a UR5 (or UR5e) through `ur_rtde` (`pip install owl-bt[ur]`), with the Robotiq
2F-85 over its URCap socket (port 63352, `skills/robotiq_socket.py`).

Motions are one asynchronous `moveJ` over a path of `[q1..q6, speed, acceleration, blend]` entries
(rad, rad/s, rad/s², m), each entry's speed the one that makes its segment last as long as the guard
timed it. While it runs, the receive interface is polled: a protective or emergency stop is a
`ProtectiveStop`; a dropped connection a `ConnectionLost` (after a `stopJ` attempt); a motion past
its planned duration plus a margin is stopped (`stopJ`) and an `ActionTimeout`; `stop()` (Ctrl-C)
ends it with `stopJ` and an `ActionAborted`. Joint angles are `getActualQ()` (rad, no conversion).
A guarded descent (a place) runs its last centimetres slowly (`SafetyGuard.slow_tail`) while the
tool force (`getActualTCPForce()`, N) is watched: a rise of `CONTACT_FORCE_N` over its value at the
start ends the motion with `stopJ`, as done — the object has met its support.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence

from owl_bt.state import RobotState
from sim.robot import MAX_OPENING, UR5E, RobotSpec
from skills.backend import GripResult
from skills.faults import (
    HELD_UNKNOWN,
    ActionAborted,
    ActionTimeout,
    BackendUnavailable,
    ConnectionLost,
    ProtectiveStop,
)
from skills.guard import segments

INSTALL_HINT = "the UR backend needs ur_rtde: pip install 'owl-bt[ur]' (or pip install ur_rtde)"
ACCELERATION = 1.0  # rad/s² for moveJ and stopJ
MARGIN_S = 5.0  # seconds past a path's planned duration before it counts as hung
MIN_DURATION_S = 0.02
POLL_S = 0.01
SETTLE_S, SETTLE_RAD = (
    0.5,
    0.01,
)  # a finished path: wait this long at most for the measured joints to reach its end
CONTACT_FORCE_N = 15.0  # N: a guarded descent stops when the tool force rises this much
# What the receive interface asks the controller for (the backend reads nothing else).
RECEIVE_VARIABLES = [
    "timestamp",
    "actual_q",
    "actual_TCP_force",
    "robot_mode",
    "safety_mode",
    "runtime_state",
    "robot_status_bits",
    "safety_status_bits",
]


def connect_rtde(ip: str):
    """(RTDEControlInterface, RTDEReceiveInterface) connected to `ip`; BackendUnavailable when
    ur_rtde is missing or the arm does not answer."""
    try:
        import rtde_control
        import rtde_receive
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    try:
        receive = rtde_receive.RTDEReceiveInterface(ip, -1.0, RECEIVE_VARIABLES)
        control = rtde_control.RTDEControlInterface(ip)
    except RuntimeError as exc:
        raise BackendUnavailable(f"the UR at {ip} does not answer: {exc}") from None
    return control, receive


class RtdeBackend:
    """A connected UR. control / receive: `rtde_control.RTDEControlInterface` /
    `rtde_receive.RTDEReceiveInterface` (or objects with the same methods); gripper: a
    RobotiqSocketGripper; guard: a SafetyGuard whose `check_timed` vets every path before it is sent."""

    def __init__(
        self,
        control,
        receive,
        gripper=None,
        *,
        guard=None,
        spec: RobotSpec = UR5E,
        acceleration: float = ACCELERATION,
        margin_s: float = MARGIN_S,
    ) -> None:
        self.c, self.r, self.g = control, receive, gripper
        self.guard, self.spec, self.acceleration, self.margin_s = (
            guard,
            spec,
            acceleration,
            margin_s,
        )
        self.held: str | None = None
        self._stop = threading.Event()

    @classmethod
    def connect(cls, ip: str, **kwargs) -> RtdeBackend:
        from skills.robotiq_socket import RobotiqSocketGripper

        control, receive = connect_rtde(ip)
        gripper = RobotiqSocketGripper(ip)
        gripper.activate()
        return cls(control, receive, gripper, **kwargs)

    def state(self) -> RobotState:
        self._check_link()
        q = tuple(float(v) for v in self.r.getActualQ())
        width = self.g.width() if self.g is not None else 0.085
        return RobotState(joints=q, gripper_width=width, held=self.held, arm=self.spec.name)

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        """One asynchronous moveJ through the waypoints (rad) at the guard's timing (s from now);
        blocks until it ends; raises a typed ArmFault (after a stop) when it does not. `guarded` (a
        descent onto a support): its last centimetres run slowly, and a rise of the tool force stops
        it there (`stopJ`), which ends the move as done."""
        start = self.state().joints
        pts, durations = segments(start, waypoints, times, MIN_DURATION_S)
        if self.guard is not None:
            if guarded and pts:
                durations = self.guard.slow_tail(start, pts, durations)
            self.guard.check_timed(start, pts, durations)
        rest = self._tool_force() if guarded else None
        path, prev = [], start
        for q, d in zip(pts, durations, strict=True):
            speed = max(1e-3, max(abs(a - b) for a, b in zip(q, prev, strict=True)) / d)
            path.append([*q, speed, self.acceleration, 0.0])
            prev = q
        self._stop.clear()
        if not self.c.moveJ(path, True):
            raise ActionAborted("the UR refused the moveJ path")
        deadline = time.monotonic() + sum(durations) + self.margin_s
        while True:
            time.sleep(POLL_S)
            self._check_link()
            if self.r.isProtectiveStopped() or self.r.isEmergencyStopped():
                raise ProtectiveStop(
                    "the UR made a protective stop"
                    if self.r.isProtectiveStopped()
                    else "the UR's emergency stop was pressed"
                )
            if self._stop.is_set():
                raise ActionAborted("stopped on request")
            if self.c.getAsyncOperationProgress() < 0:  # no asynchronous operation running: done
                self._settle(pts[-1] if pts else start)
                return
            if rest is not None and math.dist(self._tool_force(), rest) > CONTACT_FORCE_N:
                self._halt()  # touched down: stop here, the move is done
                return
            if time.monotonic() > deadline:
                self._halt()
                raise ActionTimeout(
                    f"the UR did not finish a {sum(durations):.1f} s path within {self.margin_s:.1f} s more; "
                    "it was stopped"
                )

    def _settle(self, end: Sequence[float]) -> None:
        """Wait (at most SETTLE_S) until the received joints are within SETTLE_RAD of `end` (rad): the
        receive stream runs a package or two behind the controller, and the next state() must show
        where the path ended (a test's path read its start 0.2 rad back on a loaded machine)."""
        until = time.monotonic() + SETTLE_S
        while time.monotonic() < until:
            if max(abs(a - b) for a, b in zip(self.r.getActualQ(), end, strict=True)) <= SETTLE_RAD:
                return
            time.sleep(POLL_S)

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        if self.g is None:
            raise BackendUnavailable("no gripper connected")
        # Robotiq position 0 open … 255 closed; a pre-shaped 'open' closes in proportion to the width asked
        closed = 0 if width is None else round(255 * min(1.0, max(0.0, 1.0 - width / MAX_OPENING)))
        _, on_object = self.g.move(255 if command == "close" else closed)
        self.held = HELD_UNKNOWN if command == "close" and on_object else None
        return GripResult(self.g.width(), self.held)

    def stop(self) -> None:
        """Stop now (any thread): stopJ, and the waiting motion ends with ActionAborted."""
        self._stop.set()
        self._halt()

    def close(self) -> None:
        for thing in (self.c, self.r, self.g):
            try:
                if thing is not None:
                    (getattr(thing, "disconnect", None) or thing.close)()
            except Exception:  # noqa: BLE001 - closing a possibly dead connection
                pass

    def _tool_force(self) -> tuple[float, ...]:
        """The force at the tool (N, base frame; x, y, z of `getActualTCPForce()`)."""
        return tuple(float(v) for v in self.r.getActualTCPForce()[:3])

    def _check_link(self) -> None:
        if not self.r.isConnected() or not self.c.isConnected():
            self._halt()
            raise ConnectionLost("the connection to the UR was lost")

    def _halt(self) -> None:
        try:
            self.c.stopJ(2 * self.acceleration)
        except Exception:  # noqa: BLE001 - the link may be gone; the UR stops itself when RTDE goes silent
            pass
