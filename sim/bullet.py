"""Small pybullet conveniences shared by the simulator and the planning model.

Connects clients (DIRECT by default, GUI on request), silences Bullet's C-level chatter while loading
models, and converts between `Pose` (x, y, z, roll, pitch, yaw) and pybullet (position, quaternion).
"""

from __future__ import annotations

import pybullet as p

from owl_bt.state import Pose
from sim.quiet import quiet


def connect(gui: bool = False) -> int:
    """A new pybullet client id, DIRECT unless gui; gravity −9.81 m/s² along z."""
    with quiet():
        cid = p.connect(p.GUI if gui else p.DIRECT)
    if cid < 0:
        raise RuntimeError("pybullet could not connect (GUI needs a display; drop --gui)")
    p.setGravity(0, 0, -9.81, physicsClientId=cid)
    p.setPhysicsEngineParameter(numSolverIterations=50, physicsClientId=cid)
    return cid


def to_bullet(pose: Pose) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    """(position, quaternion xyzw) for a Pose."""
    return pose.position, p.getQuaternionFromEuler(pose.euler)


def from_bullet(pos: tuple[float, ...], quat: tuple[float, ...]) -> Pose:
    """A Pose from pybullet's (position, quaternion xyzw)."""
    return Pose(*pos, *p.getEulerFromQuaternion(quat))


def body_pose(cid: int, body: int) -> Pose:
    pos, quat = p.getBasePositionAndOrientation(body, physicsClientId=cid)
    return from_bullet(pos, quat)
