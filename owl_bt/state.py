"""The shared vocabulary: poses, object states, robot state and world state.

Plain dataclasses that every package may import; numpy only. Pose convention everywhere:
(x, y, z, roll, pitch, yaw), metres and radians, world frame; x points away from the robot base,
z up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from owl_bt.errors import UnknownObjectError


@dataclass(frozen=True)
class Pose:
    """An SE(3) pose as (x, y, z, roll, pitch, yaw): metres and radians, world frame."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    roll: float = 0.0
    pitch: float = 0.0
    yaw: float = 0.0

    @classmethod
    def from_seq(cls, values: tuple[float, ...] | list[float]) -> Pose:
        """Build from 3 (position only) or 6 numbers; raises ValueError otherwise."""
        vals = [float(v) for v in values]
        if len(vals) == 3:
            vals += [0.0, 0.0, 0.0]
        if len(vals) != 6 or not all(math.isfinite(v) for v in vals):
            raise ValueError(f"a pose needs 3 or 6 finite numbers, got {values!r}")
        return cls(*vals)

    @property
    def position(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.z)

    @property
    def euler(self) -> tuple[float, float, float]:
        return (self.roll, self.pitch, self.yaw)

    def as_tuple(self) -> tuple[float, float, float, float, float, float]:
        return (self.x, self.y, self.z, self.roll, self.pitch, self.yaw)

    def __getitem__(self, i: int) -> float:
        return self.as_tuple()[i]

    def __len__(self) -> int:
        return 6

    def rounded(self, digits: int = 3) -> tuple[float, ...]:
        return tuple(round(v, digits) for v in self.as_tuple())


@dataclass(frozen=True)
class ObjectState:
    """One named object as the planner sees it.

    size: full extents (dx, dy, dz) in metres of the object's axis-aligned box in its own frame;
    shape: 'box' | 'sphere' | 'cylinder' | 'region' (a flat pad) | 'compound';
    rgba: colour in [0, 1]; mass in kg; fixed: never moved by the robot (table, regions);
    kind: the object-model kind perception recognised (a `sim.catalog` kind, '' when unknown), from
    which the planning model rebuilds its geometry (hollow containers, handles) instead of a box.
    """

    name: str
    category: str
    pose: Pose
    size: tuple[float, float, float]
    shape: str = "box"
    rgba: tuple[float, float, float, float] = (0.5, 0.5, 0.5, 1.0)
    mass: float = 0.1
    friction: float = 0.8
    fixed: bool = False
    colour: str = ""
    kind: str = ""

    def aabb(self) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """Axis-aligned box (lower xyz, upper xyz) in the world frame, metres.

        Accounts for yaw about z and for any roll/pitch by bounding the rotated box corners. A round
        thing's is its own: a sphere's (within 15 % of the same size every way) is the same in any
        orientation, and a cylinder's (round across its axis, within 15 %) bounds the cylinder, not its
        turned box — a plate 22 cm across, seen at some yaw, had a box 29 cm wide, and "the apple next
        to the plate" held for an apple 18 cm from the plate's rim.
        """
        hx, hy, hz = (s / 2.0 for s in self.size)
        if self.shape == "sphere" and max(self.size) < 1.15 * min(
            self.size
        ):  # a ball's box does not grow as it rolls
            ext = [hx, hy, hz]
        elif self.shape == "cylinder" and max(hx, hy) < 1.15 * min(hx, hy):
            rot = rotation_matrix(self.pose.roll, self.pose.pitch, self.pose.yaw)
            r = max(
                hx, hy
            )  # the axis is the body's z: a circle of radius r spans r·sin(angle to the world axis)
            ext = [
                abs(rot[i][2]) * hz + r * math.sqrt(max(0.0, 1.0 - rot[i][2] ** 2))
                for i in range(3)
            ]
        else:
            rot = rotation_matrix(self.pose.roll, self.pose.pitch, self.pose.yaw)
            ext = [sum(abs(rot[i][j]) * h for j, h in enumerate((hx, hy, hz))) for i in range(3)]
        c = self.pose.position
        return (
            (c[0] - ext[0], c[1] - ext[1], c[2] - ext[2]),
            (c[0] + ext[0], c[1] + ext[1], c[2] + ext[2]),
        )

    def over_footprint(self, x: float, y: float) -> bool:
        """Is the world point (x, y) (m) over this object's footprint? A standing round thing (a
        cylinder or sphere tilted under ~17°: a plate, a bowl) has a round footprint of its smaller
        width; anything else its axis-aligned box (a point 11.5 cm from the centre of a 22 cm plate
        lies inside the plate's box, but not on the plate)."""
        upright = abs(self.pose.roll) < 0.3 and abs(self.pose.pitch) < 0.3
        if self.shape in ("cylinder", "sphere") and upright:
            return (
                math.hypot(x - self.pose.x, y - self.pose.y) <= min(self.size[0], self.size[1]) / 2
            )
        lo, hi = self.aabb()
        return lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]

    def moved(self, pose: Pose) -> ObjectState:
        return replace(self, pose=pose)


