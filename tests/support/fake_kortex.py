"""An in-process fake of the kortex_api names `skills.kortex_backend` uses, at the vendor API boundary.

Message classes behave like the protobuf messages of `Base_pb2` / `Common_pb2` / `Session_pb2` as
far as the backend uses them (attributes, repeated fields with `add()` / `extend()`), with the
vendor's enum values (ActionEvent ACTION_END 1, ACTION_ABORT 2, ACTION_START 4; ArmState in
Common_pb2, ARMSTATE_IN_FAULT 4; TrajectoryErrorType LARGE_SPEED 6, INVALID_ACCELERATION 7,
LARGE_SIZE 9, JOINT_POSITION_LIMIT 11). `ValidateWaypointList` refuses what the arm refuses: more
than 1000 waypoints, a waypoint whose joints would move faster than `speed_limit_deg_s`, and one
whose joints would change speed (from rest at the start, to rest at the end) harder than
`accel_limit_deg_s2`. The arm can be in fault at connect
(`in_fault`, cleared by `ClearFaults`), lose its session (`lose_session()`: every call fails until a
new session is made; `refuse_sessions` makes that fail too), and drop what it holds during the next
motion (`drop_on_carry`: the fingers close all the way). `FakeBaseClient` records
every call and answers an `ExecuteWaypointTrajectory` with action notifications from its own thread,
as the arm does: ACTION_END after the trajectory's duration (scaled by `time_scale`), ACTION_ABORT,
nothing at all (a hung action), an arm fault, or a broken connection (the router's error callback).
`FakeBaseCyclicClient` answers `RefreshFeedback` with the tool's external force, which the 'contact'
scenario raises halfway through a trajectory (the held object meets the table).
"""

from __future__ import annotations

import math
import threading
from types import SimpleNamespace

from sim.robot import GEN3_HOME


class KServerException(Exception):
    pass


class KClientException(Exception):
    pass


class _Repeated(list):
    def __init__(self, factory) -> None:
        super().__init__()
        self._factory = factory

    def add(self):
        item = self._factory()
        self.append(item)
        return item


class _AngularWaypoint:
    def __init__(self) -> None:
        self.angles: list[float] = []
        self.duration = 0.0


class _Waypoint:
    def __init__(self) -> None:
        self.name = ""
        self.angular_waypoint = _AngularWaypoint()


class WaypointList:
    def __init__(self) -> None:
        self.duration = 0.0
        self.use_optimal_blending = True
        self.waypoints = _Repeated(_Waypoint)


class _Finger:
    def __init__(self, finger_identifier: int = 0, value: float = 0.0) -> None:
        self.finger_identifier, self.value = finger_identifier, value


class GripperCommand:
    def __init__(self) -> None:
        self.mode = None
        self.gripper = SimpleNamespace(finger=_Repeated(_Finger))


class GripperRequest:
    def __init__(self) -> None:
        self.mode = None


class NotificationOptions:
    pass


class ServoingModeInformation:
    def __init__(self) -> None:
        self.servoing_mode = None


class CreateSessionInfo:
    def __init__(self) -> None:
        self.username = self.password = ""
        self.session_inactivity_timeout = self.connection_inactivity_timeout = 0


Base_pb2 = SimpleNamespace(
    WaypointList=WaypointList,
    GripperCommand=GripperCommand,
    GripperRequest=GripperRequest,
    NotificationOptions=NotificationOptions,
    ServoingModeInformation=ServoingModeInformation,
    SINGLE_LEVEL_SERVOING=2,
    GRIPPER_POSITION=3,
    ACTION_END=1,
    ACTION_ABORT=2,
    ACTION_START=4,
    TRAJECTORY_ERROR_TYPE_LARGE_SPEED=6,
    TRAJECTORY_ERROR_TYPE_INVALID_ACCELERATION=7,
    TRAJECTORY_ERROR_TYPE_LARGE_SIZE=9,
    TRAJECTORY_ERROR_TYPE_JOINT_POSITION_LIMIT=11,
)
Common_pb2 = SimpleNamespace(ARMSTATE_IDLE=2, ARMSTATE_IN_FAULT=4, ARMSTATE_SERVOING_READY=7)
Session_pb2 = SimpleNamespace(CreateSessionInfo=CreateSessionInfo)
MAX_WAYPOINTS = 1000


