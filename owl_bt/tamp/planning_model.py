"""The planning model: a separate pybullet client built from a perceived `WorldState` (DESIGN §3).

Controllers are "executed in the planning model" here: the arm is set kinematically, a held object
follows the TCP through its grasp transform, and physics runs only to let a released object settle.
Nothing here reads the simulator that the robot acts in.
"""

from __future__ import annotations

import math

import pybullet as p

from owl_bt.state import ObjectState, Pose, RobotState, WorldState
from sim.bullet import body_pose, connect, to_bullet
from sim.catalog import spec_for_state
from sim.objects import spawn
from sim.robot import DEFAULT_ROBOT, RobotModel
from sim.world import TIME_STEP

SPILL_TILT = 0.6  # radians a container carrying something may tilt on the way before it spills
Transform = tuple[tuple[float, float, float], tuple[float, float, float, float]]


CEILING = 0.95  # m: the safety guard refuses the tool or a held object above 1.0 m; plan 5 cm under it


class PlanningModel:
    """A kinematic copy of the scene for sampling and checking; one pybullet DIRECT client."""

    def __init__(self, world: WorldState) -> None:
        self.cid = connect(gui=False)
        p.setTimeStep(TIME_STEP, physicsClientId=self.cid)
        self.objects: dict[str, ObjectState] = dict(world.objects)
        self.bodies: dict[str, int] = {}
        self._cavities: dict[str, dict] = {}
        for name, obj in world.objects.items():
            spec = spec_for_state(obj)
            self.bodies[name] = spawn(self.cid, spec, obj.pose)
            if "cavity" in spec.extra:  # the inside of a container, in the body frame (its box centre)
                lo, hi = spec.bounds()
                cav = spec.extra["cavity"]
                mid = [(a + b) / 2 for a, b in zip(lo, hi, strict=True)]
                self._cavities[name] = {"centre": (cav["centre"][0] - mid[0], cav["centre"][1] - mid[1]),
                                        "radius": cav["radius"], "bottom": cav["bottom"] - mid[2], "top": cav["top"] - mid[2]}
        self.robot = RobotModel.load(self.cid, robot=world.robot.arm if world.robot else DEFAULT_ROBOT)
        q = world.robot.joints if world.robot else self.robot.home
        self.robot.reset_arm(q)
        self.held: str | None = None
        self.grasp: Transform | None = None  # object pose in the TCP frame
        self.carried: dict[str, Transform] = {}  # contents of the held object, pose in its frame
        self.upright: tuple | None = None  # the held object's orientation when it was picked up
        # (name, checker) pairs the step being sampled must satisfy: set by the refiner, so that a
        # controller can judge a result before it plans dear motions for it
        self.step_checks: list = []
        if world.robot and world.robot.held in self.bodies:  # already in the hand: keep the observed grasp
            self.attach(world.robot.held)
        self.limits = self.robot.limits
        self._arm_links = tuple(range(0, self.robot.tcp + 1))
        self._base_links = self.robot.base_links  # base, shoulder, upper arm

    def cavity(self, name: str) -> tuple[tuple[float, float, float], float, float] | None:
        """A container's opening as it stands now: (floor centre xyz, world frame, m; inner radius, m;
        rim height above the floor, m), or None when `name` is not a container or is not upright."""
        cav = self._cavities.get(name)
        if cav is None:
            return None
        pos, quat = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.cid)
        if p.getMatrixFromQuaternion(quat)[8] < 0.95:  # tipped over: no opening facing up
            return None
        floor = p.multiplyTransforms(pos, quat, (*cav["centre"], cav["bottom"]), (0, 0, 0, 1))[0]
        return floor, cav["radius"], cav["top"] - cav["bottom"]

    # -- state ---------------------------------------------------------------------------------
    def state(self) -> WorldState:
        """The model's current WorldState (object poses read back from the client)."""
        objs = {n: o.moved(body_pose(self.cid, self.bodies[n])) for n, o in self.objects.items()}
        robot = RobotState(joints=self.robot.arm_q(), held=self.held, arm=self.robot.spec.name)
        return WorldState(objects=objs, robot=robot, source="planning-model")

    def snapshot(self) -> tuple:
        return (p.saveState(physicsClientId=self.cid), self.held, self.grasp, dict(self.carried), self.upright)

    def restore(self, snap: tuple) -> None:
        sid, self.held, self.grasp, carried, self.upright = snap
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

    def attach(self, name: str) -> None:
        """Hold `name` with its current pose relative to the TCP (kinematic grasp); what lies inside
        it (its contents, e.g. a ball in a mug) is carried along rigidly until `release_contents`."""
        tpos, tquat = self.robot.tcp_pose()
        opos, oquat = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.cid)
        inv = p.invertTransform(tpos, tquat)
        self.grasp = p.multiplyTransforms(inv[0], inv[1], opos, oquat)
        oinv = p.invertTransform(opos, oquat)
        self.carried = {}
        for other in self.contents(name):
            cpos, cquat = p.getBasePositionAndOrientation(self.bodies[other], physicsClientId=self.cid)
            self.carried[other] = p.multiplyTransforms(oinv[0], oinv[1], cpos, cquat)
        self.held = name
        self.upright = oquat  # how it stood when picked up: carrying contents, keep it so
        self.robot.reset_fingers(0.5)

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

    def pour_motion(self, poses: list[tuple], seconds: float, dwell: float, arm: list | None = None) -> None:
        """Move the held object through `poses` ((position, quaternion) of its body, world frame)
        over `seconds`, then hold the last for `dwell` s, stepping physics all along so that its
        released contents fall out (off the container's walls and the hand, as they would). `arm`:
        joint values (radians) matching each pose, so that the hand turns with the object (its palm
        and fingers over a mug's mouth are in the way of what falls out)."""
        body = self.bodies[self.held]
        self._put(self.held, *poses[0])
        # Driven by a stiff fixed constraint to the world, as a hand would: the contents meet a
        # wall that moves smoothly, with a velocity, rather than one that jumps every step.
        cons = p.createConstraint(body, -1, -1, -1, p.JOINT_FIXED, (0, 0, 0), (0, 0, 0), poses[0][0],
                                  childFrameOrientation=poses[0][1], physicsClientId=self.cid)
        p.changeConstraint(cons, maxForce=5000.0, physicsClientId=self.cid)
        per = max(1, int(seconds / TIME_STEP / max(1, len(poses))))
        try:
            for k, (pos, quat) in enumerate(poses):
                if arm is not None:
                    self.robot.reset_arm(arm[k])
                p.changeConstraint(cons, pos, quat, maxForce=5000.0, physicsClientId=self.cid)
                for _ in range(per):
                    p.stepSimulation(physicsClientId=self.cid)
            for _ in range(int(dwell / TIME_STEP)):
                p.stepSimulation(physicsClientId=self.cid)
        finally:
            p.removeConstraint(cons, physicsClientId=self.cid)
            self._put(self.held, *poses[-1])

    def contents(self, name: str) -> list[str]:
        """Movable objects whose centre lies within `name`'s box and above its bottom (inside it)."""
        state = self.state()
        lo, hi = state.get(name).aabb()
        out = []
        for other, o in state.objects.items():
            if other == name or o.fixed:
                continue
            x, y, z = o.pose.position
            if lo[0] < x < hi[0] and lo[1] < y < hi[1] and lo[2] < z < hi[2]:
                out.append(other)
        return out

    def tcp_for_object(self, obj_pose: Pose, grasp: Transform) -> Transform:
        """TCP (position, quaternion) that puts the held object at obj_pose given grasp (obj in TCP)."""
        inv = p.invertTransform(*grasp)
        pos, quat = to_bullet(obj_pose)
        return p.multiplyTransforms(pos, quat, inv[0], inv[1])

    # -- collisions ----------------------------------------------------------------------------
    def in_collision(self, q: tuple[float, ...] | list[float], ignore: tuple[str, ...] = (), margin: float = 0.0) -> str | None:
        """Name of what the arm (or the held object) would touch at q, else None.

        Checks the arm and gripper against every object and the table (except `ignore`), the held
        object against everything but the gripper, and the gripper against the arm's base links.
        """
        self.set_arm(q)
        cid, body = self.cid, self.robot.body
        for name, bid in self.bodies.items():
            if name in ignore or name == self.held or name in self.carried:
                continue
            if p.getClosestPoints(body, bid, margin, physicsClientId=cid):
                return name
            if self.held is not None and p.getClosestPoints(self.bodies[self.held], bid, margin, physicsClientId=cid):
                return f"{self.held}↔{name}"
        for glink in (self.robot.arm[-1], self.robot.gripper_links[0]):  # wrist/gripper vs base links
            for blink in self._base_links:
                if p.getClosestPoints(body, body, 0.0, linkIndexA=glink, linkIndexB=blink, physicsClientId=cid):
                    return "self"
        # the safety guard's ceiling (skills.guard.WORKSPACE_BOX): the tool and a held object stay under it
        if self.robot.tcp_pose()[0][2] > CEILING or (
                self.held is not None and p.getAABB(self.bodies[self.held], physicsClientId=cid)[1][2] > CEILING):
            return "the workspace ceiling"
        return None

    def within_limits(self, q: tuple[float, ...] | list[float]) -> bool:
        return all(lo <= v <= hi for v, (lo, hi) in zip(q, self.limits, strict=True))

    def settle(self, seconds: float = 0.6) -> None:
        """Let released objects come to rest (the arm is held still by its motors; a held object
        and what it carries stay in the hand)."""
        self.robot.command_arm(self.robot.arm_q())
        self.robot.command_fingers(self.robot.finger_angle())
        q = self.robot.arm_q()
        for _ in range(int(seconds / TIME_STEP)):
            p.stepSimulation(physicsClientId=self.cid)
            if self.held is not None:
                self.set_arm(q)

    def object_velocity(self, name: str) -> float:
        lin, _ = p.getBaseVelocity(self.bodies[name], physicsClientId=self.cid)
        return sum(v * v for v in lin) ** 0.5

    def touching(self, a: str, b: str) -> bool:
        return bool(p.getContactPoints(self.bodies[a], self.bodies[b], physicsClientId=self.cid))

    def close(self) -> None:
        try:
            p.disconnect(physicsClientId=self.cid)
        except p.error:
            pass