@dataclass(frozen=True)
class RobotState:
    """Arm joint positions (radians, in the robot's joint order), gripper opening (m), held object,
    and which arm it is (a name in `sim.robot.ROBOTS`: the planning model builds that arm)."""

    joints: tuple[float, ...]
    gripper_width: float = 0.085
    held: str | None = None
    arm: str = "ur5e"


CONTENT_SINK = 0.005  # metres a content's lowest point may reach below its holder's (fitted boxes)


@dataclass(frozen=True)
class Release:
    """An object the hand let go of (opened on, or slipped): the TCP's pose when it gripped the object
    (None when not known) and when it let go, each ((x, y, z) m, quaternion xyzw), world frame, from
    the arm's measured joints and kinematics."""

    grasp: tuple[tuple[float, ...], tuple[float, ...]] | None
    hand: tuple[tuple[float, ...], tuple[float, ...]]


@dataclass
class WorldState:
    """Everything the planner knows: named objects and the robot. Source: perception."""

    objects: dict[str, ObjectState] = field(default_factory=dict)
    robot: RobotState | None = None
    source: str = "unknown"

    def get(self, name: str) -> ObjectState:
        """The object called `name`; raises UnknownObjectError naming what the scene has (also for a
        `name` that is not a string, which is not hashed)."""
        if not isinstance(name, str):
            raise UnknownObjectError(name, sorted(self.objects))
        try:
            return self.objects[name]
        except KeyError:
            raise UnknownObjectError(name, sorted(self.objects)) from None

    def names(self) -> list[str]:
        return sorted(self.objects)

    def movable(self) -> list[str]:
        return sorted(n for n, o in self.objects.items() if not o.fixed)

    def contents(self, holder: str) -> list[str]:
        """Movable objects inside `holder` (sorted names): each one's centre within holder's box and
        its own lowest point no more than CONTENT_SINK metres below holder's bottom. A shallow pan
        whose centre lies inside the box of the strawberry resting in it is not the strawberry's
        content. Raises UnknownObjectError for an unknown `holder`."""
        lo, hi = self.get(holder).aabb()
        out = []
        for name in self.movable():
            if name == holder:
                continue
            o = self.objects[name]
            x, y, z = o.pose.position
            if not all(lo[i] < c < hi[i] for i, c in enumerate((x, y, z))):
                continue
            if o.aabb()[0][2] >= lo[2] - CONTENT_SINK:
                out.append(name)
        return out

    def with_pose(self, name: str, pose: Pose) -> WorldState:
        objs = dict(self.objects)
        objs[name] = self.get(name).moved(pose)
        return WorldState(objects=objs, robot=self.robot, source=self.source)


def rotation_matrix(roll: float, pitch: float, yaw: float) -> list[list[float]]:
    """3×3 rotation for fixed-axis X(roll), Y(pitch), Z(yaw) — pybullet's Euler convention."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