class FakeTransport:
    refuse = False  # a subclass that refuses plays an arm that does not answer

    def __init__(self) -> None:
        self.connected_to = None

    def connect(self, ip: str, port: int) -> None:
        if self.refuse:
            raise KClientException("connection refused")
        self.connected_to = (ip, port)

    def disconnect(self) -> None:
        self.connected_to = None


class FakeRouter:
    def __init__(self, transport: FakeTransport, error_callback) -> None:
        self.transport, self.error_callback = transport, error_callback


class RouterClientSendOptions:
    def __init__(self) -> None:
        self.timeout_ms = 0


class FakeSessionManager:
    api: SimpleNamespace | None = None  # set by make_api: the arm whose session this opens

    def __init__(self, router: FakeRouter) -> None:
        self.router, self.info, self.closed = router, None, False

    def CreateSession(self, info) -> None:  # noqa: N802 - the vendor's name
        base = self.api.base if self.api is not None else None
        if base is not None and base.refuse_sessions:
            raise KServerException("SESSION_NOT_IN_CONNECTED_STATE: the arm refused a new session")
        self.info = info
        if base is not None:
            base.session_alive = True

    def CloseSession(self, options=None) -> None:  # noqa: N802
        self.closed = True


class FakeBaseClient:
    """Scenario: 'end' (default), 'abort', 'never', 'fault' ('fault-once': the next trajectories end
    well), 'disconnect', 'invalid' (validation fails),
    'contact' (the tool's external force rises by `contact_force` N halfway; the action then runs on
    to its end unless stopped)."""

    scenario = "end"
    time_scale = 0.02  # seconds of fake time per second of planned trajectory

    def __init__(self, router: FakeRouter) -> None:
        self.router = router
        self.calls: list[tuple[str, object]] = []
        self.executed: list[WaypointList] = []
        self.angles_deg = [
            math.degrees(v) % 360.0 for v in GEN3_HOME
        ]  # the sim's home pose, in Kortex degrees
        self.gripper = 0.0
        self.gripper_stop = 1.0  # where closing fingers stop (less than 1: on an object)
        self.gripper_hangs = (
            False  # True: the fingers never come to rest (a jammed or slipping gripper)
        )
        self._action_cbs: dict[int, object] = {}
        self._state_cbs: dict[int, object] = {}
        self._next = 1
        self.stopped = threading.Event()
        self.estopped = False
        self.threads: list[threading.Thread] = []
        self.force = [
            0.4,
            -0.3,
            -2.0,
        ]  # N: the tool's estimated external force (a small resting offset)
        self.contact_force = 25.0

    # the arm's state and session
    in_fault = False
    refuse_sessions = False
    session_alive = True
    speed_limit_deg_s: float | None = None  # ValidateWaypointList refuses faster waypoints …
    accel_limit_deg_s2: float | None = None  # … and harder speed changes
    drop_on_carry = False

    def lose_session(self) -> None:
        """The arm ends the session (an idle timeout, a network glitch): calls fail until a new one."""
        self.session_alive = False

    def GetArmState(self):  # noqa: N802
        self._check_link()
        state = (
            Common_pb2.ARMSTATE_IN_FAULT if self.in_fault else Common_pb2.ARMSTATE_SERVOING_READY
        )
        return SimpleNamespace(active_state=state, connection_identifier=1)

    def ClearFaults(self) -> None:  # noqa: N802
        self._check_link()
        self.calls.append(("ClearFaults", None))
        self.in_fault = False

    def SetServoingMode(self, info) -> None:  # noqa: N802
        self._check_link()
        self.calls.append(("SetServoingMode", info.servoing_mode))

    # subscriptions
    def OnNotificationActionTopic(self, callback, options):  # noqa: N802
        self.calls.append(("OnNotificationActionTopic", None))
        self._next += 1
        self._action_cbs[self._next] = callback
        return self._next

    def OnNotificationArmStateTopic(self, callback, options):  # noqa: N802
        self._next += 1
        self._state_cbs[self._next] = callback
        return self._next

    def Unsubscribe(self, handle) -> None:  # noqa: N802
        self._action_cbs.pop(handle, None)
        self._state_cbs.pop(handle, None)

    # reading
    def GetMeasuredJointAngles(self):  # noqa: N802
        self._check_link()
        return SimpleNamespace(
            joint_angles=[
                SimpleNamespace(joint_identifier=i, value=v)
                for i, v in reversed(list(enumerate(self.angles_deg)))
            ]
        )

    def GetMeasuredGripperMovement(self, request):  # noqa: N802
        self._check_link()
        if self.gripper_hangs:
            self.gripper = (self.gripper + 0.01) % 1.0
        return SimpleNamespace(finger=[SimpleNamespace(finger_identifier=1, value=self.gripper)])

    # commanding
    def ValidateWaypointList(self, plan: WaypointList):  # noqa: N802
        self._check_link()
        self.calls.append(("ValidateWaypointList", plan))
        errors = []
        if self.scenario == "invalid":
            errors.append(
                _error(Base_pb2.TRAJECTORY_ERROR_TYPE_JOINT_POSITION_LIMIT, "joint 2 out of range")
            )
        if len(plan.waypoints) > MAX_WAYPOINTS:
            errors.append(_error(Base_pb2.TRAJECTORY_ERROR_TYPE_LARGE_SIZE, "too many waypoints"))
        prev, v_prev = self.angles_deg, [0.0] * len(self.angles_deg)
        for i, w in enumerate(plan.waypoints):
            angles, d = w.angular_waypoint.angles, w.angular_waypoint.duration
            deltas = [(a - b + 180.0) % 360.0 - 180.0 for a, b in zip(angles, prev, strict=True)]
            step = max(abs(x) for x in deltas)
            v = [x / d for x in deltas]
            last = i == len(plan.waypoints) - 1
            acc = max(
                abs(a - b) / d for a, b in zip(v, v_prev, strict=True)
            )  # from the last waypoint's speed (rest at the start) …
            if last:
                acc = max(acc, max(abs(x) for x in v) / d)  # … and down to rest at the end
            if self.accel_limit_deg_s2 and acc > self.accel_limit_deg_s2:
                errors.append(
                    _error(
                        Base_pb2.TRAJECTORY_ERROR_TYPE_INVALID_ACCELERATION,
                        f"waypoint {i}: a joint exceeds {self.accel_limit_deg_s2:.0f} deg/s²",
                        waypoint_index=i,
                    )
                )
                break
            v_prev = v
            if (
                self.speed_limit_deg_s
                and step / w.angular_waypoint.duration > self.speed_limit_deg_s
            ):
                errors.append(
                    _error(
                        Base_pb2.TRAJECTORY_ERROR_TYPE_LARGE_SPEED,
                        f"waypoint {i}: a joint exceeds {self.speed_limit_deg_s:.0f} deg/s",
                        waypoint_index=i,
                    )
                )
                break
            prev = angles
        return SimpleNamespace(
            trajectory_error_report=SimpleNamespace(trajectory_error_elements=errors)
        )

    def ExecuteWaypointTrajectory(self, plan: WaypointList) -> None:  # noqa: N802
        self._check_link()
        self.calls.append(("ExecuteWaypointTrajectory", plan))
        self.executed.append(plan)
        self.stopped.clear()  # a Stop ends the action it meets, not the next one
        seconds = sum(w.angular_waypoint.duration for w in plan.waypoints) * self.time_scale
        thread = threading.Thread(target=self._run, args=(plan, seconds), daemon=True)
        self.threads.append(thread)
        thread.start()

    def _run(self, plan: WaypointList, seconds: float) -> None:
        for cb in list(self._action_cbs.values()):
            cb(SimpleNamespace(action_event=Base_pb2.ACTION_START))
        if self.drop_on_carry and 0.0 < self.gripper < 1.0:
            self.drop_on_carry = False
            self.gripper = 1.0  # the object slipped out: the closed fingers close all the way
        if self.scenario == "contact":
            if self.stopped.wait(seconds / 2):
                self._notify(Base_pb2.ACTION_ABORT)
                return
            self.force[2] += self.contact_force
            seconds = max(
                seconds / 2, 0.5
            )  # the slow last centimetres: long enough for a poll to see it
        if self.stopped.wait(seconds):
            self._notify(Base_pb2.ACTION_ABORT)
            return
        if self.scenario in ("end", "contact"):
            self.angles_deg = list(plan.waypoints[-1].angular_waypoint.angles)
            self._notify(Base_pb2.ACTION_END)
        elif self.scenario == "abort":
            self._notify(Base_pb2.ACTION_ABORT)
        elif self.scenario in ("fault", "fault-once"):
            self.in_fault = True
            if self.scenario == "fault-once":
                self.scenario = "end"
            for cb in list(self._state_cbs.values()):
                cb(SimpleNamespace(active_state=Common_pb2.ARMSTATE_IN_FAULT))
        elif self.scenario == "disconnect":
            self.router.error_callback(KClientException("connection lost"))
        # 'never': the action hangs, no notification at all

    def _notify(self, event) -> None:
        for cb in list(self._action_cbs.values()):
            cb(SimpleNamespace(action_event=event))

    def SendGripperCommand(self, command: GripperCommand) -> None:  # noqa: N802
        self._check_link()
        self.calls.append(("SendGripperCommand", command))
        target = command.gripper.finger[0].value
        self.gripper = min(target, self.gripper_stop)

    def Stop(self) -> None:  # noqa: N802
        self.calls.append(("Stop", None))
        self.stopped.set()
        if self.scenario == "disconnect":
            raise KClientException("not connected")

    def ApplyEmergencyStop(self) -> None:  # noqa: N802
        self.calls.append(("ApplyEmergencyStop", None))
        self.estopped = True

    def _check_link(self) -> None:
        if not self.session_alive:
            raise KServerException("SESSION_NOT_IN_CONNECTED_STATE: no session")
        if self.scenario == "disconnect" and any(
            c[0] == "ExecuteWaypointTrajectory" for c in self.calls
        ):
            raise KClientException("not connected")


