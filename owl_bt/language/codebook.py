"""The helper codebook generated checker code may call. Final names and signatures.

Bounds are 6-D pose bounds `((x, y, z, roll, pitch, yaw) lower, (…) upper)`: metres and radians,
world frame. `state` is a WorldState; `env` an `Env` (the workspace). Every `modify_pose_bounds_*`
returns bounds that contain exactly the satisfying region, so a planner may sample inside them.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from owl_bt.language import codebook_args as args
from owl_bt.language import codebook_parts
from owl_bt.language.codebook_shape import get_lower_end, get_opening
from owl_bt.language.object_handle import ObjectHandle
from owl_bt.language.workspace import Env
from owl_bt.state import Pose, WorldState
from owl_bt.tamp.bounds_record import Bounds, note_centre, note_test

if TYPE_CHECKING:
    import numpy as np

_DRAWS = random.Random()  # the draws of a sampler called without a generator (seeded by the OS)
ONTOP_TOLERANCE = 0.015  # metres above resting height that still counts as "on"
# m: a thing lying on a support thinner than this (a painted marker, 2 mm) is part of the support;
# a thicker one (a plate, a cutting board, 1.5 cm) is a support of its own
LAYER_MIN = 0.005


def initial_bounds(env: Env) -> Bounds:
    """The whole workspace, any orientation: what `init_bounds` holds."""
    return (tuple(env.table_lower) + (-math.pi,) * 3, tuple(env.table_upper) + (math.pi,) * 3)


def get_aabb_bounds(state: WorldState, env: Env, name: str) -> Bounds:
    """(lower xyz, upper xyz) of the object's axis-aligned box, world frame; raises UnknownObjectError."""
    name = args.name("get_aabb_bounds", name)
    lo, hi = state.get(name).aabb()
    return (tuple(lo), tuple(hi))


def get_obj_center(state: WorldState, env: Env, name: str) -> tuple[float, ...]:
    """The object's pose (x, y, z, roll, pitch, yaw)."""
    name = args.name("get_obj_center", name)
    pose = state.get(name).pose.as_tuple()
    note_centre(name, pose)
    return pose


def _with(bounds: Bounds, axis: int, lo: float, hi: float) -> Bounds:
    lower, upper = list(bounds[0]), list(bounds[1])
    lower[axis] = max(lower[axis], lo)
    upper[axis] = min(upper[axis], hi)
    return (tuple(lower), tuple(upper))


def initialize_bounds_anywhere_on_object(state: WorldState, env: Env, name: str) -> Bounds:
    """Poses whose position lies over the object's top face (x, y in its box, z from its top up to
    0.3 m above), any rotation."""
    name = args.name("initialize_bounds_anywhere_on_object", name)
    lo, hi = state.get(name).aabb()
    return (
        (lo[0], lo[1], hi[2], -math.pi, -math.pi, -math.pi),
        (hi[0], hi[1], hi[2] + 0.3, math.pi, math.pi, math.pi),
    )


def modify_pose_bounds_to_be_left_of_object(
    state: WorldState, env: Env, bounds: Bounds, name: str
) -> Bounds:
    """Keep the half-space left of the object (larger y, seen from the robot); x is left free."""
    bounds = args.bounds("modify_pose_bounds_to_be_left_of_object", bounds)
    name = args.name("modify_pose_bounds_to_be_left_of_object", name)
    return _with(bounds, 1, state.get(name).aabb()[1][1], math.inf)


def modify_pose_bounds_to_be_right_of_object(
    state: WorldState, env: Env, bounds: Bounds, name: str
) -> Bounds:
    """Keep the half-space right of the object (smaller y, seen from the robot); x is left free."""
    bounds = args.bounds("modify_pose_bounds_to_be_right_of_object", bounds)
    name = args.name("modify_pose_bounds_to_be_right_of_object", name)
    return _with(bounds, 1, -math.inf, state.get(name).aabb()[0][1])


def modify_pose_bounds_to_be_behind_object(
    state: WorldState, env: Env, bounds: Bounds, name: str
) -> Bounds:
    """Keep the half-space behind the object (farther from the robot, larger x); y is left free."""
    bounds = args.bounds("modify_pose_bounds_to_be_behind_object", bounds)
    name = args.name("modify_pose_bounds_to_be_behind_object", name)
    return _with(bounds, 0, state.get(name).aabb()[1][0], math.inf)


