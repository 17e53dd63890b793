"""A pour replanned with the container still in the hand, tipped by the pour before (SoupPour seed 0:
the soup stayed in the upturned can): the tilts drawn are turns from where it is now, so a small
one must be possible — every draw of 100–180 degrees from upside down brought its mouth up again
and all 500 samples failed 'not tilted far enough'. Real pybullet planning model."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from owl_bt.tamp.planning_model import PlanningModel
from sim import catalog
from sim.world import SimWorld
from skills.pour import MIN_MOUTH_DOWN, PourSkill
from skills.pour_grasp import tilted


def _tipped_mug_with_a_ball(roll: float):
    world = SimWorld()
    try:
        world.add(catalog.make("mug"), Pose(0.5, 0.1, 0.25, roll, 0.0, 0.0))
        world.add(catalog.make("golf_ball"), Pose(0.5, 0.1, 0.25))
        return world.ground_truth()  # as seen mid-pour: no settling
    finally:
        world.close()


def test_a_container_held_tipped_may_be_turned_a_little():
    least = math.acos(-MIN_MOUTH_DOWN)
    for roll, small_ok in ((2.6, True), (0.0, False)):
        model = PlanningModel(_tipped_mug_with_a_ball(roll))
        try:
            assert model.contents("mug") == ["golf_ball"]
            rng = np.random.default_rng(0)
            tilts = [PourSkill._tilt(model, "mug", rng) for _ in range(200)]
        finally:
            model.close()
        assert any(abs(t) < least for t in tilts) is small_ok, roll


def test_a_pour_drawn_for_a_container_held_tipped_ends_with_its_mouth_down():
    """A Mug3 replan (the mug held tipped, the ball still in it) spent 275 of its 500 pours on turns that
    brought the mouth up again ("mug is not tilted far enough to empty it"): the sampler draws turns
    that end with the mouth below the horizon."""
    model = PlanningModel(_tipped_mug_with_a_ball(2.0))
    try:
        rng = np.random.default_rng(0)
        pose = model.state().get("mug").pose
        ends = [
            p.getMatrixFromQuaternion(tilted(pose, d["dyaw"], d["tilt"]))[8]
            for d in (PourSkill().sample(model, ("mug", "table"), rng) for _ in range(60))
        ]
    finally:
        model.close()
    assert sum(z <= -MIN_MOUTH_DOWN for z in ends) >= 57, ends