def make_api(scenario: str = "end") -> SimpleNamespace:
    """A kortex_api namespace whose BaseClient plays `scenario`; `api.base` is set once a client is built."""
    api = SimpleNamespace(
        TCPTransport=FakeTransport,
        RouterClient=FakeRouter,
        RouterClientSendOptions=RouterClientSendOptions,
        SessionManager=FakeSessionManager,
        Session_pb2=Session_pb2,
        Base_pb2=Base_pb2,
        Common_pb2=Common_pb2,
        KServerException=KServerException,
        KClientException=KClientException,
        base=None,
    )

    def base_client(router):
        if api.base is not None:  # a new session on the same arm
            api.base.router = router
            return api.base
        client = FakeBaseClient(router)
        client.scenario = scenario
        api.base = client
        return client

    class SessionManager(FakeSessionManager):
        pass

    SessionManager.api = api
    api.SessionManager = SessionManager

    api.BaseClient = base_client
    api.BaseCyclicClient = lambda router: FakeBaseCyclicClient(api)
    return api


class FakeBaseCyclicClient:
    """`BaseCyclicClient.RefreshFeedback()`: the base's tool external wrench from the fake arm."""

    def __init__(self, api: SimpleNamespace) -> None:
        self.api = api

    def RefreshFeedback(self):  # noqa: N802 - the vendor's name
        base = self.api.base
        base._check_link()
        fx, fy, fz = base.force
        return SimpleNamespace(
            base=SimpleNamespace(
                tool_external_wrench_force_x=fx,
                tool_external_wrench_force_y=fy,
                tool_external_wrench_force_z=fz,
            )
        )


