"""Container geometry of the planning model's bodies: where a container's cavity and rim are as it
lies now, and whether an object's lowest point is inside it. Mixed into
`PlanningModel`, whose pybullet client (`cid`) and bodies (`bodies`) it reads.

Frames: world (m) for what the methods return; the body frame (the centre of the object's bounding
box) for what `_learn_shape` keeps.
"""

from __future__ import annotations

import math

import pybullet as p

from sim.objects import ObjectSpec, part_points


class ContainerGeometry:
    """Cavities and bounding points of a planning model's bodies. Needs `cid` (pybullet client) and
    `bodies` (name → body id); `_learn_shape` is called once per body as it is spawned."""

    cid: int
    bodies: dict[str, int]
    _cavities: dict[str, dict]
    _points: dict[str, list]

    def _learn_shape(self, name: str, spec: ObjectSpec) -> None:
        """Keep `spec`'s part bounding points and, for a container, its cavity, in the body frame."""
        lo, hi = spec.bounds()
        mid = [(a + b) / 2 for a, b in zip(lo, hi, strict=True)]
        self._points[name] = [
            tuple(c - m for c, m in zip(q, mid, strict=True))
            for part in spec.parts
            for q in part_points(part)
        ]
        if "cavity" in spec.extra:  # the inside of a container, in the body frame (its box centre)
            cav = spec.extra["cavity"]
            self._cavities[name] = {
                "centre": (cav["centre"][0] - mid[0], cav["centre"][1] - mid[1]),
                "radius": cav["radius"],
                "bottom": cav["bottom"] - mid[2],
                "top": cav["top"] - mid[2],
            }

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

    def opening(
        self, name: str
    ) -> tuple[tuple[float, float, float], tuple[float, float, float], float] | None:
        """A container's rim however it lies: (rim centre xyz, world frame, m; the unit axis its
        opening faces, world frame; inner radius, m), or None when `name` is not a container."""
        cav = self._cavities.get(name)
        if cav is None:
            return None
        pos, quat = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.cid)
        centre = p.multiplyTransforms(pos, quat, (*cav["centre"], cav["top"]), (0, 0, 0, 1))[0]
        m = p.getMatrixFromQuaternion(quat)
        return centre, (m[2], m[5], m[8]), cav["radius"]

    def lowest_point(self, name: str) -> tuple[float, float, float]:
        """The lowest of the object's parts' bounding points as it lies now (world frame, m): a fork
        standing in a mug has it at the mug's floor, one leaning on its outside next to it."""
        pos, quat = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.cid)
        pts = [p.multiplyTransforms(pos, quat, q, (0, 0, 0, 1))[0] for q in self._points[name]]
        return min(pts, key=lambda q: q[2])

    def in_cavity(self, o: str, c: str, margin: float = 0.006) -> bool | None:
        """Is o's lowest point inside container c's cavity (within its inner radius + margin of the
        axis, between 1 cm under the floor and the rim)? None when c has no upright cavity."""
        cav = self.cavity(c)
        if cav is None:
            return None
        floor, radius, rim = cav
        x, y, z = self.lowest_point(o)
        return (
            math.hypot(x - floor[0], y - floor[1]) <= radius + margin
            and floor[2] - 0.01 <= z <= floor[2] + rim
        )
