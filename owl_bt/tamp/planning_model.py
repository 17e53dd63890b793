"""The planning model: a separate pybullet client built from a perceived `WorldState`.

Controllers are "executed in the planning model" here: the arm is set kinematically, a held object
follows the TCP through its grasp transform, and physics runs where contact decides what happens (a
grip, a release, a pour). Nothing here reads the simulator that the robot acts in.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator

import pybullet as p

from owl_bt.state import ObjectState, Pose, RobotState, WorldState
from owl_bt.tamp.container_geometry import ContainerGeometry
from sim.bullet import body_pose, connect, to_bullet
from sim.catalog import spec_for_state
from sim.grip import ClosingFingers
from sim.objects import spawn
from sim.robot import DEFAULT_ROBOT, FINGER_CLOSED, RobotModel
from sim.world import TIME_STEP

SPILL_TILT = 0.6  # radians a container carrying something may tilt on the way before it spills
Transform = tuple[tuple[float, float, float], tuple[float, float, float, float]]


# The box the tool and a held object must stay in, (lo, hi) xyz in metres, world frame: the guard's WORKSPACE_BOX (skills/
# guard.py) shrunk by 2 cm at the sides and 5 cm under the ceiling: the guard never refuses a planned path (test_motion.py).
PLANNING_BOX = ((-0.28, -0.68, -0.01), (0.98, 0.68, 0.95))
# Settling runs only the bodies near what happens (grips and releases run every body: a pinch is chaotic,
# and parked bodies change the order Bullet solves contacts in, so the hand's outcome would differ from
# execution's, which runs them all): one at rest
# farther than NEAR_M from the hand, the held object and every moving body is parked far off the table
# (PARK, one metre apart) and put to sleep for the stretch (neither its contacts nor its parts' dynamics
# are computed), then woken and put back exactly. Each resting body's contacts
# cost every physics step, so a table of 24 objects made a step 7 times as dear as one of 4.
NEAR_M = 0.15  # m
MOVING = 0.01  # m/s: a body this fast takes part in the stretch wherever it is
PARK = (100.0, 100.0, 0.0)  # m: the first parked body's spot, far from anything
GRIP_ANGLE = 0.5  # rad: the fingers of a hand holding something whose grip was not measured
OPEN_S, RETREAT_S = 0.6, 0.3  # seconds a release takes: fingers opening, then backing out
CLOSE_S, CLOSE_FORCE = (
    0.8,
    60.0,
)  # a grip: seconds the fingers close for at most, and their force (N), as the arm's


def _near_any(box: tuple, boxes, gap: float) -> bool:
    """Do axis-aligned box `box` ((lo xyz), (hi xyz), metres) and any of `boxes` come within `gap` m of each
    other (overlap counts)? Conservative. (Not sim.catalog.layout.overlaps: its loop over axes cost 65 µs a check.)"""
    (ax, ay, az), (bx, by, bz) = box
    return any(
        lo[0] - gap <= bx
        and ax <= hi[0] + gap
        and lo[1] - gap <= by
        and ay <= hi[1] + gap
        and lo[2] - gap <= bz
        and az <= hi[2] + gap
        for lo, hi in boxes
    )


class PlanningModel(ContainerGeometry):
    """A kinematic copy of the scene for sampling and checking; one pybullet DIRECT client. Container
    geometry (cavity, opening, lowest_point, in_cavity) is `ContainerGeometry`'s."""

    def __init__(self, world: WorldState) -> None:
        self.cid = connect(gui=False)
        p.setTimeStep(TIME_STEP, physicsClientId=self.cid)
        self.objects: dict[str, ObjectState] = dict(world.objects)
        self.bodies: dict[str, int] = {}
        self._cavities: dict[str, dict] = {}
        self._points: dict[
            str, list
        ] = {}  # bounding points of each body's parts, in its body frame
        for name, obj in world.objects.items():
            spec = spec_for_state(obj)
            self.bodies[name] = spawn(self.cid, spec, obj.pose)
            self._learn_shape(name, spec)
        self.robot = RobotModel.load(
            self.cid, robot=world.robot.arm if world.robot else DEFAULT_ROBOT, visual=False
        )
        q = world.robot.joints if world.robot else self.robot.home
        self.robot.reset_arm(q)
        self.held: str | None = None
        self.grasp: Transform | None = None  # object pose in the TCP frame
        self.carried: dict[str, Transform] = {}  # contents of the held object, pose in its frame
        self.upright: tuple | None = None  # the held object's orientation when it was picked up
        self.grip_angle: float | tuple[float, ...] = (
            GRIP_ANGLE  # finger angle(s) (rad) the held object is gripped at
        )
        self.grasp_touch: frozenset[int] = (
            frozenset()
        )  # arm links the held object touched as it was gripped
        # (name, checker) pairs the step being sampled must satisfy: set by the refiner, so that a
        # controller can judge a result before it plans dear motions for it
        self.step_checks: list = []
        self.next_op = (
            None  # the skeleton's step after the one being sampled (set by the refiner), or None
        )
        # (object, grasp, place params) the place look-ahead found reachable from the grasp just made, or None
        self.reachable: tuple | None = None
        self.hint_misses = 0  # place draws around `reachable` refused since it was found
        if (
            world.robot and world.robot.held in self.bodies
        ):  # already in the hand: keep the observed grasp
            self.attach(world.robot.held)
        self.limits = self.robot.limits
        self._fingers = self.robot.finger_links()
        self._arm_links = tuple(range(0, self.robot.tcp + 1))
        self._base_links = self.robot.base_links  # base, shoulder, upper arm
        self._reach: dict[
            str, float
        ] = {}  # metres from each body's origin to its farthest part (see _bound)
        self._solid_links = tuple(
            link
            for link in range(-1, p.getNumJoints(self.robot.body, physicsClientId=self.cid))
            if p.getCollisionShapeData(self.robot.body, link, physicsClientId=self.cid)
        )

    # -- state ---------------------------------------------------------------------------------
    def state(self) -> WorldState:
        """The model's current WorldState (object poses read back from the client)."""
        objs = {n: o.moved(body_pose(self.cid, self.bodies[n])) for n, o in self.objects.items()}
        robot = RobotState(joints=self.robot.arm_q(), held=self.held, arm=self.robot.spec.name)
        return WorldState(objects=objs, robot=robot, source="planning-model")

    def snapshot(self) -> tuple:
        return (
            p.saveState(physicsClientId=self.cid),
            self.held,
            self.grasp,
            dict(self.carried),
            self.upright,
            self.grip_angle,
            self.grasp_touch,
        )

    def restore(self, snap: tuple) -> None:
        sid, self.held, self.grasp, carried, self.upright, self.grip_angle, self.grasp_touch = snap
        self.carried = dict(carried)
        p.restoreState(stateId=sid, physicsClientId=self.cid)

    def drop_snapshot(self, snap: tuple) -> None:
        p.removeState(snap[0], physicsClientId=self.cid)

    def pose(self, name: str) -> Pose:
        return body_pose(self.cid, self.bodies[name])

    def set_pose(self, name: str, pose: Pose) -> None:
        pos, quat = to_bullet(pose)
        p.resetBasePositionAndOrientation(self.bodies[name], pos, quat, physicsClientId=self.cid)

    # -- the arm and what it holds ----------------------------------------------------------------
    def set_arm(self, q: tuple[float, ...] | list[float]) -> None:
        """Set the arm joints (radians); a held object follows the TCP."""
        self.robot.reset_arm(q)
        if self.held is not None and self.grasp is not None:
            tpos, tquat = self.robot.tcp_pose()
            pos, quat = p.multiplyTransforms(tpos, tquat, *self.grasp)
            self._put(self.held, pos, quat)
            for name, rel in self.carried.items():
                self._put(name, *p.multiplyTransforms(pos, quat, *rel))

    def _put(self, name: str, pos, quat) -> None:
        body = self.bodies[name]
        p.resetBasePositionAndOrientation(body, pos, quat, physicsClientId=self.cid)
        p.resetBaseVelocity(body, (0, 0, 0), (0, 0, 0), physicsClientId=self.cid)

    def attach(self, name: str, angle: float | tuple[float, ...] | None = None) -> None:
        """Hold `name` with its current pose relative to the TCP (kinematic grasp); what lies inside it (its
        contents, e.g. a ball in a mug) is carried along rigidly until `release_contents`. angle: the finger
        angle (rad) it is gripped at, or every finger joint's (pick measures them), default GRIP_ANGLE."""
        tpos, tquat = self.robot.tcp_pose()
        opos, oquat = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.cid)
        inv = p.invertTransform(tpos, tquat)
        self.grasp = p.multiplyTransforms(inv[0], inv[1], opos, oquat)
        oinv = p.invertTransform(opos, oquat)
        self.carried = {}
        for other in self.contents(name):
            cpos, cquat = p.getBasePositionAndOrientation(
                self.bodies[other], physicsClientId=self.cid
            )
            self.carried[other] = p.multiplyTransforms(oinv[0], oinv[1], cpos, cquat)
        self.held = name
        self.upright = oquat  # how it stood when picked up: carrying contents, keep it so
        self.grip_angle = GRIP_ANGLE if angle is None else angle
        self.robot.reset_fingers(self.grip_angle)
        # the arm links it touches as it is gripped (a mug deep in the hand against a wrist) are its grasp's own
        self.grasp_touch = frozenset(
            c[4]
            for c in p.getClosestPoints(
                self.bodies[name], self.robot.body, 0.0, physicsClientId=self.cid
            )
        )

    def detach(self) -> None:
        self.held, self.grasp, self.carried = None, None, {}
        self.robot.reset_fingers(0.0)

    def spills(self, limit: float = SPILL_TILT) -> bool:
        """Would the held object's contents spill here? True when it carries something and is tilted
        more than `limit` radians from how it was picked up (the arm as last set)."""
        if self.held is None or not self.carried or self.upright is None:
            return False
        quat = p.getBasePositionAndOrientation(self.bodies[self.held], physicsClientId=self.cid)[1]
        now = p.getMatrixFromQuaternion(quat)
        then = p.getMatrixFromQuaternion(self.upright)
        cos = now[2] * then[2] + now[5] * then[5] + now[8] * then[8]  # angle between the two z axes
        return cos < math.cos(limit)

    def release_contents(self) -> None:
        """Let the held object's contents move under physics again (pouring)."""
        self.carried = {}

    def pour_motion(
        self,
        poses: list[tuple],
        seconds: float,
        dwell: float,
        arm: list | None = None,
        watch: Callable[[], None] | None = None,
        settled: Callable[[], bool] | None = None,
    ) -> None:
        """Move the held object through `poses` ((position, quaternion) of its body, world frame)
        over `seconds`, then hold the last for up to `dwell` s, stepping physics all along so that its
        released contents fall out (off the container's walls and the hand, as they would). `arm`:
        joint values (radians) matching each pose, so that the hand turns with the object (its palm
        and fingers over a mug's mouth are in the way of what falls out). `watch`: called after every
        physics step (the pour follows where the contents fall); `settled`: after every step of the
        dwell, which ends once it returns True (what fell out has come to rest). The object is driven,
        not held: the fingers keep their angle and do not touch it (squeezing a driven can made most of
        each step's cost), though they do meet what falls out."""
        watch, settled = watch or (lambda: None), settled or (lambda: False)
        body = self.bodies[self.held]
        self._put(self.held, *poses[0])
        self.robot.command_fingers(self.robot.finger_joints())
        pads = {
            (c[3], c[4])
            for c in p.getClosestPoints(self.robot.body, body, 0.01, physicsClientId=self.cid)
        }
        for link, part in pads:
            p.setCollisionFilterPair(self.robot.body, body, link, part, 0, physicsClientId=self.cid)
        # Driven by a stiff fixed constraint to the world, as a hand would: the contents meet a
        # wall that moves smoothly, with a velocity, rather than one that jumps every step.
        cons = p.createConstraint(
            body,
            -1,
            -1,
            -1,
            p.JOINT_FIXED,
            (0, 0, 0),
            (0, 0, 0),
            poses[0][0],
            childFrameOrientation=poses[0][1],
            physicsClientId=self.cid,
        )
        p.changeConstraint(cons, maxForce=5000.0, physicsClientId=self.cid)
        per = max(1, int(seconds / TIME_STEP / max(1, len(poses))))
        try:
            for k, (pos, quat) in enumerate(poses):
                if arm is not None:
                    self.robot.reset_arm(arm[k])
                    self.robot.command_arm(arm[k])
                p.changeConstraint(cons, pos, quat, maxForce=5000.0, physicsClientId=self.cid)
                for _ in range(per):
                    p.stepSimulation(physicsClientId=self.cid)
                    watch()
            for _ in range(int(dwell / TIME_STEP)):
                p.stepSimulation(physicsClientId=self.cid)
                watch()
                if settled():
                    break
        finally:
            p.removeConstraint(cons, physicsClientId=self.cid)
            for link, part in pads:
                p.setCollisionFilterPair(
                    self.robot.body, body, link, part, 1, physicsClientId=self.cid
                )
            self._put(self.held, *poses[-1])

    def contents(self, name: str) -> list[str]:
        """Movable objects inside `name` as the model stands now (`WorldState.contents`)."""
        return self.state().contents(name)

    def tcp_for_object(self, obj_pose: Pose, grasp: Transform) -> Transform:
        """TCP (position, quaternion) that puts the held object at obj_pose given grasp (obj in TCP)."""
        inv = p.invertTransform(*grasp)
        pos, quat = to_bullet(obj_pose)
        return p.multiplyTransforms(pos, quat, inv[0], inv[1])

    # -- collisions ----------------------------------------------------------------------------
    def in_collision(
        self,
        q: tuple[float, ...] | list[float],
        ignore: tuple[str, ...] = (),
        margin: float = 0.0,
        clearance: float = 0.0,
    ) -> str | None:
        """Name of what the arm (or the held object) would touch at q (within `margin` m, and `clearance`
        m more of a movable object), else None. Checks the arm and gripper against every object and the
        table (except `ignore`), the held object against everything but the gripper, the held object
        against the arm links it can swing into (those before the last wrist link, which turns with the
        hand; not those it touched as it was gripped), and the gripper against the arm's base links."""
        self.set_arm(q)
        cid, body = self.cid, self.robot.body
        boxes = {link: p.getAABB(body, link, physicsClientId=cid) for link in self._solid_links}
        held_box = self._bound(self.held) if self.held is not None else None
        for name, bid in self.bodies.items():
            if name in ignore or name == self.held or name in self.carried:
                continue
            near = margin + (0.0 if self.objects[name].fixed else clearance)
            box = self._bound(name)
            # bounding boxes first: an exact distance query costs 10-200 µs a body (a can's 25 parts
            # against 20 arm links), a box test well under one, and most bodies are far from the arm
            if _near_any(box, boxes.values(), near) and p.getClosestPoints(
                body, bid, near, physicsClientId=cid
            ):
                return name
            if (
                held_box is not None
                and _near_any(box, (held_box,), near)
                and p.getClosestPoints(self.bodies[self.held], bid, near, physicsClientId=cid)
            ):
                return f"{self.held}↔{name}"
        # exact queries only for links whose boxes meet (a held mug's 21 parts against every link cost most)
        if (
            self.held is not None
        ):  # a long held thing (a fork) swung into the forearm stalls the arm
            for link, box in boxes.items():
                if (
                    link < self.robot.arm[-1]
                    and link not in self.grasp_touch
                    and _near_any(box, (held_box,), margin)
                    and p.getClosestPoints(
                        self.bodies[self.held], body, margin, linkIndexB=link, physicsClientId=cid
                    )
                ):
                    return f"{self.held}↔the arm"
        for glink in (
            self.robot.arm[-1],
            self.robot.gripper_links[0],
        ):  # wrist/gripper vs base links
            for blink in self._base_links:
                if (
                    glink in boxes
                    and blink in boxes
                    and _near_any(boxes[glink], (boxes[blink],), 0.0)
                    and p.getClosestPoints(
                        body, body, 0.0, linkIndexA=glink, linkIndexB=blink, physicsClientId=cid
                    )
                ):
                    return "self"
        # the safety guard's box: the tool and a held object stay inside it
        (lx, ly, lz), (hx, hy, hz) = PLANNING_BOX
        tx, ty, tz = self.robot.tcp_pose()[0]
        if not (lx <= tx <= hx and ly <= ty <= hy and lz <= tz <= hz):
            return "the workspace box"
        if (
            self.held is not None
        ):  # (below the table's top beside it, too: a pour may swing the held object there)
            (ax, ay, az), (bx, by, bz) = p.getAABB(self.bodies[self.held], physicsClientId=cid)
            if ax < lx or ay < ly or az < lz or bx > hx or by > hy or bz > hz:
                return "the workspace box"
        return None

    def _bound(self, name: str) -> tuple:
        """A box sure to hold every part of body `name` as it stands: its origin ± the farthest of its
        parts' bounding points, plus 1 cm (a compound body's own getAABB covers its root link only)."""
        x, y, z = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.cid)[0]
        r = self._reach.get(name)
        if r is None:
            r = self._reach[name] = (
                max(math.dist(q, (0.0, 0.0, 0.0)) for q in self._points[name]) + 0.01
            )
        return (x - r, y - r, z - r), (x + r, y + r, z + r)

    def within_limits(self, q: tuple[float, ...] | list[float]) -> bool:
        return all(lo <= v <= hi for v, (lo, hi) in zip(q, self.limits, strict=True))

    def grip(self, o: str, q: tuple[float, ...], angle: float = 0.0) -> list[str]:
        """Close the fingers on `o` the way the arm does, with physics running: the arm held at q
        (radians), the fingers from `angle` (rad; 0 = open, more when pre-shaped) closed with CLOSE_FORCE
        till they meet resistance, then squeezed on (`sim.grip.ClosingFingers`; CLOSE_S at most). `o` slides
        onto the middle of the hand and turns between the pads as it would for real (a fork lying flat
        tips as the fingertips swing under it), and the grasp transform is the one the object ends up in.

        Returns the objects the closed fingers hold between them, firmest first (see
        `between_fingers`). When `o` is among them it is held (attached); else the hand is left
        closed on nothing. Another object in the list means the arm might take that one instead."""
        self.set_arm(q)
        self.robot.command_arm(
            q
        )  # the motors hold q too (a stale target would jerk the hand every step)
        self.robot.reset_fingers(angle)
        self.robot.command_fingers(FINGER_CLOSED, force=CLOSE_FORCE)
        # Every body near can take part in a grip (as in execution, skills/sim_backend.py): asleep where
        # it rests, it wakes when touched.
        with self.physics_near(o):
            ClosingFingers(self.robot, CLOSE_S).run(
                lambda: (self.robot.reset_arm(q), p.stepSimulation(physicsClientId=self.cid))
            )
        held = self.between_fingers()
        if o in held:
            self.attach(o, angle=self.robot.finger_angle())
        return held

    def between_fingers(self) -> list[str]:
        """Names of the objects touching both fingers now, the firmest grip first (by the summed
        normal force of their contacts with the fingers, newtons): the one a closing gripper holds."""
        left, right = self._fingers
        force = {}
        for name, body in self.bodies.items():
            contacts = p.getContactPoints(self.robot.body, body, physicsClientId=self.cid)
            links = {c[3] for c in contacts}
            if links & left and links & right:
                force[name] = sum(c[9] for c in contacts if c[3] in left | right)
        return sorted(force, key=force.get, reverse=True)

    def finger_contacts(self) -> list[str]:
        """Names of the movable objects (not the table or anything else fixed) touching either finger
        now: after a grip, anything besides the gripped object is caught between a finger and it and
        is dragged along (an orange on a mug's rim took the mug up with it)."""
        left, right = self._fingers
        out = []
        for name, body in self.bodies.items():
            if p.getDynamicsInfo(body, -1, physicsClientId=self.cid)[0] == 0.0:
                continue
            if any(
                c[3] in left | right
                for c in p.getContactPoints(self.robot.body, body, physicsClientId=self.cid)
            ):
                out.append(name)
        return out

    def release(
        self, q_place: tuple[float, ...], q_back: tuple[float, ...], open_to: float = 0.0
    ) -> None:
        """Let go of the held object the way the arm does, with physics running: the fingers open
        from the grip angle over OPEN_S with the arm still at q_place, then the hand backs out along
        the straight joint segment to q_back over RETREAT_S. Fingers that catch a mug's handle or
        rim push or drag it here as they would for real (an instant release followed by a teleported
        hand can predict a stood-up mug 8–10 cm from where it comes to rest). Joint values in radians;
        `open_to`: the finger angle the fingers open to (0: fully)."""
        self.set_arm(q_place)
        self.robot.command_arm(
            q_place
        )  # the motors hold the arm too (a stale target would jerk the hand)
        body = self.bodies[self.held]
        letting_go = (self.held, *self.carried)  # the released object and what it carries
        self.held, self.grasp, self.carried = None, None, {}
        self.robot.reset_fingers(self.grip_angle)
        self.robot.command_fingers(open_to)
        # As on the arm, the fingers touch the object again only once they have opened off it: reset
        # to the grip angle they sit a little inside it, and pushed it 2-3 cm as they opened (a mug
        # planned 2.7 cm from where the arm then set it down).
        # (and not while one still sits inside its wall: stuck there, it lifted a mug as the hand left)
        self._fingers_touch(body, False)
        with self.physics_near(*letting_go):
            self._let_go(body, q_place, q_back)

    def _let_go(self, body: int, q_place, q_back) -> None:
        # Every body near can take part in a release too (asleep until touched): fingers opening against a
        # container's wall are a pinch, and its outcome decides whether the hand lifts the container.
        for _ in range(int(OPEN_S / TIME_STEP)):
            self.robot.reset_arm(q_place)
            p.stepSimulation(physicsClientId=self.cid)
        apart = not self.robot.gripper_inside(body)
        if apart:
            self._fingers_touch(body, True)
        n = max(1, int(RETREAT_S / TIME_STEP))
        for i in range(1, n + 1):
            q = tuple(a + (b - a) * i / n for a, b in zip(q_place, q_back, strict=True))
            self.robot.reset_arm(q)
            self.robot.command_arm(q)
            p.stepSimulation(physicsClientId=self.cid)
            if not apart and not self.robot.gripper_inside(body):
                apart = True
                self._fingers_touch(body, True)
        if not apart:
            self._fingers_touch(body, True)

    def _fingers_touch(self, body: int, enable: bool) -> None:
        for link in self.robot.gripper_links:
            for part in range(
                -1, p.getNumJoints(body, physicsClientId=self.cid)
            ):  # the object's base and parts
                p.setCollisionFilterPair(
                    self.robot.body, body, link, part, int(enable), physicsClientId=self.cid
                )

    def settle(self, seconds: float = 0.6) -> None:
        """Let released objects come to rest (the arm is held still by its motors; a held object and what
        it carries stay in the hand)."""
        self.robot.command_arm(self.robot.arm_q())
        self.robot.command_fingers(self.robot.finger_joints())
        q = self.robot.arm_q()
        with self.physics_near():
            for _ in range(int(seconds / TIME_STEP)):
                p.stepSimulation(physicsClientId=self.cid)
                if self.held is not None:
                    self.set_arm(q)

    def _uninvolved(self, names: tuple[str, ...]) -> tuple[list[str], list[str]]:
        """Movable bodies at rest not involved in what happens next to the hand's links, the held
        object and its contents, `names` and every body moving faster than MOVING (m/s): (those whose
        boxes lie farther than NEAR_M metres from all of these, those nearer whose boxes touch none)."""
        hand = self.robot.gripper_links
        active = [p.getAABB(self.robot.body, link, physicsClientId=self.cid) for link in hand]
        keep = {n for n in (self.held, *self.carried, *names) if n is not None}
        keep |= {n for n in self.bodies if self.object_velocity(n) > MOVING}
        active += [self._bound(n) for n in keep]
        far, near = [], []
        for name in self.bodies:
            if name in keep or self.objects[name].fixed:
                continue
            box = self._bound(name)
            if not _near_any(box, active, NEAR_M):
                far.append(name)
            elif not _near_any(box, active, 0.0):
                near.append(name)
        return far, near

    def _links(self, name: str) -> list[tuple[int, int]]:
        """(body, link) of every part of `name` (base -1 and each joint's link: a mug's handle, a can's
        sides are links with their own activation state)."""
        body = self.bodies[name]
        return [(body, link) for link in range(-1, p.getNumJoints(body, physicsClientId=self.cid))]

    @contextlib.contextmanager
    def physics_near(self, *names: str) -> Iterator[None]:
        """Within this block physics runs only the bodies involved in what happens: the hand, the held
        object and its contents, `names`, and every body moving faster than MOVING (m/s).

        - Movable bodies at rest farther than NEAR_M (m) from all of those are parked off the table,
          asleep, and put back exactly (pose, zero velocity) after the block.
        - Those at rest nearer, whose boxes do not touch any of those, sleep where they are: Bullet
          neither integrates them nor tests their contacts, and anything that runs into them (or into
          what they rest on) wakes them, so they take part when struck.

        A physics step then costs about what it costs on a table of only the bodies involved, however
        crowded the table. Fixed bodies always take part. The solver no longer sees the parked and
        sleeping bodies' contacts, so a chaotic outcome (a pinch) may come out a few millimetres
        otherwise than with every body awake."""
        cid = self.cid
        far, near = self._uninvolved(names)
        parked = {
            name: p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=cid)
            for name in far
        }
        for i, (name, (_, quat)) in enumerate(parked.items()):
            spot = (PARK[0] + i, PARK[1], PARK[2])
            p.resetBasePositionAndOrientation(self.bodies[name], spot, quat, physicsClientId=cid)
        asleep = [part for name in (*far, *near) for part in self._links(name)]
        for body, link in asleep:
            for state in (p.ACTIVATION_STATE_ENABLE_SLEEPING, p.ACTIVATION_STATE_SLEEP):
                p.changeDynamics(body, link, activationState=state, physicsClientId=cid)
        try:
            yield
        finally:
            for body, link in asleep:
                for state in (p.ACTIVATION_STATE_DISABLE_SLEEPING, p.ACTIVATION_STATE_WAKE_UP):
                    p.changeDynamics(body, link, activationState=state, physicsClientId=cid)
            for name, (pos, quat) in parked.items():
                self._put(name, pos, quat)

    def object_velocity(self, name: str) -> float:
        lin, _ = p.getBaseVelocity(self.bodies[name], physicsClientId=self.cid)
        return sum(v * v for v in lin) ** 0.5

    def near_robot(self, gap: float, skip: tuple[str, ...] = ()) -> tuple[str, ...]:
        """Names of the objects (not the table, not `skip`) within `gap` metres of the arm or hand
        now, in the model's order: what the hand leans on or is leaned on by."""
        return tuple(
            name
            for name, body in self.bodies.items()
            if name != "table"
            and name not in skip
            and p.getClosestPoints(self.robot.body, body, gap, physicsClientId=self.cid)
        )

    def touching(self, a: str, b: str) -> bool:
        return bool(p.getContactPoints(self.bodies[a], self.bodies[b], physicsClientId=self.cid))

    def close(self) -> None:
        try:
            p.disconnect(physicsClientId=self.cid)
        except p.error:
            pass
