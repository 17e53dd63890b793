"""Codebook helpers for orientation, parts and inside-by-the-opening, on states of catalogue objects
(the planner's and perception's WorldState), and reachable from checker code in the sandbox."""

from __future__ import annotations

import math

import pytest

from owl_bt.language.codebook import HELPERS
from owl_bt.language.codebook_parts import (
    get_bounds_around_point,
    get_end_direction,
    get_long_axis_yaw,
    get_part_bounds,
    is_in_opening,
    is_on_side,
    is_parallel,
    is_straight,
    is_upright,
    is_upside_down,
    points_towards,
)
from owl_bt.language.codebook_shape import get_opening
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state
from owl_bt.state import Pose, WorldState
from sim import catalog


def _state(*placed: tuple[str, Pose]) -> WorldState:
    objs = {"table": catalog.table().to_state(Pose(0.55, 0.0, -0.025))}
    for kind, pose in placed:
        objs[kind] = catalog.make(kind).to_state(pose)
    return WorldState(objects=objs)


def test_a_fork_with_tines_away_is_straight_and_points_forward():
    s = _state(("fork", Pose(0.5, 0.1, 0.007)), ("knife", Pose(0.5, -0.1, 0.008, yaw=math.pi)))
    env = env_from_state(s)
    assert is_straight(s, env, "fork") and is_parallel(s, env, "fork", "knife")
    assert get_end_direction(s, env, "fork", "tines")[0] > 0.99
    assert points_towards(s, env, "fork", "front", (1, 0, 0))
    assert points_towards(s, env, "knife", "blade", (-1, 0, 0))  # turned round: blade to the robot
    assert points_towards(s, env, "knife", "handle", (1, 0, 0))


def test_a_fork_across_is_not_straight():
    s = _state(("fork", Pose(0.5, 0.1, 0.007, yaw=math.pi / 2)))
    env = env_from_state(s)
    assert abs(abs(get_long_axis_yaw(s, env, "fork")) - math.pi / 2) < 1e-6
    assert not is_straight(s, env, "fork")


def test_tines_up():
    s = _state(("fork", Pose(0.5, 0.1, 0.09, pitch=-math.pi / 2)))
    env = env_from_state(s)
    assert get_end_direction(s, env, "fork", "tines")[2] > 0.99
    with pytest.raises(ValueError, match="its ends: tines, handle"):
        get_end_direction(s, env, "fork", "blade")


def test_upright_upside_down_on_side():
    env = None
    up = _state(("mug", Pose(0.5, 0.0, 0.045)))
    down = _state(("mug", Pose(0.5, 0.0, 0.045, roll=math.pi)))
    side = _state(("mug", Pose(0.5, 0.0, 0.036, roll=math.pi / 2)))
    assert is_upright(up, env, "mug") and not is_upside_down(up, env, "mug")
    assert is_upside_down(down, env, "mug") and not is_upright(down, env, "mug")
    assert is_on_side(side, env, "mug") and not is_upright(side, env, "mug")


def test_parts_of_a_pan_opening_and_a_point():
    s = _state(("skillet", Pose(0.55, 0.0, 0.02)))
    env = env_from_state(s)
    x, y, r, floor, _ = get_opening(s, env, "skillet")  # (the handle makes the box longer than it)
    lo, hi = get_part_bounds(s, env, "skillet", "front")
    assert (lo[0], hi[0], lo[2]) == pytest.approx((x - r, x, floor))  # the half nearer the robot
    lo, hi = get_part_bounds(s, env, "skillet", "back_left")
    assert (lo[0], hi[0], lo[1], hi[1]) == pytest.approx((x, x + r, y, y + r))
    lo, hi = get_bounds_around_point(s, env, (0.4, 0.2), 0.02)
    assert (lo[0], hi[0], lo[1], hi[1]) == pytest.approx((0.38, 0.42, 0.18, 0.22))
    with pytest.raises(ValueError, match="part must be one of"):
        get_part_bounds(s, env, "skillet", "top")


def test_a_tall_can_in_a_shallow_pan_is_inside_by_its_opening():
    pan = ("skillet", Pose(0.55, 0.0, 0.02))
    x = get_opening(_state(pan), None, "skillet")[0]
    s = _state(pan, ("potted_meat_can", Pose(x, 0.0, 0.012 + 0.0415)))
    env = env_from_state(s)
    assert s.get("potted_meat_can").pose.z > s.get("skillet").aabb()[1][2]  # centre above the rim
    assert is_in_opening(s, env, "potted_meat_can", "skillet")
    across = _state(pan, ("fork", Pose(x, 0.15, 0.047)))  # lying on the rim, off the opening
    assert not is_in_opening(across, env, "fork", "skillet")
    beside = _state(pan, ("potted_meat_can", Pose(x, 0.2, 0.0415)))
    assert not is_in_opening(beside, env, "potted_meat_can", "skillet")


def test_the_helpers_are_callable_from_checker_code():
    s = _state(("fork", Pose(0.5, 0.1, 0.007)), ("plate", Pose(0.5, -0.1, 0.0075)))
    assert {"is_straight", "points_towards", "get_part_bounds", "is_in_opening"} <= set(HELPERS)
    code = (
        "def goal_check0():\n"
        "    b = get_part_bounds(state, env, 'plate', 'left')\n"
        "    return is_straight(state, env, 'fork') and points_towards(state, env, 'fork', 'tines', (1, 0, 0))\n"
    )
    checkers = CheckerSet.compile(code, s, env_from_state(s))
    assert checkers.evaluate("goal_check0", s)


def test_nothing_is_in_a_container_lying_tipped_over():
    mug = ("mug", Pose(0.5, 0.0, 0.036, roll=math.pi / 2))
    s = _state(mug, ("lime", Pose(0.5, 0.0, 0.03)))
    assert not is_in_opening(s, env_from_state(s), "lime", "mug")
