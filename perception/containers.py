"""Contents of a container rest on its floor: a fitted shape whose lowest point comes out below the
inside floor of the container it is flagged inside (its lower part hidden by the wall, the fit slides
along its long axis) is raised onto that floor. A fork standing in a mug was seen 1.1 cm into the
mug's floor, and every check of "the fork is in the mug" failed on it."""

from __future__ import annotations

import math

from owl_bt.state import ObjectState, Pose, rotation_matrix
from perception.shape_library import ShapeLibrary

MAX_RAISE = 0.03  # m: a fit deeper than this under the floor is something else, left as it is
LEVEL = 0.95  # cos of the largest tilt at which a container's floor counts as level


def floor_height(state: ObjectState, shapes: ShapeLibrary) -> float | None:
    """World z (m) of the inside floor of an upright container as perceived (its shape's floor height,
    scaled to the perceived height), or None: no shape with a floor for its kind, or tipped."""
    model = shapes.get(state.kind)
    floor = model.info.get("floor") if model is not None else None
    if floor is None or rotation_matrix(*state.pose.euler)[2][2] < LEVEL:
        return None
    return state.aabb()[0][2] + floor * state.size[2] / model.size[2]


def opening(
    state: ObjectState, shapes: ShapeLibrary
) -> tuple[float, float, float, float, float] | None:
    """(x, y, radius, floor, rim) of the upright container `state`'s inside, world frame, m: its
    axis, its inner radius, its inside floor's and its rim's heights (its shape's cavity scaled to
    the perceived size); None when its kind has no cavity or it is tipped."""
    floor = floor_height(state, shapes)
    model = shapes.get(state.kind) if floor is not None else None
    cavity = model.info.get("cavity") if model is not None else None
    if cavity is None:
        return None
    k = [s / m for s, m in zip(state.size, model.size, strict=True)]
    rot = rotation_matrix(*state.pose.euler)
    ax = [
        state.pose.position[i] + rot[i][0] * cavity[0] * k[0] + rot[i][1] * cavity[1] * k[1]
        for i in range(2)
    ]
    return ax[0], ax[1], cavity[2] * min(k[0], k[1]), floor, state.aabb()[1][2]


def stands_in(
    point: tuple[float, float, float] | None, state: ObjectState, shapes: ShapeLibrary
) -> bool:
    """Is `point` (world xyz, m; an object's lowest point) in the opening of the upright container
    `state`: within its inner radius of its axis, below its rim and at most MAX_RAISE under its floor?"""
    inside = opening(state, shapes) if point is not None else None
    if inside is None:
        return False
    x, y, radius, floor, rim = inside
    return math.hypot(point[0] - x, point[1] - y) < radius and floor - MAX_RAISE < point[2] < rim


def rest_in_containers(objects: dict, shapes: ShapeLibrary) -> None:
    """Raise each object flagged 'inside X' whose lowest point (`PerceivedObject.lowest`, world z, m)
    is below X's floor onto it. objects: name → PerceivedObject, changed in place."""
    for obj in objects.values():
        inside = [f[len("inside ") :] for f in obj.flags if f.startswith("inside ")]
        if obj.lowest is None or not inside or inside[0] not in objects:
            continue
        floor = floor_height(objects[inside[0]].state, shapes)
        if floor is None or not 0.0 < floor - obj.lowest <= MAX_RAISE:
            continue
        p, up = obj.state.pose, floor - obj.lowest
        obj.state = obj.state.moved(Pose(p.x, p.y, p.z + up, p.roll, p.pitch, p.yaw))
        obj.lowest = floor
