"""Codebook helpers on a real Berry1 scene."""

from __future__ import annotations

import numpy as np
import pytest

from owl_bt.language import codebook as cb
from owl_bt.language.workspace import env_from_state
from owl_bt.state import Pose


def test_aabb_and_centre(berry_world):
    env = env_from_state(berry_world)
    lo, hi = cb.get_aabb_bounds(berry_world, env, "light_grey_region")
    assert np.allclose(np.subtract(hi, lo)[:2], (0.16, 0.16), atol=1e-6)
    assert (
        cb.get_obj_center(berry_world, env, "strawberry")
        == berry_world.get("strawberry").pose.as_tuple()
    )


def test_ontop_bounds_contain_exactly_resting_on_region(berry_world):
    env = env_from_state(berry_world)
    b = cb.modify_pose_bounds_to_be_ontop_of_object(
        berry_world, env, cb.initial_bounds(env), "strawberry", "light_grey_region"
    )
    region = berry_world.get("light_grey_region")
    top = region.aabb()[1][2]
    assert cb.position_within_bounds(Pose(region.pose.x, region.pose.y, top + 0.0235), b)
    assert not cb.position_within_bounds(
        Pose(region.pose.x + 0.1, region.pose.y, top + 0.0235), b
    )  # off the pad
    assert not cb.position_within_bounds(
        Pose(region.pose.x, region.pose.y, top + 0.2), b
    )  # hovering
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert cb.position_within_bounds(cb.sample_ravenpose_uniformly_within_bounds(b, rng), b)


def test_side_relations(berry_world):
    env = env_from_state(berry_world)
    b0 = cb.initial_bounds(env)
    left = cb.modify_pose_bounds_to_be_left_of_object(berry_world, env, b0, "light_grey_region")
    right = cb.modify_pose_bounds_to_be_right_of_object(berry_world, env, b0, "light_grey_region")
    assert left[0][1] >= 0.08 - 1e-6 and right[1][1] <= -0.08 + 1e-6
    assert left[0][0] == b0[0][0]  # the other horizontal axis is left free


def test_sampling_from_empty_bounds_names_the_axis(berry_world):
    # SoupPour's cap-sample answer: "the peach right of the apple" inside a mat whose right part the apple took
    env = env_from_state(berry_world)
    b = cb.modify_pose_bounds_to_be_ontop_of_object(
        berry_world, env, cb.initial_bounds(env), "strawberry", "light_grey_region"
    )
    lo, hi = list(b[0]), list(b[1])
    lo[1], hi[1] = hi[1] + 0.05, hi[1]  # nothing left along y
    with pytest.raises(ValueError, match=r"empty along y \(from"):
        cb.sample_ravenpose_uniformly_within_bounds(
            (tuple(lo), tuple(hi)), np.random.default_rng(0)
        )
    x, y, *_ = cb.sample_ravenpose_uniformly_within_bounds(
        b, np.random.default_rng(0)
    )  # a room left: drawn in it
    assert b[0][0] <= x <= b[1][0] and b[0][1] <= y <= b[1][1]


def _placed(*things: tuple[str, Pose]):
    """A WorldState of catalogue objects at the given poses on the table (no physics)."""
    from owl_bt.state import WorldState
    from sim import catalog

    objs = {"table": catalog.table().to_state(Pose(0.55, 0.0, -0.025))}
    for kind, pose in things:
        objs[kind] = catalog.make(kind).to_state(pose)
    return WorldState(objects=objs)


ON = """def on(name, surface):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, surface)
    return position_within_bounds(get_obj_center(state, env, name), b)

def goal_check0():
    return on("lime", "table")

def goal_check1():
    return on("lime", "plate")
"""


