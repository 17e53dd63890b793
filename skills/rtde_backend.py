"""`ArmBackend` for a UR5 (or UR5e) through `ur_rtde` (`pip install owl-bt[ur]`), with the Robotiq
2F-85 over its URCap socket (port 63352, `skills/robotiq_socket.py`).

Motions are one asynchronous `moveJ` over a path of `[q1..q6, speed, acceleration, blend]` entries
(rad, rad/s, rad/s², m; `skills/ur_path.py`): each entry's speed the one that makes its segment last
as long as the guard timed it, and a blend radius at every waypoint but the last, so that the arm
passes them at speed instead of stopping at each. The backend waits for the arm's own time for the
path (`ur_path.expected_duration`, acceleration ramps included) plus a margin. While it runs, the
receive interface is polled: a protective or emergency stop is a `ProtectiveStop`; a dropped
connection a `ConnectionLost` (after a `stopJ` attempt); a motion past its time is stopped (`stopJ`)
and an `ActionTimeout`; `stop()` (Ctrl-C) ends it with `stopJ` and an `ActionAborted`. Joint angles
are `getActualQ()` (rad, no conversion).

The dead-man: `setWatchdog(WATCHDOG_HZ)` at connect, and a thread of this process kicks it; when
owl-bt dies or hangs, the kicks stop and the controller ends the control script, which stops the
arm. Before each motion the control script must be running: after a protective stop was unlocked
(on the pendant, or by `recover()` when asked: at connect, and in the run through
`fault` / `clear_fault`, which the behaviour tree's safety subtree calls) or after the watchdog fired, it is uploaded again
(`reuploadScript`). A guarded descent (a place) runs its last centimetres slowly
(`SafetyGuard.slow_tail`) while the tool force (`getActualTCPForce()`, N) is watched: a rise of
`CONTACT_FORCE_N` over its value at the start ends the motion with `stopJ`, as done. What the hand
holds is the Robotiq's object detection, read again whenever the state is read: an object that
slipped out (OBJ 3, the fingers at their closed position) is no longer held.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Sequence

from owl_bt.state import RobotState
from sim.robot import MAX_OPENING, UR5E, RobotSpec
from skills import ur_path
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
REGISTERS_IN_USE = (
    "the UR's RTDE input registers are already in use by a fieldbus adapter: on the pendant, "
    "Installation → Fieldbus, turn EtherNet/IP, PROFINET and MODBUS client off, then connect again"
)
PROTECTIVE_STOP_HINT = (
    "the UR is in a protective stop: look at the scene, then unlock it on the pendant "
    "(or run with --clear-faults)"
)
ACCELERATION = ur_path.ACCELERATION  # rad/s² for moveJ; stopJ decelerates at twice this
MARGIN_S = 5.0  # seconds past a path's expected duration before it counts as hung
MIN_DURATION_S = 0.02
POLL_S = 0.01
# the controller ends the control script when kicks come slower than this; 0.5 s leaves room for a
# long call that holds the GIL (a rendered frame), and an idle script that ended is uploaded again
WATCHDOG_HZ = 2.0
UNLOCK_WAIT_S = 5.0  # a UR refuses to unlock a protective stop sooner than 5 s after it
SETTLE_S, SETTLE_RAD = (
    0.5,
    0.01,
)  # a finished path: wait this long at most for the measured joints to reach its end
CONTACT_FORCE_N = 15.0  # N: a guarded descent stops when the tool force rises this much
OBJ_AT_POSITION = 3  # Robotiq OBJ: the fingers are at the requested position (nothing between them)
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
    ur_rtde is missing, the arm does not answer, or a fieldbus adapter holds the RTDE input
    registers (REGISTERS_IN_USE: the fix is on the pendant)."""
    try:
        import rtde_control
        import rtde_receive
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    from sim.quiet import captured

    failure = None
    with captured() as said:  # ur_rtde prints 'connect: …' on stderr beside its exception
        try:
            receive = rtde_receive.RTDEReceiveInterface(ip, -1.0, RECEIVE_VARIABLES)
            control = rtde_control.RTDEControlInterface(ip)
        except RuntimeError as exc:
            failure = exc
    if failure is None:
        sys.stderr.write(said[0])  # (nothing, when it connects)
        return control, receive
    if "already in use" in str(failure):
        raise BackendUnavailable(REGISTERS_IN_USE)
    raise BackendUnavailable(f"the UR at {ip} does not answer: {failure}{said_why(said[0])}")


