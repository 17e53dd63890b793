"""Where the fingers go as they open: a release judged in a client of its own (DESIGN §3).

A hand let go low and tilted (a can gripped low on its side, the hand turned ~80°) opens its
fingers through the table: on the arm a finger presses into it (690 N in the simulator) and the
retreat is then blocked. The check needs the finger geometry at several opening angles, but setting
fingers or joints in the planning model perturbs its physics (later settles then differ, even when
nothing is refused), so it runs in a second pybullet DIRECT client that holds only the robot and
copies of the fixed bodies (table, flat regions). The planning model is only read.

`HandSweep.cuts(model, q, angle)` → the name of the fixed body a finger would cut into, or None.
"""

from __future__ import annotations

import pybullet as p

from owl_bt.state import ObjectState
from sim.bullet import connect
from sim.catalog import spec_for_state
from sim.objects import spawn
from sim.robot import RobotModel

OPEN_STEPS = 5  # finger angles tried between the grip and fully open (both included)
CUT_DEPTH = 0.003  # m a finger may press into something fixed as it opens (contact, not a jam)
_CACHE_SIZE = 2  # sweeps kept alive (pybullet clients); one per robot and fixed scene is enough


class HandSweep:
    """The robot (arm + gripper) and the fixed bodies of one scene in a pybullet DIRECT client."""

    def __init__(self, robot: str, fixed: dict[str, ObjectState]) -> None:
        self.cid = connect(gui=False)
        self.robot = RobotModel.load(self.cid, robot=robot)
        self.fixed = {name: spawn(self.cid, spec_for_state(obj), obj.pose) for name, obj in fixed.items()}
        movers = {j for j in self.robot.fingers}
        # the links the finger joints move (each finger joint's child link and what hangs from it)
        self.links = tuple(sorted(j for j in self.robot.gripper_links if j in movers or self._under(j, movers)))

    def _under(self, link: int, joints: set[int]) -> bool:
        parent = p.getJointInfo(self.robot.body, link, physicsClientId=self.cid)[16]
        while parent >= 0:
            if parent in joints:
                return True
            parent = p.getJointInfo(self.robot.body, parent, physicsClientId=self.cid)[16]
        return False

    def cuts(self, q: tuple[float, ...], angle: float | tuple[float, ...], depth: float = CUT_DEPTH) -> str | None:
        """Name of a fixed body a finger would sit more than `depth` metres inside at some point as
        the fingers open from `angle` (radians: the driver angle, or every finger joint's, as
        `RobotModel.finger_joints` gives them) to fully open, with the arm at q (radians); else None."""
        self.robot.reset_arm(q)
        grip = angle if isinstance(angle, tuple) else tuple(angle * m for m in self.robot.fingers.values())
        for i in range(OPEN_STEPS):
            t = 1.0 - i / (OPEN_STEPS - 1)
            self.robot.reset_fingers(tuple(v * t for v in grip))
            for name, body in self.fixed.items():
                for link in self.links:
                    pts = p.getClosestPoints(self.robot.body, body, 0.0, linkIndexA=link, physicsClientId=self.cid)
                    if any(c[8] < -depth for c in pts):
                        return name
        return None

    def close(self) -> None:
        p.disconnect(physicsClientId=self.cid)


_sweeps: dict[tuple, HandSweep] = {}


def hand_sweep(robot: str, objects: dict[str, ObjectState]) -> HandSweep:
    """The HandSweep for `robot` (a sim.robot name) among the fixed ones of `objects`, built once per
    robot and fixed layout (the two most recent are kept; older clients are disconnected)."""
    fixed = {n: o for n, o in objects.items() if o.fixed}
    key = (robot, tuple(sorted((n, tuple(round(v, 4) for v in o.pose.position + o.pose.euler),
                                tuple(round(v, 4) for v in o.size)) for n, o in fixed.items())))
    sweep = _sweeps.pop(key, None) or HandSweep(robot, fixed)
    _sweeps[key] = sweep
    while len(_sweeps) > _CACHE_SIZE:
        _sweeps.pop(next(iter(_sweeps))).close()
    return sweep
