"""Codebook helpers about an object's shape (ours, beyond the reference's codebook): where a
long thing touches down and where a container's opening is. They tell a knife leaning in a mug from
one lying across its rim with its handle on the table, which the centre and the box cannot: both
have their centres over the mug and their boxes reaching as low."""

from __future__ import annotations

import functools
import math

from owl_bt.language import codebook_args as args
from owl_bt.language.workspace import Env
from owl_bt.state import WorldState, rotation_matrix

LONG = 1.5  # a side this many times the next longest makes a thing long (a knife, a fork, a bottle lying)
LEVEL = math.sin(
    math.radians(5)
)  # a long side sloping less than this (sine) lies level: neither end is lower
UPRIGHT = 0.95  # cos of the largest tilt at which a container's opening still faces up


def get_lower_end(state: WorldState, env: Env, name: str) -> tuple[float, float, float]:
    """(x, y, z), metres, world frame: where the object touches down. For a long thing (its longest side
    at least 1.5 times the next) the centre of whichever end of that side is lower: a knife leaning in a
    mug has it on the mug's floor, one lying across the rim with its handle on the table has it on the
    table beside the mug. For anything else, and a long thing lying level (within 5°: it touches down
    all along), the point under its centre at its box's lowest height. Raises UnknownObjectError."""
    obj = state.get(args.name("get_lower_end", name))
    c = obj.pose.position
    order = sorted(range(3), key=lambda j: obj.size[j], reverse=True)
    j = order[0]
    rot = rotation_matrix(obj.pose.roll, obj.pose.pitch, obj.pose.yaw)
    if obj.size[j] < LONG * obj.size[order[1]] or abs(rot[2][j]) < LEVEL:
        return (c[0], c[1], obj.aabb()[0][2])
    sign = -1.0 if rot[2][j] > 0 else 1.0
    half = obj.size[j] / 2
    return (
        c[0] + sign * half * rot[0][j],
        c[1] + sign * half * rot[1][j],
        c[2] + sign * half * rot[2][j],
    )


# kind → _cavity(kind), when given whole (the sandbox worker, which cannot import the catalogue)
CAVITIES: dict[str, tuple] | None = None


def cavity_table() -> dict[str, tuple]:
    """_cavity of every catalogue kind that has an inside (for `CAVITIES`)."""
    from sim.catalog import KINDS

    return {k: c for k in KINDS if (c := _cavity(k)) is not None}


def _cavity(kind: str) -> tuple[tuple[float, ...], tuple[float, float, float]] | None:
    """A catalogue kind's inside in its body frame (the centre of its box): ((axis x, axis y, radius,
    floor z, rim z), catalogue size (dx, dy, dz)), metres; None for a kind with no inside."""
    if CAVITIES is not None:
        return CAVITIES.get(kind)
    return _catalogue_cavity(kind)


@functools.cache
def _catalogue_cavity(kind: str) -> tuple[tuple[float, ...], tuple[float, float, float]] | None:
    from sim.catalog import KINDS, make

    if kind not in KINDS:
        return None
    spec = make(kind)
    cav = spec.extra.get("cavity")
    if cav is None:
        return None
    lo, hi = spec.bounds()
    mid = [(a + b) / 2 for a, b in zip(lo, hi, strict=True)]
    inside = (
        cav["centre"][0] - mid[0],
        cav["centre"][1] - mid[1],
        cav["radius"],
        cav["bottom"] - mid[2],
        cav["top"] - mid[2],
    )
    return inside, tuple(b - a for a, b in zip(lo, hi, strict=True))


def get_opening(
    state: WorldState, env: Env, name: str
) -> tuple[float, float, float, float, float] | None:
    """(x, y, radius, floor_z, rim_z), metres, world frame: a container's opening as it stands now (its
    axis, inner radius, and the heights of its inside floor and its rim), from the recognised kind's
    shape scaled to the perceived size; None when the object is no container (no recognised kind with an
    inside: a plate, a box) or is tipped over. Raises UnknownObjectError."""
    obj = state.get(args.name("get_opening", name))
    known = _cavity(obj.kind) if obj.kind else None
    rot = rotation_matrix(obj.pose.roll, obj.pose.pitch, obj.pose.yaw)
    if known is None or rot[2][2] < UPRIGHT:
        return None
    (ax, ay, radius, floor, rim), size = known
    k = [s / m if m > 1e-6 else 1.0 for s, m in zip(obj.size, size, strict=True)]
    c = obj.pose.position

    def world(x: float, y: float, z: float) -> tuple[float, ...]:
        return tuple(c[i] + rot[i][0] * x + rot[i][1] * y + rot[i][2] * z for i in range(3))

    bottom = world(ax * k[0], ay * k[1], floor * k[2])
    top = world(ax * k[0], ay * k[1], rim * k[2])
    return (bottom[0], bottom[1], radius * min(k[0], k[1]), bottom[2], top[2])
