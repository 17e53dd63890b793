"""The pybullet implementation of `ArmBackend`.

Trajectories run under position control with physics stepping (240 Hz). Grasping is by a fixed
constraint that is created only when, after the fingers close (until they meet resistance, then a short
squeeze: `sim.grip`), the object touches a finger link on *each* side (left and right); it is removed on
open. Objects are never teleported.

Like a real arm it can be in a fault (`report_fault`, raised by fault injection, `owl_bt.faults`):
it then holds still and refuses every command with `ArmFaulted` until `clear_fault()` resets it.
`release()` lets go of the held object without a command (a slip).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence

import pybullet as p

from owl_bt.state import Release, RobotState
from sim.grip import ClosingFingers
from sim.robot import FINGER_CLOSED
from sim.world import TIME_STEP, SimWorld
from skills.backend import ArmBlocked, ArmFault, GripResult


class ArmFaulted(ArmFault):
    """The arm reported a fault and holds still; it refuses commands until the fault is cleared
    (`clear_fault()`), then it can go on (a recoverable fault, unlike the hardware ones of skills.faults)."""


JOINT_TOL = 0.01  # radians: a corner on the way counts as reached within this
FINAL_TOL = 0.002  # radians: the end of a trajectory (a grasp, a release) is reached this closely — 0.01 rad
# at the shoulder is 5 mm at the fingertips, enough to pinch a knife lying flat elsewhere than planned
WAYPOINT_TIMEOUT = 3.0  # seconds of simulated time per waypoint
FINGERS_S = 0.8  # seconds the fingers are given to close or open
MAX_SPEED = 1.5  # rad/s: the fastest any joint is driven (below every joint's limit)
MIN_SPEED = 0.05  # rad/s a joint may always move at in a synchronised move, to hold its place
STALL_STEPS = 48  # physics steps (0.2 s) without joint motion: a guarded move has met resistance …
HELD_CONTACT_N = (
    15.0  # … or N the held object presses on something with (the hardware backends' contact force)
)
STILL_STEPS = (
    24  # physics steps (0.1 s) every object must lie still for to end a `hold_still` early
)


def corners(
    start: Sequence[float], waypoints: Sequence[Sequence[float]], tol: float = 1e-3
) -> list[int]:
    """Indices of the waypoints where a joint-space path from `start` turns (the last always kept):
    the points in between lie on the straight segment from one corner to the next within `tol`
    radians (a path densified for collision checking and the guard's jump limit comes back to its
    vertices)."""
    pts = [tuple(start), *(tuple(q) for q in waypoints)]
    out, a = [], 0
    for b in range(2, len(pts)):
        seg = [y - x for x, y in zip(pts[a], pts[b], strict=True)]
        norm = sum(v * v for v in seg) or 1.0
        for k in range(a + 1, b):  # every point skipped so far stays on the segment a → b
            rel = [y - x for x, y in zip(pts[a], pts[k], strict=True)]
            t = sum(r * v for r, v in zip(rel, seg, strict=True)) / norm
            if (
                not 0.0 <= t <= 1.0
                or max(abs(r - t * v) for r, v in zip(rel, seg, strict=True)) > tol
            ):
                out.append(b - 2)  # pts[b - 1] is waypoints[b - 2]
                a = b - 1
                break
    if waypoints:
        out.append(len(waypoints) - 1)
    return out


class SimArmBackend:
    """ArmBackend for a `SimWorld`. Not thread-safe beyond `stop()`."""

    def __init__(self, world: SimWorld, realtime: bool = False) -> None:
        self.world = world
        self.robot = world.robot
        self.held: str | None = None
        self._constraint: int | None = None
        self._hold_angle: float | tuple[float, ...] = (
            0.0  # finger joints (radians) the held object was gripped at
        )
        self._open_angle = (
            0.0  # finger angle (radians) of the open hand: 0, or more when pre-shaped
        )
        self._rejoin: tuple[int, int] | None = (
            None  # (object, physics steps) until the fingers touch it again
        )
        self._stop = threading.Event()
        self.fault: str | None = (
            None  # the fault the arm reports (it refuses commands until cleared)
        )
        self.realtime = realtime
        self._left, self._right = self.robot.finger_links()
        self._grasped_at: tuple | None = None  # the TCP's pose when the held object was gripped
        self._released: dict[str, Release] = {}  # let go of since `take_released`

    def take_released(self) -> dict[str, Release]:
        """The objects let go of (opened on, or slipped) since the last call, by name, each with the
        hand's pose when it gripped and when it let go (`Release`), and forgets them. Perception
        places an object it does not see after its release where the hand let it go, not where the
        hand is at the next look."""
        out, self._released = self._released, {}
        return out

    def state(self) -> RobotState:
        return self.world.robot_state(self.held)

    def stop(self) -> None:
        self._stop.set()

    def report_fault(self, reason: str) -> None:
        """Go into fault: hold still where the arm is (what the hand holds stays held); commands are
        refused with ArmFaulted until `clear_fault()`."""
        self.fault = reason
        self.robot.command_arm(self.robot.arm_q(), max_velocity=0.0)

    def clear_fault(self) -> None:
        """Reset a reported fault (the arm stays where it is, holding what it holds)."""
        self.fault = None
        self.robot.command_arm(self.robot.arm_q())

    def release(self) -> str | None:
        """Let go of the held object at once, as a slipping grasp would (the fingers open); returns its name."""
        name = self.held
        if name is not None:
            self._detach()
            self._open_angle = 0.0
            self.robot.command_fingers(self._open_angle)
        return name

    def _refuse_in_fault(self) -> None:
        if self.fault is not None:
            raise ArmFaulted(f"the arm is in fault ({self.fault}); it must be cleared first")

    def _step(self) -> None:
        self._refuse_in_fault()
        if self._stop.is_set():
            self.robot.command_arm(self.robot.arm_q(), max_velocity=0.0)
            raise ArmFault("stopped on request")
        self.world.step(1)
        if self._rejoin is not None:
            oid, left = self._rejoin
            if left > 1:
                self._rejoin = (oid, left - 1)
            elif not self.robot.gripper_inside(oid):
                self._fingers_touch(oid, True)
                self._rejoin = None
        if self.realtime:
            import time

            time.sleep(TIME_STEP)

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        """Follow the waypoints; raises ArmFault when one is not reached in time. `guarded`: stop
        quietly where the arm stalls against something, or where the held object presses on something
        with HELD_CONTACT_N (a held object meeting its support, or a mug's rim on the way in)."""
        self._refuse_in_fault()
        if (
            self.held is not None
        ):  # (what it carries meets what lies still: both awake, as in the planning model)
            return self._follow(waypoints, times, guarded)
        with (
            self.world.asleep_at_rest()
        ):  # what lies still costs no physics until the arm touches it
            self._follow(waypoints, times, guarded)

    def hold_still(self, seconds: float) -> None:
        """Hold the arm where it is for `seconds` of simulated time at most, ending once every object has
        lain still (`SimWorld.at_rest`) for STILL_STEPS: the executive's look after a step waits for what was
        let go to come to rest, and a fixed half second was mostly waiting on nothing. Raises ArmFault."""
        self._refuse_in_fault()
        self.robot.command_arm(self.robot.arm_q(), max_velocity=MAX_SPEED)
        self.robot.command_fingers(self._finger_target(), force=60.0)
        still = 0
        with contextlib.nullcontext() if self.held is not None else self.world.asleep_at_rest():
            for _ in range(int(seconds / TIME_STEP)):
                self._step()
                still = still + 1 if self.world.at_rest() else 0
                if still >= STILL_STEPS:
                    return

    def _follow(
        self, waypoints: Sequence[Sequence[float]], times: Sequence[float] | None, guarded: bool
    ) -> None:
        start = self.world.steps
        # Each straight stretch of the path is one synchronised move to its corner, at its time.
        keep = corners(self.robot.arm_q(), waypoints)
        if times is not None:
            times = [times[k] for k in keep]
        waypoints = [tuple(waypoints[k]) for k in keep]
        t_prev = 0.0
        for i, q in enumerate(waypoints):
            now = self.robot.arm_q()
            far = max(abs(a - b) for a, b in zip(q, now, strict=True))
            span = max(
                far / MAX_SPEED, (times[i] - t_prev) if times is not None else 0.0, TIME_STEP
            )
            t_prev = times[i] if times is not None else t_prev
            self.robot.command_arm(
                q,
                max_velocity=MAX_SPEED,
                velocities=tuple(
                    max(MIN_SPEED, abs(a - b) / span) for a, b in zip(q, now, strict=True)
                ),
            )
            self.robot.command_fingers(self._finger_target(), force=60.0)
            still = 0
            for n in range(int((WAYPOINT_TIMEOUT + span) / TIME_STEP)):
                if n == int(
                    span / TIME_STEP
                ):  # the move's time is up: close the last gap at full speed
                    self.robot.command_arm(q, max_velocity=MAX_SPEED)
                before = self.robot.arm_q()
                self._step()
                now = self.robot.arm_q()
                if max(abs(a - b) for a, b in zip(now, q, strict=True)) < (
                    FINAL_TOL if i == len(waypoints) - 1 else JOINT_TOL
                ):
                    break
                still = (
                    still + 1
                    if max(abs(a - b) for a, b in zip(now, before, strict=True)) < 1e-4
                    else 0
                )
                if guarded and (still > STALL_STEPS or self._held_pressed() > HELD_CONTACT_N):
                    self.robot.command_arm(now)
                    return
            else:
                against = self._pressing_on()
                where = f" against {', '.join(against)}" if against else ""
                raise ArmBlocked(
                    f"waypoint {i + 1}/{len(waypoints)} not reached within {WAYPOINT_TIMEOUT} s "
                    f"(blocked{where})"
                )
            if times is not None:  # not before its time: hold the waypoint until then
                while (self.world.steps - start) * TIME_STEP < times[i]:
                    self._step()

    def _held_pressed(self) -> float:
        """The force (N) with which the held object presses on anything but the hand: what a wrist
        force sensor feels of a held object meeting something (0 when nothing is held)."""
        if self.held is None:
            return 0.0
        contacts = p.getContactPoints(
            bodyA=self.world.body_id(self.held), physicsClientId=self.world.cid
        )
        return sum(c[9] for c in contacts if c[2] != self.robot.body)

    def _finger_target(self) -> float | tuple[float, ...]:
        # Holding: keep the fingers where they closed on the object (the constraint carries it), so
        # that they do not go on squeezing into it for the whole transport.
        return self._hold_angle if self._constraint is not None else self._open_angle

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        self._refuse_in_fault()
        if command == "close":
            self.robot.command_fingers(FINGER_CLOSED, force=60.0)
            ClosingFingers(self.robot, FINGERS_S).run(self._step)
            obj = self._between_fingers()
            if obj is not None:
                self._attach(obj)
        elif command == "open":
            self._detach()
            self._open_angle = 0.0 if width is None else self.robot.angle_for_opening(width)
            self.robot.command_fingers(self._open_angle)
            self._run_fingers()
        else:
            raise ArmFault(f"unknown gripper command {command!r}")
        return GripResult(self.robot.opening(), self.held)

    def _run_fingers(self, seconds: float = FINGERS_S) -> None:
        # Everything awake, as in the planning model's grips: with the rest of the scene asleep here too,
        # tests/skills/test_execution.py's knife, pinched 25 cm from the sleeping mug, came out of the fingers
        # 10.5° off plan in the median (it allows 10; a pinch is chaotic, and sleeping bodies change
        # Bullet's islands, so likely the order it solves contacts in).
        for _ in range(int(seconds / TIME_STEP)):
            self._step()

    def _between_fingers(self) -> str | None:
        """The object the closed fingers hold: of those touching both fingers, the one they press
        hardest (summed normal force); None when nothing touches both."""
        cid, body, fingers = self.world.cid, self.robot.body, self._left | self._right
        force = {}
        for name, b in self.world.bodies.items():
            contacts = p.getContactPoints(body, b.id, physicsClientId=cid)
            links = {c[3] for c in contacts}
            if links & self._left and links & self._right:
                force[name] = sum(c[9] for c in contacts if c[3] in fingers)
        return max(force, key=force.get) if force else None

    def _pressing_on(self) -> list[str]:
        """What the arm or the held object is in contact with now, as 'object' or 'held↔object'."""
        cid, body = self.world.cid, self.robot.body
        out = []
        for name, b in self.world.bodies.items():
            if name == self.held:
                continue
            if p.getContactPoints(body, b.id, physicsClientId=cid):
                out.append(name)
            elif self.held is not None and p.getContactPoints(
                self.world.body_id(self.held), b.id, physicsClientId=cid
            ):
                out.append(f"{self.held}↔{name}")
        return out

    def _attach(self, name: str) -> None:
        cid, body = self.world.cid, self.robot.body
        oid = self.world.body_id(name)
        tpos, tquat = self.robot.tcp_pose()
        self._grasped_at = (tpos, tquat)
        opos, oquat = p.getBasePositionAndOrientation(oid, physicsClientId=cid)
        inv = p.invertTransform(tpos, tquat)
        rel_pos, rel_quat = p.multiplyTransforms(inv[0], inv[1], opos, oquat)
        self._constraint = p.createConstraint(
            body,
            self.robot.tcp,
            oid,
            -1,
            p.JOINT_FIXED,
            (0, 0, 0),
            rel_pos,
            (0, 0, 0),
            parentFrameOrientation=rel_quat,
            physicsClientId=cid,
        )
        p.changeConstraint(self._constraint, maxForce=200.0, physicsClientId=cid)
        # The grip holds it now: the fingers, still pressed into it, no longer push it about (they
        # turned a pinched knife 14° in the hand as it was lifted, where the planned grasp is rigid).
        self._fingers_touch(oid, False)
        self._hold_angle = self.robot.finger_joints()  # each joint where the object stopped it
        self.held = name

    def _fingers_touch(self, oid: int, enable: bool) -> None:
        cid = self.world.cid
        for link in self.robot.gripper_links:
            for part in range(
                -1, p.getNumJoints(oid, physicsClientId=cid)
            ):  # the object's base and parts
                p.setCollisionFilterPair(
                    self.robot.body, oid, link, part, int(enable), physicsClientId=cid
                )

    def held_corners(self) -> list[tuple[float, float, float]] | None:
        """The held object's bounding-box corners in the TCP frame (m, 8 × 3), for the safety guard."""
        if self.held is None:
            return None
        cid, oid = self.world.cid, self.world.body_id(self.held)
        lo, hi = p.getAABB(oid, physicsClientId=cid)
        inv = p.invertTransform(*self.robot.tcp_pose())
        return [
            p.multiplyTransforms(inv[0], inv[1], (x, y, z), (0, 0, 0, 1))[0]
            for x in (lo[0], hi[0])
            for y in (lo[1], hi[1])
            for z in (lo[2], hi[2])
        ]

    def _detach(self) -> None:
        if self.held is not None:
            self._released[self.held] = Release(self._grasped_at, self.robot.tcp_pose())
        if self._constraint is not None:
            p.removeConstraint(self._constraint, physicsClientId=self.world.cid)
            # the fingers touch it again once they have opened off it: at once, still pressed into
            # it, they would kick it away (a mug stood up flew 36 cm); and not while one still sits
            # inside its wall (stuck there, it lifted a mug 10 cm as the hand backed out)
            self._rejoin = (self.world.body_id(self.held), int(FINGERS_S / TIME_STEP))
        self._constraint = None
        self.held = None