def _error(error_type: int, message: str, waypoint_index: int = 0) -> SimpleNamespace:
    """A TrajectoryErrorElement."""
    return SimpleNamespace(error_type=error_type, message=message, waypoint_index=waypoint_index)


def install(monkeypatch, api) -> None:
    """Put the fake `api` under kortex_api's module names (for `skills.kortex_backend.import_kortex`)."""
    import sys
    import types

    names = {
        "kortex_api": {},
        "kortex_api.autogen": {},
        "kortex_api.autogen.client_stubs": {},
        "kortex_api.autogen.client_stubs.BaseClientRpc": {"BaseClient": api.BaseClient},
        "kortex_api.autogen.client_stubs.BaseCyclicClientRpc": {
            "BaseCyclicClient": api.BaseCyclicClient
        },
        "kortex_api.autogen.messages": {
            "Base_pb2": api.Base_pb2,
            "Common_pb2": api.Common_pb2,
            "Session_pb2": api.Session_pb2,
        },
        "kortex_api.Exceptions": {},
        "kortex_api.Exceptions.KClientException": {"KClientException": api.KClientException},
        "kortex_api.Exceptions.KServerException": {"KServerException": api.KServerException},
        "kortex_api.RouterClient": {
            "RouterClient": api.RouterClient,
            "RouterClientSendOptions": api.RouterClientSendOptions,
        },
        "kortex_api.SessionManager": {"SessionManager": api.SessionManager},
        "kortex_api.TCPTransport": {"TCPTransport": api.TCPTransport},
    }
    for name, attrs in names.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, module)


def fingers_stop_at(api, position: float) -> None:
    """The fake's closing fingers stop at `position` (0 open … 1 closed; below 1: on an object)."""
    make = api.BaseClient

    def client(router):
        c = make(router)
        c.gripper_stop = position
        return c

    api.BaseClient = client
