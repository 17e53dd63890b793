"""The simulated tabletop: a pybullet client with a table, the UR5e + Robotiq arm and named objects.

This is the *real* world of a simulated run (ground truth). The planner never reads it directly:
perception builds a `WorldState` from it (DESIGN §3). Detectors read it to judge success.
"""

from __future__ import annotations

from dataclasses import dataclass

import pybullet as p

from owl_bt.state import ObjectState, Pose, RobotState, WorldState
from sim import catalog
from sim.bullet import body_pose, connect
from sim.objects import ObjectSpec, spawn
from sim.robot import RobotModel

TIME_STEP = 1.0 / 240.0  # seconds per physics step


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

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            p.stepSimulation(physicsClientId=self.cid)
        self.steps += n

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
        return RobotState(joints=self.robot.arm_q(), gripper_width=self.robot.opening(), held=held, arm=self.robot.spec.name)

    def ground_truth(self, held: str | None = None) -> WorldState:
        """The simulator's true state (for detectors and the debugging perception source only)."""
        return WorldState(objects=self.object_states(), robot=self.robot_state(held), source="sim-state")

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