def modify_pose_bounds_to_be_in_front_of_object(
    state: WorldState, env: Env, bounds: Bounds, name: str
) -> Bounds:
    """Keep the half-space in front of the object (nearer the robot, smaller x); y is left free."""
    bounds = args.bounds("modify_pose_bounds_to_be_in_front_of_object", bounds)
    name = args.name("modify_pose_bounds_to_be_in_front_of_object", name)
    return _with(bounds, 0, -math.inf, state.get(name).aabb()[0][0])


def modify_pose_bounds_to_be_above_object(
    state: WorldState, env: Env, bounds: Bounds, name: str
) -> Bounds:
    """Directly above the object: x, y within its box, z above its top."""
    bounds = args.bounds("modify_pose_bounds_to_be_above_object", bounds)
    name = args.name("modify_pose_bounds_to_be_above_object", name)
    lo, hi = state.get(name).aabb()
    b = _with(_with(bounds, 0, lo[0], hi[0]), 1, lo[1], hi[1])
    return _with(b, 2, hi[2], math.inf)


def modify_pose_bounds_to_be_below_object(
    state: WorldState, env: Env, bounds: Bounds, name: str
) -> Bounds:
    """Directly below the object: x, y within its box, z below its bottom."""
    bounds = args.bounds("modify_pose_bounds_to_be_below_object", bounds)
    name = args.name("modify_pose_bounds_to_be_below_object", name)
    lo, hi = state.get(name).aabb()
    b = _with(_with(bounds, 0, lo[0], hi[0]), 1, lo[1], hi[1])
    return _with(b, 2, -math.inf, lo[2])


def modify_pose_bounds_to_be_near_object(
    state: WorldState, env: Env, bounds: Bounds, name: str, closeness_thresh: float = 0.1
) -> Bounds:
    """Within closeness_thresh (m, per axis in x and y) of the object's box."""
    bounds = args.bounds("modify_pose_bounds_to_be_near_object", bounds)
    name = args.name("modify_pose_bounds_to_be_near_object", name)
    closeness_thresh = args.number("modify_pose_bounds_to_be_near_object", closeness_thresh)
    lo, hi = state.get(name).aabb()
    b = _with(bounds, 0, lo[0] - closeness_thresh, hi[0] + closeness_thresh)
    return _with(b, 1, lo[1] - closeness_thresh, hi[1] + closeness_thresh)


def modify_pose_bounds_to_be_ontop_of_object(
    state: WorldState, env: Env, bounds: Bounds, obj1: str, obj2: str
) -> Bounds:
    """obj1's centre over obj2's box in x, y, and at resting height on obj2's top (z from the top
    to obj1's half height + 1.5 cm above it). Works for surfaces and flat regions. A thing resting
    on something else lying on obj2 (a lime on a plate on the table) is not on obj2: when another
    object at least 5 mm thick lies between them under obj1's centre, z stops below the height obj1
    has resting on that object."""
    bounds = args.bounds("modify_pose_bounds_to_be_ontop_of_object", bounds)
    obj1 = args.name("modify_pose_bounds_to_be_ontop_of_object", obj1)
    obj2 = args.name("modify_pose_bounds_to_be_ontop_of_object", obj2)
    lo, hi = state.get(obj2).aabb()
    o1 = state.get(obj1)
    olo, ohi = o1.aabb()
    half = (ohi[2] - olo[2]) / 2
    b = _with(_with(bounds, 0, lo[0], hi[0]), 1, lo[1], hi[1])
    top = hi[2] + half + ONTOP_TOLERANCE
    layer = _layer_between(state, obj1, obj2)
    if layer is not None:  # resting on it, obj1's centre is `layer` m higher than on obj2
        top = min(top, hi[2] + (o1.pose.z - olo[2]) + layer / 2)
    return _with(b, 2, hi[2], top)


def _layer_between(state: WorldState, obj1: str, obj2: str) -> float | None:
    """How far above obj2's top the lowest other object under obj1's centre reaches (m) — one at
    least LAYER_MIN thick that obj1 may rest on (its top not above obj1's bottom + 1.5 cm); None
    when there is none."""
    o1 = state.get(obj1)
    x, y = o1.pose.x, o1.pose.y
    bottom = o1.aabb()[0][2]
    support_top = state.get(obj2).aabb()[1][2]
    found = None
    for name, other in state.objects.items():
        if name in (obj1, obj2):
            continue
        if not other.over_footprint(x, y):
            continue
        rise = other.aabb()[1][2] - support_top
        if LAYER_MIN <= rise and support_top + rise <= bottom + ONTOP_TOLERANCE:
            found = rise if found is None else min(found, rise)
    return found


