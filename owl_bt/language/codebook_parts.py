"""Codebook helpers for orientation, parts of objects and points (ours, beyond the reference's codebook).

Orientation: an object's own axes in the world (`get_axis`), the yaw of its long side, whether two
things are parallel or one is straight (along x, pointing away from the robot), where a named end
points (`get_end_direction`: tines, blade, handle, bowl, tip, … from the catalogue's data), and
whether it stands upright, upside down or on its side. Parts: the front/back/left/right half or a
corner of an object's top or opening as bounds, and a small region around a point. Inside: whether
a thing is in a container by the part in its opening (bottom below the rim, footprint within it), so
a tall can in a shallow pan counts.

World frame: x away from the robot, y to the robot's left, z up; metres and radians. "Front" means
nearer the robot (smaller x), "left" the robot's left (larger y). Bounds are 6-D pose bounds as in
`owl_bt.language.codebook`. Every helper raises UnknownObjectError for a name the scene lacks.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from owl_bt.language.codebook_shape import LONG, get_lower_end, get_opening
from owl_bt.language.perception_error import PERCEPTION_ERROR
from owl_bt.state import WorldState, rotation_matrix

if TYPE_CHECKING:
    from owl_bt.language.workspace import Env

Bounds = tuple[tuple[float, ...], tuple[float, ...]]
TILT_TOL = math.radians(20.0)  # default: an axis within this of a direction counts as along it
YAW_TOL = math.radians(15.0)  # default: long sides within this of each other count as parallel
# m a footprint may seem to overhang an opening: the measured perception error, on either side
SEEN_TOL = 2 * PERCEPTION_ERROR
PARTS = {
    "front": ((0.0, 0.5), (0.0, 1.0)),
    "back": ((0.5, 1.0), (0.0, 1.0)),
    "left": ((0.0, 1.0), (0.5, 1.0)),
    "right": ((0.0, 1.0), (0.0, 0.5)),
    "front_left": ((0.0, 0.5), (0.5, 1.0)),
    "front_right": ((0.0, 0.5), (0.0, 0.5)),
    "back_left": ((0.5, 1.0), (0.5, 1.0)),
    "back_right": ((0.5, 1.0), (0.0, 0.5)),
    "middle": ((0.25, 0.75), (0.25, 0.75)),
}  # shares of the box along x (front = near the robot) and y (right = the robot's right)


def get_axis(state: WorldState, env: Env, name: str, axis: str) -> tuple[float, float, float]:
    """The unit vector (world frame) of the object's own axis `axis` ('x', 'y' or 'z' of the catalogue's
    resting pose: z is its up; a fork's x runs from handle to tines). Raises ValueError for another axis."""
    if axis not in ("x", "y", "z"):
        raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
    pose = state.get(name).pose
    rot = rotation_matrix(pose.roll, pose.pitch, pose.yaw)
    j = "xyz".index(axis)
    return (rot[0][j], rot[1][j], rot[2][j])


def is_upright(state: WorldState, env: Env, name: str, tol: float = TILT_TOL) -> bool:
    """Does the object stand as in the catalogue (its own z axis within `tol` rad of world up): a mug's
    opening up, a bottle on its base?"""
    return get_axis(state, env, name, "z")[2] >= math.cos(tol)


def is_upside_down(state: WorldState, env: Env, name: str, tol: float = TILT_TOL) -> bool:
    """Is the object's own z axis within `tol` rad of world down (a mug on its rim)?"""
    return get_axis(state, env, name, "z")[2] <= -math.cos(tol)


def is_on_side(state: WorldState, env: Env, name: str, tol: float = TILT_TOL) -> bool:
    """Does the object lie on its side: its own z axis within `tol` rad of horizontal?"""
    return abs(get_axis(state, env, name, "z")[2]) <= math.sin(tol)


def get_long_axis_yaw(state: WorldState, env: Env, name: str) -> float:
    """The direction (rad, world yaw in [-π/2, π/2)) of the object's longest horizontal side: 0 when it
    lies along x (pointing away from the robot), ±π/2 along y. A line has no head, so the result is
    modulo π; use get_end_direction for which way an end points."""
    obj = state.get(name)
    rot = rotation_matrix(obj.pose.roll, obj.pose.pitch, obj.pose.yaw)
    best = max(range(3), key=lambda j: obj.size[j] * math.hypot(rot[0][j], rot[1][j]))
    yaw = math.atan2(rot[1][best], rot[0][best])
    return (yaw + math.pi / 2) % math.pi - math.pi / 2


