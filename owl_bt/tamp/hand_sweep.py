"""Where the fingers go as they open: a release judged in a client of its own.

A hand let go low and tilted (a can gripped low on its side, the hand turned ~80°) opens its
fingers through the table: on the arm a finger presses into it (690 N in the simulator) and the
retreat is then blocked. The check needs the finger geometry at several opening angles, but setting
fingers or joints in the planning model perturbs its physics (later settles then differ, even when
nothing is refused), so it runs in a second pybullet DIRECT client that holds only the robot and
copies of the fixed bodies (table, flat regions). The planning model is only read.

`HandSweep.cuts(q, angle, open_to)` → the name of the fixed body a finger would cut into, or None.
`HandSweep.room(q, angle, open_to, container)` → how wide the fingers can open in a container before
they press more than WALL_PRESS into its walls (the container is copied in at its pose in the planning model):
fingers opened fully in a mug 6.4 cm across inside sat in its wall (4 mm thick) as they let go of a
strawberry, and the mug came away with the hand.
"""

from __future__ import annotations

import pybullet as p

from owl_bt.state import ObjectState
from sim.bullet import connect, to_bullet
from sim.catalog import spec_for_state
from sim.objects import spawn
from sim.robot import PAD_ORIGIN_OFFSET, RobotModel

OPEN_STEPS = 6  # finger angles tried between the grip and the opening (both included)
CUT_DEPTH = 0.003  # m a finger may press into something fixed as it opens (contact, not a jam)
WALL_PRESS = (
    0.001  # m a finger opening in a container it lets go in may press into its perceived walls
)
_CACHE_SIZE = 2  # sweeps kept alive (pybullet clients); one per robot and fixed scene is enough


class HandSweep:
    """The robot (arm + gripper) and the fixed bodies of one scene in a pybullet DIRECT client."""

    def __init__(self, robot: str, fixed: dict[str, ObjectState]) -> None:
        self.cid = connect(gui=False)
        self.robot = RobotModel.load(self.cid, robot=robot, visual=False)
        self.fixed = {
            name: spawn(self.cid, spec_for_state(obj), obj.pose) for name, obj in fixed.items()
        }
        self._movable: dict[tuple, int] = {}
        movers = {j for j in self.robot.fingers}
        # the links the finger joints move (each finger joint's child link and what hangs from it)
        self.links = tuple(
            sorted(j for j in self.robot.gripper_links if j in movers or self._under(j, movers))
        )

    def _under(self, link: int, joints: set[int]) -> bool:
        parent = p.getJointInfo(self.robot.body, link, physicsClientId=self.cid)[16]
        while parent >= 0:
            if parent in joints:
                return True
            parent = p.getJointInfo(self.robot.body, parent, physicsClientId=self.cid)[16]
        return False

    def cuts(
        self, q: tuple[float, ...], angle: float | tuple[float, ...], open_to: float = 0.0
    ) -> str | None:
        """As the fingers open from `angle` (radians: the driver angle, or every finger joint's, as
        `RobotModel.finger_joints` gives them) to `open_to` (the driver angle; 0: fully open) with the arm
        at q (radians): the name of a fixed body a finger would sit more than CUT_DEPTH metres inside at
        some point, else None."""
        for _ in self._opening(q, angle, open_to):
            for name, body in self.fixed.items():
                if self._nearer(body, -CUT_DEPTH):
                    return name
        return None

    def width(self, angle: float | tuple[float, ...]) -> float:
        """The distance between the pads' surfaces (metres) at finger angle(s) `angle`: a measured grip
        leaves the mimic ratios (the driver angle of a golf ball's grip reads 1.6 cm; the pads are 4.3 cm apart)."""
        self.robot.reset_fingers(angle)
        return self.robot.opening() - PAD_ORIGIN_OFFSET

    def room(
        self,
        q: tuple[float, ...],
        angle: float | tuple[float, ...],
        open_to: float,
        obj: ObjectState,
        press: float = WALL_PRESS,
    ) -> float:
        """How wide (metres between the pads) the fingers can open from `angle` towards the driver angle
        `open_to` (radians) with the arm at q before a finger would press more than `press` metres into
        `obj` (the container let go in): the width at the last of OPEN_STEPS steps that does not (the
        grip's own when the first step already does)."""
        body = self._body(obj)
        reached = self.width(angle)
        for _ in self._opening(q, angle, open_to):
            if self._nearer(body, -press):
                break
            reached = self.robot.opening() - PAD_ORIGIN_OFFSET
        return reached

    def _driver(self, angle: float | tuple[float, ...]) -> float:
        return angle[0] if isinstance(angle, tuple) else angle

    def _opening(self, q: tuple[float, ...], angle: float | tuple[float, ...], open_to: float):
        """Set the arm at q and the fingers at OPEN_STEPS angles from `angle` to `open_to`; yields the
        driver angle of each (the grip's first)."""
        self.robot.reset_arm(q)
        grip = (
            angle
            if isinstance(angle, tuple)
            else tuple(angle * m for m in self.robot.fingers.values())
        )
        end = tuple(open_to * m for m in self.robot.fingers.values())
        for i in range(OPEN_STEPS):
            t = 1.0 - i / (OPEN_STEPS - 1)
            self.robot.reset_fingers(tuple(e + (g - e) * t for g, e in zip(grip, end, strict=True)))
            yield open_to + (self._driver(angle) - open_to) * t

    def _nearer(self, body: int, limit: float) -> bool:
        """Is a finger link nearer than `limit` metres to `body` (negative: inside it by more than -limit)?"""
        for link in self.links:
            pts = p.getClosestPoints(
                self.robot.body, body, max(limit, 0.0), linkIndexA=link, physicsClientId=self.cid
            )
            if any(c[8] < limit for c in pts):
                return True
        return False

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
    key = (
        robot,
        tuple(
            sorted(
                (
                    n,
                    tuple(round(v, 4) for v in o.pose.position + o.pose.euler),
                    tuple(round(v, 4) for v in o.size),
                )
                for n, o in fixed.items()
            )
        ),
    )
    sweep = _sweeps.pop(key, None) or HandSweep(robot, fixed)
    _sweeps[key] = sweep
    while len(_sweeps) > _CACHE_SIZE:
        _sweeps.pop(next(iter(_sweeps))).close()
    return sweep
