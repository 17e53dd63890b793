"""The simulated tabletop: a pybullet client with a table, the UR5e + Robotiq arm and named objects.

This is the *real* world of a simulated run (ground truth). The planner never reads it directly:
perception builds a `WorldState` from it. Detectors read it to judge success.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pybullet as p

from owl_bt.state import ObjectState, Pose, RobotState, WorldState
from sim import catalog
from sim.bullet import body_pose, connect
from sim.objects import ObjectSpec, spawn
from sim.robot import RobotModel

TIME_STEP = 1.0 / 240.0  # seconds per physics step
REST_SPEED, REST_SPIN = (
    0.002,
    0.05,
)  # m/s and rad/s under which an object lies still (`asleep_at_rest`)
AWAKE_NEAR = 0.03  # m: what is this near the arm stays awake (`asleep_at_rest`)


@dataclass
class Body:
    spec: ObjectSpec
    id: int


class SimWorld:
    """A physics-simulated tabletop. Objects are addressed by name; poses in the world frame."""

    def __init__(self, gui: bool = False, robot: str = "ur5e") -> None:
        self.cid = connect(gui)
        self.gui = gui
        p.setTimeStep(TIME_STEP, physicsClientId=self.cid)
        self.bodies: dict[str, Body] = {}
        tab = catalog.table()
        cx, cy = catalog.TABLE_CENTRE
        self.table = spawn(self.cid, tab, Pose(cx, cy, catalog.TABLE_TOP_Z - tab.size()[2] / 2))
        self.robot = RobotModel.load(self.cid, robot=robot)
        self.steps = 0
        self._watchers: list[tuple[int, Callable[[], None]]] = []  # (every n steps, call)
        self._poses: dict[int, tuple] = {}  # each object's pose at the last `asleep_at_rest`

    # -- building -------------------------------------------------------------------------
    def add(self, spec: ObjectSpec, pose: Pose) -> int:
        """Spawn `spec` at `pose` (its box centre, world frame); raises ValueError on a duplicate name."""
        if spec.name in self.bodies or spec.name == "table":
            raise ValueError(f"the scene already has an object called {spec.name!r}")
        body = spawn(self.cid, spec, pose)
        self.bodies[spec.name] = Body(spec, body)
        return body

    def settle(self, seconds: float = 0.5) -> None:
        """Step physics for `seconds` with the arm held where it is."""
        self.robot.command_arm(self.robot.arm_q())
        self.robot.command_fingers(self.robot.finger_joints())
        self.step(int(seconds / TIME_STEP))

    def at_rest(self) -> bool:
        """True when every object is slower than REST_SPEED (m/s) and REST_SPIN (rad/s) now."""
        return all(self._slow(b.id) for b in self.bodies.values())

    def _slow(self, body: int) -> bool:
        lin, ang = p.getBaseVelocity(body, physicsClientId=self.cid)
        return math.hypot(*lin) < REST_SPEED and math.hypot(*ang) < REST_SPIN

    def step(self, n: int = 1) -> None:
        """Step physics `n` times (TIME_STEP seconds each), calling the step watchers when due."""
        if not self._watchers:
            for _ in range(n):
                p.stepSimulation(physicsClientId=self.cid)
            self.steps += n
            return
        for _ in range(n):
            p.stepSimulation(physicsClientId=self.cid)
            self.steps += 1
            for every, call in self._watchers:
                if self.steps % every == 0:
                    call()

    def add_step_watcher(self, every: int, call: Callable[[], None]) -> None:
        """Call `call()` after every `every`-th physics step (counted by `steps`), until removed."""
        self._watchers.append((every, call))

    def remove_step_watcher(self, call: Callable[[], None]) -> None:
        """Stop calling `call` (added by `add_step_watcher`); nothing happens if it is not there."""
        self._watchers = [(e, c) for e, c in self._watchers if c != call]

    @contextmanager
    def asleep_at_rest(self) -> Iterator[None]:
        """Within it, every object that lies still sleeps: physics skips it until something moving
        touches it, which wakes it (Bullet's islands). All are woken on leaving. Objects resting on the
        table made most of a step's cost while the arm moved (SoupPour: 0.60 ms a step, 0.19 with them
        asleep). Only for stretches where nothing is moved but by physics (no pose resets).

        Lying still: slower than REST_SPEED and REST_SPIN now, at the same pose (within 0.1 mm) as at the
        last entry (so through a stretch of physics: an object just let go is slow but may not be
        supported), and neither within AWAKE_NEAR of the arm nor touching, through other objects, what is."""
        cid = self.cid
        poses = {
            b.id: p.getBasePositionAndOrientation(b.id, physicsClientId=cid)
            for b in self.bodies.values()
        }
        before, self._poses = self._poses, poses
        frontier = [
            b.id
            for b in self.bodies.values()
            if p.getDynamicsInfo(b.id, -1, physicsClientId=cid)[0] > 0.0
            and p.getClosestPoints(self.robot.body, b.id, AWAKE_NEAR, physicsClientId=cid)
        ]
        moving = {self.robot.body, *frontier}
        while frontier:  # and what touches those (not through a fixed body: the table, a mat)
            for c in p.getContactPoints(bodyA=frontier.pop(), physicsClientId=cid):
                if c[2] not in moving and p.getDynamicsInfo(c[2], -1, physicsClientId=cid)[0] > 0.0:
                    moving.add(c[2])
                    frontier.append(c[2])
        asleep = []
        for body in (b.id for b in self.bodies.values()):
            if body in moving or p.getDynamicsInfo(body, -1, physicsClientId=cid)[0] == 0.0:
                continue
            was = before.get(body)
            if (
                was is None
                or math.dist(was[0], poses[body][0]) > 1e-4
                or math.dist(was[1], poses[body][1]) > 1e-4
            ):
                continue
            if self._slow(body):
                for state in (
                    p.ACTIVATION_STATE_ENABLE_SLEEPING,
                    p.ACTIVATION_STATE_SLEEP,
                ):  # (not enabled: woken at once)
                    p.changeDynamics(body, -1, activationState=state, physicsClientId=cid)
                asleep.append(body)
        try:
            yield
        finally:
            for body in asleep:
                for state in (p.ACTIVATION_STATE_DISABLE_SLEEPING, p.ACTIVATION_STATE_WAKE_UP):
                    p.changeDynamics(body, -1, activationState=state, physicsClientId=cid)

    # -- reading (ground truth) --------------------------------------------------------------
    def body_id(self, name: str) -> int:
        return self.bodies[name].id

    def pose(self, name: str) -> Pose:
        return body_pose(self.cid, self.bodies[name].id)

    def object_states(self) -> dict[str, ObjectState]:
        """Ground-truth state of every named object, including the table."""
        out = {name: b.spec.to_state(self.pose(name)) for name, b in self.bodies.items()}
        tab = catalog.table()
        out["table"] = tab.to_state(body_pose(self.cid, self.table))
        return out

    def robot_state(self, held: str | None = None) -> RobotState:
        return RobotState(
            joints=self.robot.arm_q(),
            gripper_width=self.robot.opening(),
            held=held,
            arm=self.robot.spec.name,
        )

    def ground_truth(self, held: str | None = None) -> WorldState:
        """The simulator's true state (for detectors and the debugging perception source only)."""
        return WorldState(
            objects=self.object_states(), robot=self.robot_state(held), source="sim-state"
        )

    def contacts(self, a: str, b: str) -> bool:
        """True when bodies a and b (names; 'table' allowed) touch."""
        ida = self.table if a == "table" else self.body_id(a)
        idb = self.table if b == "table" else self.body_id(b)
        return bool(p.getContactPoints(ida, idb, physicsClientId=self.cid))

    def close(self) -> None:
        try:
            p.disconnect(physicsClientId=self.cid)
        except p.error:
            pass
