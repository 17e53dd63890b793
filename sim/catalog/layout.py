"""Laying objects out on the table: resting heights, footprints and seeded collision-free spots.

World frame: x away from the robot base, y to its left, z up, metres; the table top is z = 0.
A footprint is the axis-aligned (x, y) box of an object's bounding box turned to its pose; two
footprints must keep `gap` apart. Pure geometry: nothing here touches pybullet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from owl_bt.state import Pose, rotation_matrix
from sim.objects import ObjectSpec

TABLE_TOP_Z = 0.0  # m
TABLE_XY = ((0.2, 0.9), (-0.45, 0.45))  # m: the table's x and y ranges
REACH = ((0.35, 0.75), (-0.32, 0.32))  # m: where object centres stay in the arm's comfortable reach
GAP = 0.02  # m between footprints
DROP = 0.001  # m above resting height that objects are spawned at

Box2 = tuple[tuple[float, float], tuple[float, float]]  # ((x lo, y lo), (x hi, y hi))


def half_extents(
    spec: ObjectSpec, roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0
) -> tuple[float, float, float]:
    """Half extents (m) along world x, y, z of the spec's bounding box turned by (roll, pitch, yaw)."""
    half = [s / 2 for s in spec.size()]
    rot = rotation_matrix(roll, pitch, yaw)
    return tuple(sum(abs(rot[i][j]) * half[j] for j in range(3)) for i in range(3))


def resting_pose(
    spec: ObjectSpec,
    x: float,
    y: float,
    roll: float = 0.0,
    pitch: float = 0.0,
    yaw: float = 0.0,
    support_z: float = TABLE_TOP_Z,
) -> Pose:
    """The pose (body frame = bounding-box centre) whose lowest point is DROP above `support_z` (m)."""
    hz = half_extents(spec, roll, pitch, yaw)[2]
    return Pose(x, y, support_z + hz + DROP, roll, pitch, yaw)


def footprint(spec: ObjectSpec, pose: Pose) -> Box2:
    """The (x, y) box the object covers at `pose`, m, world frame."""
    hx, hy, _ = half_extents(spec, pose.roll, pose.pitch, pose.yaw)
    return ((pose.x - hx, pose.y - hy), (pose.x + hx, pose.y + hy))


def overlaps(a: Box2, b: Box2, gap: float = 0.0) -> bool:
    """Do footprints a and b come closer than `gap` (m) in both x and y?"""
    return all(a[0][i] < b[1][i] + gap and b[0][i] < a[1][i] + gap for i in range(2))


def on_table(box: Box2) -> bool:
    """Is the footprint entirely over the table top?"""
    return all(TABLE_XY[i][0] <= box[0][i] and box[1][i] <= TABLE_XY[i][1] for i in range(2))


@dataclass
class Layout:
    """Footprints taken so far on one table, and a seeded sampler of free spots among them."""

    rng: np.random.Generator
    gap: float = GAP
    taken: dict[str, Box2] = field(default_factory=dict)

    def clash(self, box: Box2, ignore: tuple[str, ...] = ()) -> str | None:
        """The name of a taken footprint closer than `gap` to `box`, or None."""
        for name, other in self.taken.items():
            if name not in ignore and overlaps(box, other, self.gap):
                return name
        return None

    def occupy(self, name: str, spec: ObjectSpec, pose: Pose) -> None:
        """Record an object placed at `pose` by hand (no check)."""
        self.taken[name] = footprint(spec, pose)

    def sample(
        self,
        spec: ObjectSpec,
        roll: float = 0.0,
        pitch: float = 0.0,
        yaw: float | None = None,
        area: Box2 | None = None,
        tries: int = 5000,
    ) -> Pose:
        """A resting pose with its centre drawn uniformly in `area` ((x lo, x hi), (y lo, y hi); default
        REACH) and yaw uniform in [−π, π) unless given, whose footprint is on the table and clear of all
        taken ones; records it under spec.name. Raises RuntimeError after `tries` draws."""
        (x0, x1), (y0, y1) = area or REACH
        for _ in range(tries):
            th = float(self.rng.uniform(-math.pi, math.pi)) if yaw is None else yaw
            pose = resting_pose(
                spec,
                float(self.rng.uniform(x0, x1)),
                float(self.rng.uniform(y0, y1)),
                roll,
                pitch,
                th,
            )
            box = footprint(spec, pose)
            if on_table(box) and self.clash(box) is None:
                self.taken[spec.name] = box
                return pose
        raise RuntimeError(f"no free spot for {spec.name} on the table after {tries} tries")
