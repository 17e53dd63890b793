"""Where the fingers go as they open: a release judged in a client of its own (DESIGN §3).

A hand let go low and tilted (a can gripped low on its side, the hand turned ~80°) opens its
fingers through the table: on the arm a finger presses into it (690 N in the simulator) and the
retreat is then blocked. The check needs the finger geometry at several opening angles, but setting
fingers or joints in the planning model perturbs its physics (later settles then differ, even when
nothing is refused), so it runs in a second pybullet DIRECT client that holds only the robot and
copies of the fixed bodies (table, flat regions). The planning model is only read.

`HandSweep.cuts(q, angle, open_to, keep_clear)` → the name of the fixed body a finger would cut into
(or of the container let go in that a finger would come within KEEP_CLEAR of), or None. The released
thing's container is copied in too, at its pose in the planning model: a finger a millimetre from a
mug's perceived wall sat in its real one (4 mm thick) as it let go of a strawberry, and the mug came
away with the hand.
"""

from __future__ import annotations

from collections.abc import Mapping

import pybullet as p

from owl_bt.state import ObjectState
from sim.bullet import connect, to_bullet
from sim.catalog import spec_for_state
from sim.objects import spawn
from sim.robot import RobotModel

OPEN_STEPS = 5  # finger angles tried between the grip and fully open (both included)
CUT_DEPTH = 0.003  # m a finger may press into something fixed as it opens (contact, not a jam)
KEEP_CLEAR = 0.005  # m a finger keeps from a container it lets go in: the camera places its walls this well
_CACHE_SIZE = 2  # sweeps kept alive (pybullet clients); one per robot and fixed scene is enough


class HandSweep:
    """The robot (arm + gripper) and the fixed bodies of one scene in a pybullet DIRECT client."""

    def __init__(self, robot: str, fixed: dict[str, ObjectState]) -> None:
        self.cid = connect(gui=False)
        self.robot = RobotModel.load(self.cid, robot=robot)
        self.fixed = {name: spawn(self.cid, spec_for_state(obj), obj.pose) for name, obj in fixed.items()}
        self._movable: dict[tuple, int] = {}
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

    def cuts(self, q: tuple[float, ...], angle: float | tuple[float, ...], open_to: float = 0.0,
             keep_clear: Mapping[str, ObjectState] | None = None) -> str | None:
        """As the fingers open from `angle` (radians: the driver angle, or every finger joint's, as
        `RobotModel.finger_joints` gives them) to `open_to` (the driver angle; 0: fully open) with the
        arm at q (radians): the name of a fixed body a finger would sit more than CUT_DEPTH metres
        inside, or of a `keep_clear` object (name → state, e.g. the container let go in) a finger would
        come nearer than KEEP_CLEAR to; else None."""
        self.robot.reset_arm(q)
        grip = angle if isinstance(angle, tuple) else tuple(angle * m for m in self.robot.fingers.values())
        end = tuple(open_to * m for m in self.robot.fingers.values())
        near = {name: self._body(obj) for name, obj in (keep_clear or {}).items()}
        for i in range(OPEN_STEPS):
            t = 1.0 - i / (OPEN_STEPS - 1)
            self.robot.reset_fingers(tuple(e + (g - e) * t for g, e in zip(grip, end, strict=True)))
            for bodies, limit in ((self.fixed, -CUT_DEPTH), (near, KEEP_CLEAR)):
                for name, body in bodies.items():
                    for link in self.links:
                        pts = p.getClosestPoints(self.robot.body, body, max(limit, 0.0), linkIndexA=link,
                                                 physicsClientId=self.cid)
                        if any(c[8] < limit for c in pts):
                            return name
        return None

    def _body(self, obj: ObjectState) -> int:
        """A body for the movable `obj` in this client, spawned once per name and shape, put at its pose."""
        key = (obj.name, obj.kind, obj.shape, tuple(round(v, 4) for v in obj.size))
        body = self._movable.get(key)
        if body is None:
            body = self._movable[key] = spawn(self.cid, spec_for_state(obj), obj.pose)
        pos, quat = to_bullet(obj.pose)
        p.resetBasePositionAndOrientation(body, pos, quat, physicsClientId=self.cid)
        return body

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