def said_why(text: str) -> str:
    """' (<the last line ur_rtde printed>)', e.g. ' (connect: Connection refused)', or ''."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    return f" ({lines[-1][:200]})" if lines else ""


def open_dashboard(ip: str):
    """A connected `dashboard_client.DashboardClient` (port 29999); BackendUnavailable when it is
    missing or the controller does not answer."""
    try:
        import dashboard_client
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    try:
        dashboard = dashboard_client.DashboardClient(ip)
        dashboard.connect()
    except RuntimeError as exc:
        raise BackendUnavailable(f"the UR's dashboard at {ip} does not answer: {exc}") from None
    return dashboard


class _Watchdog(threading.Thread):
    """Kicks the control interface's watchdog `4 × hz` times a second until `end()`."""

    def __init__(self, kick, hz: float) -> None:
        super().__init__(daemon=True, name="ur-watchdog")
        self.kick, self.period, self._end = kick, 1.0 / (4 * hz), threading.Event()

    def run(self) -> None:
        while not self._end.wait(self.period):
            try:
                self.kick()
            except Exception:  # noqa: BLE001 - a dead link: the controller stops the arm itself
                return

    def end(self) -> None:
        self._end.set()


class RtdeBackend:
    """A connected UR. control / receive: `rtde_control.RTDEControlInterface` /
    `rtde_receive.RTDEReceiveInterface` (or objects with the same methods); gripper: a
    RobotiqSocketGripper; guard: a SafetyGuard whose `check_timed` vets every path before it is sent
    (and whose forward kinematics sizes the blend radii); watchdog_hz: the dead-man's rate (None:
    no watchdog)."""

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
        watchdog_hz: float | None = WATCHDOG_HZ,
        dashboard=None,
    ) -> None:
        self.c, self.r, self.g = control, receive, gripper
        self.guard, self.spec, self.acceleration, self.margin_s = (
            guard,
            spec,
            acceleration,
            margin_s,
        )
        self.held: str | None = None
        self.dashboard = dashboard  # set: a protective stop may be unlocked in the run (`fault`)
        self.last_path_s = 0.0  # the expected duration (s) of the last path sent
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one control call at a time (the watchdog thread kicks too)
        self._watchdog: _Watchdog | None = None
        if watchdog_hz:
            self._control(self.c.setWatchdog, watchdog_hz)
            self._watchdog = _Watchdog(lambda: self._control(self.c.kickWatchdog), watchdog_hz)
            self._watchdog.start()

    @classmethod
    def connect(cls, ip: str, *, clear_faults: bool = False, **kwargs) -> RtdeBackend:
        """Connect to the UR at `ip` and its Robotiq; `clear_faults`: a protective stop found at
        connect is unlocked (`recover`), else it is refused with PROTECTIVE_STOP_HINT."""
        from skills.robotiq_socket import RobotiqSocketGripper

        control, receive = connect_rtde(ip)
        gripper = RobotiqSocketGripper(ip)
        gripper.activate()
        backend = cls(control, receive, gripper, **kwargs)
        if clear_faults:
            backend.dashboard = open_dashboard(ip)
        if receive.isProtectiveStopped():
            if not clear_faults:
                backend.close()
                raise BackendUnavailable(PROTECTIVE_STOP_HINT)
            backend.recover(backend.dashboard)
        return backend

    @property
    def fault(self) -> str | None:
        """'protective stop' while the arm is in one and may be unlocked in the run (a dashboard
        was given: `--clear-faults`), else None."""
        if self.dashboard is not None and self.r.isProtectiveStopped():
            return "protective stop"
        return None

    def clear_fault(self) -> None:
        """Unlock the protective stop and upload the control script again (`recover`)."""
        self.recover(self.dashboard)

    def recover(self, dashboard, wait_s: float = UNLOCK_WAIT_S) -> None:
        """Unlock a protective stop through the dashboard (`unlockProtectiveStop`, after the
        `wait_s` the controller insists on) and upload the control script again; raises
        ProtectiveStop when the arm stays stopped."""
        if self.r.isProtectiveStopped():
            time.sleep(wait_s)
            dashboard.unlockProtectiveStop()
            until = time.monotonic() + 2.0
            while self.r.isProtectiveStopped() and time.monotonic() < until:
                time.sleep(POLL_S)
            if self.r.isProtectiveStopped():
                raise ProtectiveStop(
                    f"the protective stop could not be unlocked; {PROTECTIVE_STOP_HINT}"
                )
        self._ready()

    def state(self) -> RobotState:
        self._check_link()
        q = tuple(float(v) for v in self.r.getActualQ())
        width = self.g.width() if self.g is not None else 0.085
        if self.held is not None and self.g is not None and self.g.get("OBJ") == OBJ_AT_POSITION:
            self.held = None  # the object slipped out: the fingers closed to their target
        return RobotState(joints=q, gripper_width=width, held=self.held, arm=self.spec.name)

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        """One asynchronous, blended moveJ through the waypoints (rad) at the guard's timing (s from
        now); blocks until it ends; raises a typed ArmFault (after a stop) when it does not.
        `guarded` (a descent onto a support): its last centimetres run slowly, and a rise of the
        tool force stops it there (`stopJ`), which ends the move as done."""
        start = self.state().joints
        pts, durations = segments(start, waypoints, times, MIN_DURATION_S)
        if not pts:
            return
        if self.guard is not None:
            if guarded:
                durations = self.guard.slow_tail(start, pts, durations)
            self.guard.check_timed(start, pts, durations)
        self._ready()
        rest = self._tool_force() if guarded else None
        path = ur_path.path_entries(
            start, pts, durations, self._radii(start, pts), self.acceleration
        )
        self.last_path_s = ur_path.expected_duration(start, path)
        self._stop.clear()
        if not self._control(self.c.moveJ, path, True):
            raise ActionAborted("the UR refused the moveJ path")
        deadline = time.monotonic() + self.last_path_s + self.margin_s
        while True:
            time.sleep(POLL_S)
            self._check_link()
            if self.r.isProtectiveStopped() or self.r.isEmergencyStopped():
                raise ProtectiveStop(
                    PROTECTIVE_STOP_HINT
                    if self.r.isProtectiveStopped()
                    else "the UR's emergency stop was pressed"
                )
            if self._stop.is_set():
                raise ActionAborted("stopped on request")
            if self._control(self.c.getAsyncOperationProgress) < 0:  # nothing running: done
                if not self._control(self.c.isProgramRunning):
                    raise ActionAborted(
                        "the UR's control script stopped during the motion (watchdog or a stop "
                        "on the pendant); the arm stopped short"
                    )
                self._settle(pts[-1])
                return
            if rest is not None and math.dist(self._tool_force(), rest) > CONTACT_FORCE_N:
                self._halt()  # touched down: stop here, the move is done
                return
            if time.monotonic() > deadline:
                self._halt()
                raise ActionTimeout(
                    f"the UR did not finish a {self.last_path_s:.1f} s path within "
                    f"{self.margin_s:.1f} s more; it was stopped"
                )

    def _radii(self, start, pts) -> list[float]:
        """Blend radii (m) from the tool positions (the guard's kinematics); none without a guard."""
        if self.guard is None:
            return [0.0] * len(pts)
        return ur_path.blend_radii(self.guard.tool_positions([start, *pts]))

    def _ready(self) -> None:
        """The control script runs (uploaded again after a protective stop was unlocked or the
        watchdog ended it); raises ProtectiveStop while the arm is stopped."""
        if self.r.isProtectiveStopped():
            raise ProtectiveStop(PROTECTIVE_STOP_HINT)
        if self.r.isEmergencyStopped():
            raise ProtectiveStop("the UR's emergency stop is pressed: release it and start again")
        if not self._control(self.c.isProgramRunning):
            if not self._control(self.c.reuploadScript):
                raise ActionAborted("the UR did not take the control script again")

    def _settle(self, end: Sequence[float]) -> None:
        """Wait (at most SETTLE_S) until the received joints are within SETTLE_RAD of `end` (rad): the
        receive stream runs a package or two behind the controller, and the next state() must show
        where the path ended (a test's path read its start 0.2 rad back on a loaded machine)."""
        until = time.monotonic() + SETTLE_S
        while time.monotonic() < until:
            if ur_path.leading(self.r.getActualQ(), end) <= SETTLE_RAD:
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
        if self._watchdog is not None:
            self._watchdog.end()
        for thing in (self.c, self.r, self.g):
            try:
                if thing is not None:
                    (getattr(thing, "disconnect", None) or thing.close)()
            except Exception:  # noqa: BLE001 - closing a possibly dead connection
                pass

    def _control(self, fn, *args):
        with self._lock:
            return fn(*args)

    def _tool_force(self) -> tuple[float, ...]:
        """The force at the tool (N, base frame; x, y, z of `getActualTCPForce()`)."""
        return tuple(float(v) for v in self.r.getActualTCPForce()[:3])

    def _check_link(self) -> None:
        if not self.r.isConnected() or not self.c.isConnected():
            self._halt()
            raise ConnectionLost("the connection to the UR was lost")

    def _halt(self) -> None:
        try:
            self._control(self.c.stopJ, 2 * self.acceleration)
        except Exception:  # noqa: BLE001 - the link may be gone; the UR stops itself when RTDE goes silent
            pass
