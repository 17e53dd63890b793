"""Footprint geometry of the place skills (skills/place.py): the orientations a placed object is put
down in, and where its footprint (the xy box of its rotated extents, world frame, metres) fits."""

from __future__ import annotations

import math

import pybullet as p

from owl_bt.state import ObjectState
from sim.bullet import to_bullet

# Resting faces of a box-like body as (roll, pitch) in its own frame: +z up, upside down, on each side.
FACES = (
    (0.0, 0.0),
    (math.pi, 0.0),
    (0.0, math.pi / 2),
    (0.0, -math.pi / 2),
    (math.pi / 2, 0.0),
    (-math.pi / 2, 0.0),
)


ON_END = 2.0  # a resting face that stands a thing this many times taller than its narrowest width
_UP_AXIS = (2, 2, 0, 0, 1, 1)  # the object's own axis that points up on each of FACES


def stands_on_end(obj: ObjectState, face: int | None) -> bool:
    """Would resting face `face` (index into FACES; None, as it hangs: not judged) stand `obj` on end:
    taller than ON_END times its narrowest width, and taller than it stands in its own frame (its
    catalogue pose)? A knife on its handle, a banana on its stem, a cutting board on its edge; a
    bottle or a mug standing is its own pose, and a block has no end."""
    if face is None:
        return False
    up = _UP_AXIS[face]
    height = obj.size[up]
    narrowest = min(v for i, v in enumerate(obj.size) if i != up)
    return height > ON_END * narrowest and height > obj.size[2] + 1e-6


def target_orientation(obj: ObjectState, params: dict) -> tuple[float, float, float, float]:
    """World quaternion of the placed object: the held orientation turned by `dyaw` about z, or
    resting face `face` (index into FACES) turned to yaw `dyaw`."""
    if params.get("face") is None:
        zq = p.getQuaternionFromEuler((0, 0, params["dyaw"]))
        return p.multiplyTransforms((0, 0, 0), zq, (0, 0, 0), to_bullet(obj.pose)[1])[1]
    roll, pitch = FACES[params["face"]]
    return p.getQuaternionFromEuler((roll, pitch, params["dyaw"]))


def extents(obj: ObjectState, params: dict) -> list[tuple[float, float]]:
    """The xy projections (m) of o's three box edges (full lengths) when turned as `params` say."""
    q = target_orientation(obj, params)
    m = p.getMatrixFromQuaternion(q)
    return [(m[j] * obj.size[j], m[3 + j] * obj.size[j]) for j in range(3)]


def footprint_axis(obj: ObjectState, params: dict) -> float:
    """Direction (rad, world frame) of the long side of o's footprint when turned as `params` say."""
    ex, ey = max(extents(obj, params), key=lambda v: math.hypot(*v))
    return math.atan2(ey, ex)


def reach_in_opening(
    obj: ObjectState, params: dict, radius: float, a: float, margin: float = 0.006
) -> float:
    """How far (m) from a round opening's axis, in direction `a` (rad), o's centre may be when
    turned as `params` say, for its footprint (a box) to stay `margin` inside the wall of radius
    `radius`: a knife on end, its blade along the wall, stands much nearer it than its width
    suggests. 0 when it only just fits at the axis."""
    er, et = (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))
    half_r = sum(abs(v[0] * er[0] + v[1] * er[1]) for v in extents(obj, params)) / 2
    half_t = sum(abs(v[0] * et[0] + v[1] * et[1]) for v in extents(obj, params)) / 2
    room = (radius - margin) ** 2 - half_t**2
    return max(0.0, math.sqrt(room) - half_r) if room > 0 else 0.0


def gap_to_box(x: float, y: float, box) -> float:
    """Horizontal distance (metres) from the point (x, y) to the axis-aligned box `box` (0 inside)."""
    (ax, ay, _), (bx, by, _) = box
    return math.hypot(max(ax - x, 0.0, x - bx), max(ay - y, 0.0, y - by))