def yaw_difference(a: float, b: float) -> float:
    """The angle (rad, 0 to π/2) between two undirected horizontal lines of yaws a and b."""
    d = abs(a - b) % math.pi
    return min(d, math.pi - d)


def is_parallel(state: WorldState, env: Env, obj1: str, obj2: str, tol: float = YAW_TOL) -> bool:
    """Do the two objects' long sides run the same way (within `tol` rad), as seen from above?"""
    return (
        yaw_difference(get_long_axis_yaw(state, env, obj1), get_long_axis_yaw(state, env, obj2))
        <= tol
    )


def is_straight(state: WorldState, env: Env, name: str, tol: float = YAW_TOL) -> bool:
    """Does the object's long side run along x, away from the robot (within `tol` rad): cutlery laid
    'straight' beside a plate?"""
    return abs(get_long_axis_yaw(state, env, name)) <= tol


ENDS: dict[str, dict] | None = None  # set in the sandbox worker, which cannot open the catalogue


def ends_table() -> dict[str, dict]:
    """The catalogue's named ends of every kind that declares them (sim/catalog/everyday.toml)."""
    from sim.catalog import ENDS as CATALOGUE_ENDS

    return {k: dict(v) for k, v in CATALOGUE_ENDS.items()}


def _ends(kind: str) -> dict:
    if ENDS is not None:
        return ENDS.get(kind, {})
    return _catalogue_ends().get(kind, {})


@functools.cache
def _catalogue_ends() -> dict[str, dict]:
    return ends_table()


def get_ends(state: WorldState, env: Env, name: str) -> list[str]:
    """The named ends the object's kind declares (e.g. ['tines', 'handle'] for a fork; 'front' names
    which of them is its front); [] for a kind without ends."""
    obj = state.get(name)
    return [k for k in _ends(obj.kind or obj.category) if k != "front"]


def get_end_direction(
    state: WorldState, env: Env, name: str, end: str = "front"
) -> tuple[float, float, float]:
    """The unit vector (world frame) from the object's centre towards its end `end` ('tines', 'handle',
    'blade', 'bowl', 'tip', …, or 'front': the end its kind calls its front). A fork with its tines
    pointing away from the robot has x > 0.9; tines up has z > 0.9. Raises ValueError for an end the
    kind does not declare (see get_ends)."""
    obj = state.get(name)
    ends = _ends(obj.kind or obj.category)
    key = ends.get("front") if end == "front" else end
    if key not in ends or key == "front":
        known = ", ".join(k for k in ends if k != "front") or "none"
        raise ValueError(f"{name} has no end {end!r}; its ends: {known}")
    local = ends[key]
    rot = rotation_matrix(obj.pose.roll, obj.pose.pitch, obj.pose.yaw)
    v = [sum(rot[i][j] * local[j] for j in range(3)) for i in range(3)]
    n = math.sqrt(sum(c * c for c in v)) or 1.0
    return (v[0] / n, v[1] / n, v[2] / n)


def get_end_point(
    state: WorldState, env: Env, name: str, end: str = "front"
) -> tuple[float, float, float]:
    """(x, y, z), m, world frame: the far point of the object's end `end` (see get_end_direction), its
    centre moved half the object's length that way."""
    obj = state.get(name)
    d = get_end_direction(state, env, name, end)
    half = max(obj.size) / 2
    c = obj.pose.position
    return (c[0] + d[0] * half, c[1] + d[1] * half, c[2] + d[2] * half)


def points_towards(
    state: WorldState,
    env: Env,
    name: str,
    end: str,
    direction: tuple[float, float, float],
    tol: float = TILT_TOL,
) -> bool:
    """Does the object's end `end` point along `direction` (any (x, y, z), normalised here) within `tol`
    rad? E.g. (1, 0, 0): away from the robot; (-1, 0, 0): towards it; (0, 0, 1): up."""
    d = get_end_direction(state, env, name, end)
    n = math.sqrt(sum(c * c for c in direction)) or 1.0
    cos = sum(a * b / n for a, b in zip(d, direction, strict=True))
    return cos >= math.cos(tol)


