"""Pouring on the real (simulated) arm: what the planner accepts for a pick-then-pour must also work
when the arm carries it out — SoupPour's open soup can and Mug3's mug with a golf ball in it."""

from __future__ import annotations

import math

import numpy as np

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.search import SketchItem, plan
from sim import tasks
from sim.world import SimWorld
from skills.pour import _finger_inside
from skills.registry import load_skills
from skills.sim_backend import SimArmBackend


def _inside_can(world: SimWorld) -> bool:
    """Is the soup within the can's radius of its axis and between its ends (ground truth)?"""
    can, soup = world.pose("tomato_soup_can"), world.pose("soup")
    return math.dist(can.position[:2], soup.position[:2]) < 0.033 and abs(soup.z - can.z) < 0.05


def test_the_soup_can_is_lifted_with_the_soup_still_in_it():
    # SoupPour, seed 0: grasped from above or at a slant, the Robotiq's knuckles close over the can's
    # rim and press it 6-11 mm down into the 2 mm mat. The planning model lifted it anyway; on the arm
    # it stuck there, was yanked free, and the soup flew out of the can before any pour (it was then
    # "seen" where it had been and no plan could pour it). A pick before the pour is now one whose
    # closing fingers leave the can where it stood.
    world = SimWorld()
    try:
        tasks.get("souppour").build(world, 0)
        skills = load_skills()
        items = [SketchItem(GroundOp("pick", ("tomato_soup_can",))), SketchItem(GroundOp("pour", ("tomato_soup_can", "bowl")))]
        result = plan(world.ground_truth(), skills, items, [], np.random.default_rng(0), 500, 1)
        assert result.failure is None, result.failure and result.failure.line()
        pick = result.refinement.steps[0]
        z0 = world.pose("tomato_soup_can").z
        backend = SimArmBackend(world)
        assert skills["pick"].execute(backend, pick.commands) is None
        assert backend.held == "tomato_soup_can"
        assert world.pose("tomato_soup_can").z > z0 + 0.1  # lifted as planned
        assert _inside_can(world), (world.pose("soup"), world.pose("tomato_soup_can"))
    finally:
        world.close()


def test_a_grasp_from_outside_that_leaves_room_is_not_taken_for_a_finger_inside():
    # The pads of a side grasp press into the can's thin wall; rays up the cavity took them for a
    # finger inside, and every side grasp (the only ones that leave the mouth free and do not press
    # the can into the mat) was refused before the pour. Pads that leave the soup room to pass are
    # accepted now; pads pressed in so far that the contents would catch on them are not.
    world = SimWorld()
    try:
        tasks.get("souppour").build(world, 0)
        skills = load_skills()
        model = PlanningModel(world.ground_truth())
        pick, rng, verdicts = skills["pick"], np.random.default_rng(1), []
        snap = model.snapshot()
        for _ in range(600):
            params = pick.sample(model, ("tomato_soup_can",), rng)
            if abs(params["tilt"]) > 1.2 and pick.simulate(model, ("tomato_soup_can",), params).ok:
                verdicts.append(_finger_inside(model, "tomato_soup_can"))
            model.restore(snap)
        model.close()
        assert verdicts.count(False) >= 1, verdicts
    finally:
        world.close()
