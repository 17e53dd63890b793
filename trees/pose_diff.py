"""How an observed pose differs from the planned one, in the terms the monitor judges a step by.

Poses are `owl_bt.state.Pose` (x, y, z, roll, pitch, yaw: metres/radians, world frame); an object's
`size` is its box's full extents (dx, dy, dz, metres) in its own frame, about its pose's origin.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p


def angle_between(got, planned) -> float:
    """The angle (degrees) between two poses' orientations."""
    qa, qb = p.getQuaternionFromEuler(got.euler), p.getQuaternionFromEuler(planned.euler)
    return math.degrees(
        2.0 * math.acos(min(1.0, abs(sum(a * b for a, b in zip(qa, qb, strict=True)))))
    )


def turned_phrase(got, planned) -> str:
    """', turned N° from the planned orientation' when the object is seen turned by over 20°, else ''."""
    angle = angle_between(got, planned)
    return f", turned {angle:.0f}° from the planned orientation" if angle > 20 else ""


def far_shift(got, planned, size: tuple[float, float, float]) -> float | None:
    """How far (metres) the turn from `planned` to `got` moves the far ends of a long object (its longest
    side at least ELONGATED times the next): its half-length swung through the angle between its long
    axes, either way round (the camera cannot tell a fork's ends apart by shape). What it means for what
    comes next: a fork turned 12° in the fingers stands its tip 1.9 cm off where a place into a mug was
    planned for. None for a compact object: under the fingers the camera's fit may take one of its sides
    for another (a held potted-meat can, 10 × 6 × 8 cm, was fitted a quarter turn off), while a long
    thing's points spread along its axis."""
    order = np.argsort(size)[::-1]
    if size[order[0]] < ELONGATED * size[order[1]]:
        return None
    axis = int(order[0])
    ra = np.array(p.getMatrixFromQuaternion(p.getQuaternionFromEuler(got.euler))).reshape(3, 3)
    rb = np.array(p.getMatrixFromQuaternion(p.getQuaternionFromEuler(planned.euler))).reshape(3, 3)
    angle = math.acos(min(1.0, abs(float(ra[:, axis] @ rb[:, axis]))))
    return size[axis] * math.sin(angle / 2.0)  # the chord: 2 × half-length × sin(angle / 2)


ELONGATED = (
    2.0  # a side this many times the next longest makes an object long (a fork, a knife, a hammer)
)
