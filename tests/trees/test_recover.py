"""What touches the hand at a plan's end, and the motion home that leaves it there: on the real
simulator ("put the banana and the lime into the bin", fruit_in_bin seed 2 through the OpenAI path,
ended with the banana stood on end against the open fingers and said success)."""

from __future__ import annotations

import pytest

from owl_bt.state import Pose
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import GroundedStep, Refinement
from sim import tasks
from sim.world import SimWorld
from skills.base import Move
from trees.plan import go_home
from trees.recover import leaning_on_hand


@pytest.fixture()
def bin_scene():
    world = SimWorld()
    tasks.get("fruit_in_bin").build(world, 2)
    yield world
    world.close()


def _banana_on_end_at_the_fingers(world: SimWorld):
    """The ground truth with the banana stood on end against the tool point (the arm at home)."""
    state = world.ground_truth()
    (x, y, z), _ = world.robot.tcp_pose()
    banana = state.get("banana")
    return state.with_pose("banana", Pose(x, y, z - 0.01, 0.0, 1.5708, 0.0)), banana


def test_a_thing_at_the_fingers_leans_on_the_hand_and_one_on_the_table_does_not(bin_scene):
    state = bin_scene.ground_truth()
    assert leaning_on_hand(state) == ()
    leaning, _ = _banana_on_end_at_the_fingers(bin_scene)
    assert leaning_on_hand(leaning) == ("banana",)
    # the one thing the plan ends holding is meant to be at the hand
    assert leaning_on_hand(leaning, hold="banana") == ()


def test_the_motion_home_leaves_what_the_hand_ends_touching(bin_scene):
    leaning, _ = _banana_on_end_at_the_fingers(bin_scene)
    model = PlanningModel(leaning)
    try:
        ref = Refinement(steps=[GroundedStep(None, {}, [], {}, 1)])
        go_home(model, ref)
        moves = [c for c in ref.steps[-1].commands if isinstance(c, Move)]
        assert moves, "no motion home: the banana at the fingers blocked it"
        assert moves[-1].waypoints[-1] == pytest.approx(model.robot.home)
    finally:
        model.close()