def test_a_thing_on_a_thin_plate_is_not_on_the_table():
    # a model's on() accepted a lime on a 1.5 cm plate as "on the table": the plate's top is within
    # the 1.5 cm a resting height may be off by
    from owl_bt.language.sandbox import CheckerSet

    plate = ("plate", Pose(0.55, 0.0, 0.0075))
    on_plate = _placed(plate, ("lime", Pose(0.55, 0.0, 0.015 + 0.025)))
    on_table = _placed(plate, ("lime", Pose(0.55, 0.25, 0.025)))
    env = env_from_state(on_plate)
    checkers = CheckerSet.compile(ON, on_plate, env)
    assert not checkers.evaluate("goal_check0", on_plate)
    assert checkers.evaluate("goal_check1", on_plate)
    assert checkers.evaluate("goal_check0", on_table)
    assert not checkers.evaluate("goal_check1", on_table)
    # a painted marker (2 mm) under it is part of the table: on the marker is on the table
    marked = _placed(("light_grey_region", Pose(0.55, 0.0, 0.001)), ("lime", Pose(0.55, 0, 0.027)))
    assert checkers.evaluate("goal_check0", marked)
    # the bounds a sampler draws from still hold the table beside the plate
    b = cb.modify_pose_bounds_to_be_ontop_of_object(
        on_plate, env, cb.initial_bounds(env), "lime", "table"
    )
    assert cb.position_within_bounds(Pose(0.55, 0.25, 0.025), b)


def _perturbed(state, name: str, dx: float, dy: float, dz: float = 0.0):
    p = state.get(name).pose
    return state.with_pose(name, Pose(p.x + dx, p.y + dy, p.z + dz, p.roll, p.pitch, p.yaw))


def test_an_orange_near_the_rim_stays_on_the_plate_under_perception_error():
    # an orange resting well inside the plate's rim (its centre RIM_MARGIN from it) is observed off by the
    # measured perception error, outwards: still on the plate; 2 cm off it is not
    from owl_bt.language.checker_helpers import PRELUDE, RIM_MARGIN
    from owl_bt.language.perception_error import PERCEPTION_ERROR
    from owl_bt.language.sandbox import CheckerSet

    x = 0.55 - (0.11 - RIM_MARGIN)  # the plate's radius is 11 cm; the rim on the robot's side
    truth = _placed(("plate", Pose(0.55, 0.0, 0.0075)), ("orange", Pose(x, 0.0, 0.015 + 0.035)))
    code = PRELUDE + '\ndef goal_check0():\n    return on("orange", "plate")\n'
    checkers = CheckerSet.compile(code, truth, env_from_state(truth))
    assert checkers.evaluate("goal_check0", truth)
    for dx, dy, dz in ((-1, 0, 0), (-0.7, 0.7, 0), (-1, 0, 1), (-1, 0, -1)):
        seen = _perturbed(truth, "orange", *(PERCEPTION_ERROR * d for d in (dx, dy, dz)))
        assert checkers.evaluate("goal_check0", seen), (dx, dy, dz)
    assert not checkers.evaluate("goal_check0", _perturbed(truth, "orange", -0.02, 0.0))


def test_a_can_in_a_bin_stays_in_under_perception_error():
    from owl_bt.language.codebook_parts import is_in_opening
    from owl_bt.language.perception_error import PERCEPTION_ERROR

    # the can 3 mm from the bin's inner wall, seen PERCEPTION_ERROR farther out
    truth = _placed(("bin", Pose(0.55, 0.0, 0.05)), ("potted_meat_can", Pose(0.55, 0.0, 0.05)))
    env = env_from_state(truth)
    x, _, r = cb.get_opening(truth, env, "bin")[:3]
    can = truth.get("potted_meat_can")
    reach = can.aabb()[1][0] - can.pose.x
    truth = truth.with_pose("potted_meat_can", Pose(x + r - 0.003 - reach, 0.0, 0.05))
    assert is_in_opening(truth, env, "potted_meat_can", "bin")
    seen = _perturbed(truth, "potted_meat_can", PERCEPTION_ERROR, 0.0)
    assert is_in_opening(seen, env, "potted_meat_can", "bin")
    assert not is_in_opening(
        _perturbed(truth, "potted_meat_can", 0.04, 0.0), env, "potted_meat_can", "bin"
    )
