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