def get_part_bounds(state: WorldState, env: Env, name: str, part: str) -> Bounds:
    """Bounds over part `part` of the object's top (or its opening, for a container): 'front', 'back',
    'left', 'right' (a half), 'front_left', 'front_right', 'back_left', 'back_right' (a quarter) or
    'middle' (the central half of each side); front = nearer the robot, left = the robot's left. z runs
    from the container's floor (or the object's top) to 15 cm above its top, any orientation. Test a
    thing's centre with position_within_bounds. Raises ValueError for another part."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}; got {part!r}")
    lo, hi = state.get(name).aabb()
    opening = get_opening(state, env, name)
    if opening is not None:  # a container: the part of its opening, from its floor up
        x, y, r, floor, _ = opening
        lo, hi = (x - r, y - r, floor), (x + r, y + r, hi[2])
        z0 = floor
    else:
        z0 = hi[2]
    (fx0, fx1), (fy0, fy1) = PARTS[part]
    sx, sy = hi[0] - lo[0], hi[1] - lo[1]
    lower = (lo[0] + fx0 * sx, lo[1] + fy0 * sy, z0, -math.pi, -math.pi, -math.pi)
    upper = (lo[0] + fx1 * sx, lo[1] + fy1 * sy, hi[2] + 0.15, math.pi, math.pi, math.pi)
    return (lower, upper)


def get_bounds_around_point(
    state: WorldState, env: Env, point: tuple[float, ...], radius: float = 0.03
) -> Bounds:
    """Bounds of the square region within `radius` m (in x and y) of `point` ((x, y) or a pose), from
    the table up to 0.5 m, any orientation: "where the cup was", "at that spot"."""
    x, y = float(point[0]), float(point[1])
    z0 = env.table_lower[2]
    return (
        (x - radius, y - radius, z0, -math.pi, -math.pi, -math.pi),
        (x + radius, y + radius, z0 + 0.5, math.pi, math.pi, math.pi),
    )


def is_in_opening(
    state: WorldState, env: Env, name: str, container: str, tol: float = SEEN_TOL
) -> bool:
    """Is the object in the container by the part in its opening: its bottom below the rim (and not
    under the floor) and its footprint within the opening (`tol` m of overhang allowed for perception)?
    A tall can standing in a shallow pan counts, though its centre is above the rim; a thing lying
    across the rim does not; nothing is in a container lying tipped over. A long thing (a spoon in a
    utensil holder, leaning) is judged by its lower end (get_lower_end) in the opening instead of its
    whole footprint. For a container of no known shape, its box stands in for the opening."""
    lo, hi = state.get(name).aabb()
    opening = get_opening(state, env, container)
    if opening is None and _has_inside(state.get(container).kind):
        return False  # a container of known shape with no opening facing up: tipped over
    if opening is None:
        clo, chi = state.get(container).aabb()
        return (
            lo[2] < chi[2] - 0.005
            and lo[2] >= clo[2] - tol
            and all(clo[i] - tol <= lo[i] and hi[i] <= chi[i] + tol for i in range(2))
        )
    x, y, r, floor, rim = opening
    obj = state.get(name)
    longest = sorted(obj.size, reverse=True)
    if (
        longest[0] >= LONG * longest[1]
    ):  # a long thing stands in it leaning: judged by its lower end
        end = get_lower_end(state, env, name)
        return (
            math.hypot(end[0] - x, end[1] - y) <= r + tol and floor - 0.015 <= end[2] < rim - 0.005
        )
    if not (floor - 0.015 <= lo[2] < rim - 0.005):
        return False
    corners = [(a, b) for a in (lo[0], hi[0]) for b in (lo[1], hi[1])]
    if obj.shape in ("cylinder", "sphere") and is_upright(state, env, name):
        c = obj.pose.position
        reach = math.hypot(c[0] - x, c[1] - y) + min(obj.size[0], obj.size[1]) / 2
        return reach <= r + tol
    return all(math.hypot(a - x, b - y) <= r + tol for a, b in corners)


def _has_inside(kind: str) -> bool:
    from owl_bt.language.codebook_shape import _cavity

    return bool(kind) and _cavity(kind) is not None


HELPERS = {
    f.__name__: f
    for f in (
        get_axis,
        is_upright,
        is_upside_down,
        is_on_side,
        get_long_axis_yaw,
        yaw_difference,
        is_parallel,
        is_straight,
        get_ends,
        get_end_direction,
        get_end_point,
        points_towards,
        get_part_bounds,
        get_bounds_around_point,
        is_in_opening,
    )
}