def modify_pose_bounds_to_be_inside_object(
    state: WorldState, env: Env, bounds: Bounds, obj1: str, obj2: str
) -> Bounds:
    """obj1's centre within the container obj2's box in x, y, and low enough that obj1's bottom is at
    least 1 cm below the rim (a tall can in a shallow pan has its centre above the rim); for the
    footprint within the opening too, use is_in_opening."""
    bounds = args.bounds("modify_pose_bounds_to_be_inside_object", bounds)
    obj1 = args.name("modify_pose_bounds_to_be_inside_object", obj1)
    obj2 = args.name("modify_pose_bounds_to_be_inside_object", obj2)
    lo, hi = state.get(obj2).aabb()
    o1 = state.get(obj1)
    up = o1.pose.z - o1.aabb()[0][2]  # obj1's centre above its bottom, m
    b = _with(_with(bounds, 0, lo[0], hi[0]), 1, lo[1], hi[1])
    return _with(b, 2, lo[2], max(hi[2], hi[2] - 0.01 + up))


def position_within_bounds(pose: tuple[float, ...] | Pose, bounds: Bounds) -> bool:
    """Is the xyz part of a 6-D pose (or an (x, y, z) position) inside bounds (inclusive)? Raises
    TypeError when the pose is not 3 or 6 finite numbers or the bounds not two 3- or 6-vectors."""
    given = pose
    pose = args.pose("position_within_bounds", pose, (3, 6))
    bounds = args.bounds("position_within_bounds", bounds)
    note_test(given, bounds)
    return all(bounds[0][i] <= pose[i] <= bounds[1][i] for i in range(3))


def sample_ravenpose_uniformly_within_bounds(
    bounds: Bounds, rng: np.random.Generator | random.Random | None = None
) -> tuple[float, ...]:
    """A 6-D pose (x, y, z m; roll, pitch, yaw rad; world frame) drawn uniformly from bounds (infinite
    sides are clipped to ±10 m / ±π). Raises ValueError naming the axis when the bounds are empty
    along one (two modify_pose_bounds_* calls that leave no room: numpy said only "high - low < 0")."""
    bounds = args.bounds("sample_ravenpose_uniformly_within_bounds", bounds, (6,))
    rng = rng or _DRAWS
    lims = [10.0, 10.0, 10.0, math.pi, math.pi, math.pi]
    for axis, lo, hi in zip(
        ("x", "y", "z", "roll", "pitch", "yaw"), bounds[0], bounds[1], strict=True
    ):
        if lo > hi:
            raise ValueError(
                f"the bounds are empty along {axis} (from {lo:.3f} to {hi:.3f}): the constraints that made "
                "them leave no room; loosen one"
            )
    return tuple(
        float(rng.uniform(max(lo, -lim), min(hi, lim)))
        for lo, hi, lim in zip(bounds[0], bounds[1], lims, strict=True)
    )


def modify_obj_pose(obj: object, new_pose: tuple[float, ...]) -> object:
    """A copy of an object handle at new_pose (planning model only; the scene is not changed)."""
    if not isinstance(obj, ObjectHandle):
        raise TypeError("modify_obj_pose takes an object handle")
    return obj.at(Pose.from_seq(args.pose("modify_obj_pose", new_pose, (3, 6))))


HELPERS = {
    f.__name__: f
    for f in (
        get_aabb_bounds,
        get_obj_center,
        get_lower_end,
        get_opening,
        initialize_bounds_anywhere_on_object,
        modify_pose_bounds_to_be_left_of_object,
        modify_pose_bounds_to_be_right_of_object,
        modify_pose_bounds_to_be_behind_object,
        modify_pose_bounds_to_be_in_front_of_object,
        modify_pose_bounds_to_be_above_object,
        modify_pose_bounds_to_be_below_object,
        modify_pose_bounds_to_be_near_object,
        modify_pose_bounds_to_be_ontop_of_object,
        modify_pose_bounds_to_be_inside_object,
        position_within_bounds,
        sample_ravenpose_uniformly_within_bounds,
        modify_obj_pose,
    )
}
HELPERS.update(codebook_parts.HELPERS)  # orientation, parts of objects, inside by the opening
