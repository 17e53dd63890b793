"""`ArmBackend` for a Kinova Gen3 through Kinova's `kortex_api` (Python, protobuf over TCP port 10000).

Connection: `TCPTransport` → `RouterClient` → `SessionManager.CreateSession` with a session and a
connection inactivity timeout, so that the arm stops by itself when this process dies or hangs (the
dead-man). The arm's state (`GetArmState`, `Common_pb2.ArmState`) is read at connect: an arm in
fault is refused with how to clear it, or cleared (`ClearFaults`) when asked — then a fault in
the run is cleared too (`fault` / `clear_fault`, called by the behaviour tree's safety subtree). A call that fails
because the session or connection was lost (the arm ends an idle session after
SESSION_TIMEOUT_MS, e.g. while a plan is being made) connects again once and repeats the call; a
second failure is a typed `ConnectionLost`. Motions are angular waypoint trajectories (degrees,
one duration per waypoint, from the guard's timing; a path of more waypoints than MAX_WAYPOINTS
or than its time allows at MIN_DURATION_S each is resampled to fewer, evenly spread) checked with
`ValidateWaypointList` before `ExecuteWaypointTrajectory`; a trajectory refused for its timing
(speed, acceleration, duration) is slowed by RETIME_FACTOR and validated again, up to RETIME_TRIES
times; completion comes from action notifications (`ACTION_END` / `ACTION_ABORT`) within the planned duration plus a
margin. A fault notification, a timeout, Ctrl-C (`stop()`) or a lost connection stops the arm
(`Stop`, and `ApplyEmergencyStop` when `Stop` itself fails) and raises a typed `ArmFault`. The
gripper (Robotiq 2F-85 on the Gen3's tool port) takes `SendGripperCommand` in position mode (0 open,
1 closed). A guarded descent (a place) runs its last centimetres slowly (`SafetyGuard.slow_tail`) while
the tool's estimated external force (`BaseCyclicClient.RefreshFeedback().base.tool_external_wrench_force_*`)
is watched: a rise of `CONTACT_FORCE_N` over its value at the start stops the arm (`Stop`) and ends the
move as done — the object has met its support. Joint angles come from `GetMeasuredJointAngles` in
degrees wrapped to [0, 360) and are turned into radians in one place, `to_radians`.

`kortex_api` is not on PyPI: it is imported only when a backend is built, and a missing one raises
`BackendUnavailable` with `INSTALL_HINT`. Tests hand in a fake `api` namespace with the same names.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from types import SimpleNamespace

from owl_bt.state import RobotState
from sim.robot import KINOVA_GEN3, MAX_OPENING, RobotSpec
from skills.backend import GripResult
from skills.faults import (
    HELD_UNKNOWN,
    ActionAborted,
    ActionTimeout,
    ArmInFault,
    BackendUnavailable,
    ConnectionLost,
)
from skills.guard import segments

PORT = 10000
INSTALL_HINT = (
    "kortex_api is not on PyPI and pins an old protobuf: pip install 'protobuf==3.20.3' deprecated, "
    "then download Kinova's wheel (kortex_api-2.6.0.post3-py3-none-any.whl, Kinovarobotics/kortex "
    "releases on GitHub) and pip install --no-deps ./kortex_api-2.6.0.post3-py3-none-any.whl"
)
SESSION_TIMEOUT_MS = 10_000  # the arm ends the session after this long without a call
CONNECTION_TIMEOUT_MS = 2_000  # …and stops when the connection is silent this long (the dead-man)
ACTION_MARGIN_S = 5.0  # seconds past a trajectory's planned duration before it counts as hung
GRIPPER_TIMEOUT_S = 4.0
MIN_DURATION_S = 0.05  # Kortex refuses angular waypoints with a zero duration
CLOSED = 0.97  # finger position (0 open … 1 closed) at or past which the fingers hold nothing
CONTACT_FORCE_N = 15.0  # N: a guarded descent stops when the tool's external force rises this much
CONTACT_SETTLE_S = 1.0  # s to wait for the action's end notification after a stop at contact
MAX_WAYPOINTS = 1000  # the most waypoints one WaypointList may carry
RETIME_FACTOR = 1.5  # a trajectory refused for its timing is this much slower when tried again
RETIME_TRIES = 3
CLEAR_FAULTS_S = 3.0  # s to wait for the arm to leave its fault after ClearFaults
FAULT_HINT = (
    "the Gen3 is in fault: look at the arm, clear the fault in the Web App (http://<arm-ip>, the "
    "red fault banner), or run with --clear-faults"
)
# TrajectoryErrorType values that a slower timing can cure: INVALID_DURATION, INVALID_SPEED,
# LARGE_SPEED, INVALID_ACCELERATION, INVALID_TIME_STEP
TIMING_ERRORS = frozenset({3, 5, 6, 7, 8})


def resample(
    pts: Sequence[Sequence[float]], durations: Sequence[float], most: int = MAX_WAYPOINTS
) -> tuple[list[tuple[float, ...]], list[float]]:
    """At most `most` of the waypoints (rad), the last kept, each kept one at least total/most
    seconds after the previous, with the summed durations (s) since it: the same total time over the
    same path, coarser."""
    if len(pts) <= most:
        return [tuple(q) for q in pts], list(durations)
    target = sum(durations) / most
    out_pts, out_d, acc = [], [], 0.0
    for i, (q, d) in enumerate(zip(pts, durations, strict=True)):
        acc += d
        if acc >= target - 1e-9 or i == len(pts) - 1:
            if i == len(pts) - 1 and acc < target - 1e-9 and out_d:
                out_pts[-1], out_d[-1] = tuple(q), out_d[-1] + acc  # a short tail joins the last
            else:
                out_pts.append(tuple(q))
                out_d.append(acc)
            acc = 0.0
    return out_pts, out_d


def import_kortex() -> SimpleNamespace:
    """The kortex_api names this backend uses; raises BackendUnavailable (with INSTALL_HINT) when missing."""
    try:
        from kortex_api.autogen.client_stubs.BaseClientRpc import BaseClient
        from kortex_api.autogen.client_stubs.BaseCyclicClientRpc import BaseCyclicClient
        from kortex_api.autogen.messages import Base_pb2, Common_pb2, Session_pb2
        from kortex_api.Exceptions.KClientException import KClientException
        from kortex_api.Exceptions.KServerException import KServerException
        from kortex_api.RouterClient import RouterClient, RouterClientSendOptions
        from kortex_api.SessionManager import SessionManager
        from kortex_api.TCPTransport import TCPTransport
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    except (TypeError, AttributeError) as exc:  # its generated code against a newer protobuf
        raise BackendUnavailable(
            f"kortex_api failed to import ({type(exc).__name__}: the protobuf installed is not "
            f"3.20): {INSTALL_HINT}"
        ) from None
    return SimpleNamespace(
        TCPTransport=TCPTransport,
        RouterClient=RouterClient,
        RouterClientSendOptions=RouterClientSendOptions,
        SessionManager=SessionManager,
        Session_pb2=Session_pb2,
        Base_pb2=Base_pb2,
        Common_pb2=Common_pb2,
        BaseClient=BaseClient,
        BaseCyclicClient=BaseCyclicClient,
        KServerException=KServerException,
        KClientException=KClientException,
    )


def to_radians(
    degrees: Sequence[float], limits: Sequence[tuple[float, float]]
) -> tuple[float, ...]:
    """Kortex joint angles (degrees, wrapped to [0, 360)) → radians inside each joint's window
    (`limits`, rad): the one place where the two conventions meet."""
    out = []
    for d, (lo, hi) in zip(degrees, limits, strict=True):
        v = math.radians(d % 360.0)
        while v > hi:
            v -= 2 * math.pi
        while v < lo:
            v += 2 * math.pi
        out.append(v)
    return tuple(out)


def to_degrees(q: Sequence[float]) -> list[float]:
    """Radians → Kortex degrees wrapped to [0, 360)."""
    return [math.degrees(v) % 360.0 for v in q]


class KortexBackend:
    """A connected Kinova Gen3. ip: the arm's address; api: the kortex_api names (default: imported);
    guard: a SafetyGuard whose `check_timed` vets every trajectory right before it is sent;
    clear_faults: an arm found in fault at connect is cleared (`ClearFaults`) instead of refused."""

    def __init__(
        self,
        ip: str,
        username: str = "admin",
        password: str = "admin",
        *,
        api: SimpleNamespace | None = None,
        guard=None,
        clear_faults: bool = False,
        spec: RobotSpec = KINOVA_GEN3,
        action_margin_s: float = ACTION_MARGIN_S,
        gripper_timeout_s: float = GRIPPER_TIMEOUT_S,
    ) -> None:
        self.api = api or import_kortex()
        self.spec, self.guard = spec, guard
        self.action_margin_s, self.gripper_timeout_s = action_margin_s, gripper_timeout_s
        self.held: str | None = None
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._fault = threading.Event()
        self.ip, self._login = ip, (username, password)
        self.clear_in_run = clear_faults  # a fault in the run may be cleared (`fault`)
        self.reconnects = 0
        self.retimed = 0  # trajectories slowed after a refusal
        self._open()
        self._check_arm_state(clear_faults)

    def _open(self) -> None:
        """Transport, router, session and clients; BackendUnavailable when the arm does not answer."""
        k = self.api
        try:
            self.transport = k.TCPTransport()
            self.router = k.RouterClient(self.transport, self._router_error)
            self.transport.connect(self.ip, PORT)
            info = k.Session_pb2.CreateSessionInfo()
            info.username, info.password = self._login
            info.session_inactivity_timeout = SESSION_TIMEOUT_MS
            info.connection_inactivity_timeout = CONNECTION_TIMEOUT_MS
            self.session = k.SessionManager(self.router)
            self.session.CreateSession(info)
            self.base = k.BaseClient(self.router)
            self.cyclic = k.BaseCyclicClient(self.router)
            servo = k.Base_pb2.ServoingModeInformation()
            servo.servoing_mode = (
                k.Base_pb2.SINGLE_LEVEL_SERVOING
            )  # high-level commands (not the 1 kHz cyclic loop)
            self.base.SetServoingMode(servo)
            self._fault_handle = self.base.OnNotificationArmStateTopic(
                self._arm_state, k.Base_pb2.NotificationOptions()
            )
        except (k.KServerException, k.KClientException, OSError, RuntimeError) as exc:
            raise BackendUnavailable(
                f"the Gen3 at {self.ip}:{PORT} does not answer: {exc}"
            ) from None
        self._lost.clear()

    @property
    def fault(self) -> str | None:
        """'arm in fault' while the arm reports one and it may be cleared in the run
        (`--clear-faults`), else None."""
        return "arm in fault" if self.clear_in_run and self._fault.is_set() else None

    def clear_fault(self) -> None:
        """ClearFaults and wait for the arm to leave the fault (BackendUnavailable if it does not)."""
        self._check_arm_state(True)
        self._fault.clear()

    def _check_arm_state(self, clear_faults: bool) -> None:
        """Refuse an arm in fault (BackendUnavailable with FAULT_HINT), or clear it when asked."""
        in_fault = self.api.Common_pb2.ARMSTATE_IN_FAULT
        if self._call("GetArmState").active_state != in_fault:
            return
        if not clear_faults:
            self.close()
            raise BackendUnavailable(FAULT_HINT)
        self._call("ClearFaults")
        until = time.monotonic() + CLEAR_FAULTS_S
        while self._call("GetArmState").active_state == in_fault:
            if time.monotonic() > until:
                self.close()
                raise BackendUnavailable(f"ClearFaults did not clear the fault; {FAULT_HINT}")
            time.sleep(0.05)
        self._fault.clear()

    # -- callbacks (kortex_api threads) --------------------------------------------------------
    def _router_error(self, exc: object) -> None:
        self._lost.set()

    def _arm_state(self, notification: object) -> None:
        if getattr(notification, "active_state", None) == self.api.Common_pb2.ARMSTATE_IN_FAULT:
            self._fault.set()

    # -- ArmBackend -----------------------------------------------------------------------------
    def state(self) -> RobotState:
        angles = self._call("GetMeasuredJointAngles")
        ordered = sorted(angles.joint_angles, key=lambda a: a.joint_identifier)
        q = to_radians([a.value for a in ordered], self.spec.limits)
        position = self._gripper_position()
        if self.held is not None and position >= CLOSED:
            self.held = None  # the object slipped out: the fingers closed all the way
        return RobotState(
            joints=q,
            gripper_width=MAX_OPENING * (1.0 - position),
            held=self.held,
            arm=self.spec.name,
        )

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        """Send the waypoints (rad; `times` s from now, as the guard timed them) as one validated
        angular waypoint trajectory and wait for its end. `guarded` (a descent onto a support): its
        last centimetres run slowly and a rise of the tool's external force stops it there, which
        ends the move as done (the Gen3 has no stop-at-contact for waypoint trajectories itself)."""
        start = self.state().joints
        # timed: merged so that no waypoint is shorter than the arm takes, and at most MAX_WAYPOINTS
        pts, durations = segments(
            start, waypoints, times, MIN_DURATION_S if times is None else 1e-3
        )
        if not pts:
            return
        if self.guard is not None and guarded:
            durations = self.guard.slow_tail(start, pts, durations)
        most = min(MAX_WAYPOINTS, max(1, int(sum(durations) / MIN_DURATION_S)))
        pts, durations = resample(pts, durations, most)
        durations = [max(MIN_DURATION_S, d) for d in durations]
        if self.guard is not None:
            self.guard.check_timed(start, pts, durations)
        plan, durations = self._validated(pts, durations)
        contact = None
        if guarded:
            rest = self._tool_force()
            contact = lambda: math.dist(self._tool_force(), rest) > CONTACT_FORCE_N  # noqa: E731
        self._run_action(lambda: self.base.ExecuteWaypointTrajectory(plan), sum(durations), contact)

    def _validated(self, pts, durations):
        """(WaypointList, durations) the arm accepts: refused for its timing, the trajectory is slowed
        (RETIME_FACTOR) and validated again, up to RETIME_TRIES times; ActionAborted otherwise."""
        for attempt in range(RETIME_TRIES + 1):
            plan = self._waypoint_list(pts, durations)
            report = self._call("ValidateWaypointList", plan).trajectory_error_report
            errors = list(report.trajectory_error_elements)
            if not errors:
                return plan, durations
            first = errors[0]
            why = getattr(first, "message", "") or str(first)
            if any(e.error_type not in TIMING_ERRORS for e in errors):
                raise ActionAborted(f"the Gen3 refused the trajectory: {why}")
            if attempt < RETIME_TRIES:
                durations = [d * RETIME_FACTOR for d in durations]
                self.retimed += 1
        raise ActionAborted(
            f"the Gen3 refused the trajectory even {RETIME_FACTOR**RETIME_TRIES:.1f}× slower: {why}"
        )

    def _waypoint_list(self, pts, durations):
        b2 = self.api.Base_pb2
        plan = b2.WaypointList()
        plan.duration = 0.0
        plan.use_optimal_blending = False
        for i, (q, d) in enumerate(zip(pts, durations, strict=True)):
            wp = plan.waypoints.add()
            wp.name = f"waypoint_{i}"
            wp.angular_waypoint.angles.extend(to_degrees(q))
            wp.angular_waypoint.duration = d
        return plan

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        b2 = self.api.Base_pb2
        cmd = b2.GripperCommand()
        cmd.mode = b2.GRIPPER_POSITION
        finger = cmd.gripper.finger.add()
        finger.finger_identifier = 1
        # position mode: 0 open … 1 closed; a pre-shaped 'open' closes in proportion to the width asked
        finger.value = (
            1.0
            if command == "close"
            else 0.0
            if width is None
            else min(1.0, max(0.0, 1.0 - width / MAX_OPENING))
        )
        self._call("SendGripperCommand", cmd)
        deadline, last, still = time.monotonic() + self.gripper_timeout_s, None, 0
        while (
            time.monotonic() < deadline
        ):  # the fingers have stopped: at the target or on an object
            self._raise_if_interrupted()
            pos = self._gripper_position()
            still = still + 1 if last is not None and abs(pos - last) < 0.002 else 0
            if still >= 3:
                break
            last = pos
            time.sleep(0.05)
        else:
            self._halt()
            raise ActionTimeout(f"the gripper did not stop within {self.gripper_timeout_s:.0f} s")
        pos = self._gripper_position()
        self.held = HELD_UNKNOWN if command == "close" and pos < CLOSED else None
        return GripResult(MAX_OPENING * (1.0 - pos), self.held)

    def stop(self) -> None:
        """Stop now (any thread): the waiting command ends with an ActionAborted after `Stop`."""
        self._stop.set()
        self._halt()

    def close(self) -> None:
        """Unsubscribe, close the session (1 s timeout) and disconnect; never raises."""
        try:
            self.base.Unsubscribe(self._fault_handle)
            options = self.api.RouterClientSendOptions()
            options.timeout_ms = 1000
            self.session.CloseSession(options)
        except Exception:  # noqa: BLE001 - closing a possibly dead connection
            pass
        finally:
            self.transport.disconnect()

    # -- the pieces ----------------------------------------------------------------------------
    def _call(self, name: str, *args, client: str = "base"):
        """`self.<client>.<name>(*args)`; a failure (a lost session or connection) connects again
        once and repeats the call; a second failure stops the arm and is a ConnectionLost."""
        k = self.api
        errors = (k.KServerException, k.KClientException, OSError, RuntimeError)
        try:
            return getattr(getattr(self, client), name)(*args)
        except errors as exc:
            first = exc
        try:
            self._reconnect()
            return getattr(getattr(self, client), name)(*args)
        except (*errors, BackendUnavailable) as exc:
            self._lost.set()
            self._halt()
            raise ConnectionLost(
                f"the Gen3 connection failed ({first}) and connecting again did not help: {exc}"
            ) from None

    def _reconnect(self) -> None:
        """Drop the old connection and open a new session (BackendUnavailable when refused)."""
        self.reconnects += 1
        try:
            self.transport.disconnect()
        except Exception:  # noqa: BLE001 - the old connection is gone already
            pass
        self._open()

    def _run_action(self, send, planned_s: float, contact=None) -> None:
        """Send the action and wait for its end; `contact()` (polled, guarded moves): True stops the
        arm and ends the action as done."""
        done = threading.Event()
        outcome: list[object] = []
        b2 = self.api.Base_pb2

        def on_action(notification) -> None:
            if notification.action_event in (b2.ACTION_END, b2.ACTION_ABORT):
                outcome.append(notification.action_event)
                done.set()

        self._stop.clear()
        handle = self._call("OnNotificationActionTopic", on_action, b2.NotificationOptions())
        try:
            try:
                send()
            except (self.api.KServerException, self.api.KClientException, OSError) as exc:
                self._lost.set()
                self._halt()
                raise ConnectionLost(f"the Gen3 connection failed: {exc}") from None
            deadline = time.monotonic() + planned_s + self.action_margin_s
            while not done.wait(0.02):
                self._raise_if_interrupted()
                if contact is not None and contact():
                    self._halt()
                    done.wait(CONTACT_SETTLE_S)  # the ACTION_ABORT that the Stop brings is expected
                    return
                if time.monotonic() > deadline:
                    self._halt()
                    raise ActionTimeout(
                        f"the Gen3 did not finish a {planned_s:.1f} s trajectory within "
                        f"{self.action_margin_s:.1f} s more; it was stopped"
                    )
        finally:
            try:
                self.base.Unsubscribe(handle)
            except Exception:  # noqa: BLE001 - the connection may be gone
                pass
        if self._stop.is_set():
            raise ActionAborted("stopped on request")
        if outcome[0] == b2.ACTION_ABORT:
            self._halt()
            raise ActionAborted("the Gen3 aborted the trajectory")

    def _raise_if_interrupted(self) -> None:
        if self._lost.is_set():
            self._halt()
            raise ConnectionLost("the connection to the Gen3 was lost")
        if self._fault.is_set():
            self._halt()
            raise ArmInFault("the Gen3 reported a fault")
        if self._stop.is_set():
            raise ActionAborted("stopped on request")

    def _halt(self) -> None:
        try:
            self.base.Stop()
        except Exception:  # noqa: BLE001 - Stop failed: the harder stop, then give up
            try:
                self.base.ApplyEmergencyStop()
            except Exception:  # noqa: BLE001
                pass

    def _tool_force(self) -> tuple[float, float, float]:
        """The tool's estimated external force (N, base frame) from the cyclic feedback."""
        base = self._call("RefreshFeedback", client="cyclic").base
        return (
            base.tool_external_wrench_force_x,
            base.tool_external_wrench_force_y,
            base.tool_external_wrench_force_z,
        )

    def _gripper_position(self) -> float:
        b2 = self.api.Base_pb2
        request = b2.GripperRequest()
        request.mode = b2.GRIPPER_POSITION
        measure = self._call("GetMeasuredGripperMovement", request)
        return float(measure.finger[0].value)
