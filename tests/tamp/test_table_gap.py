"""Set down on the table, an object comes to rest at least 1 cm from other movable things (UR5e Mug2
seed 4: a mug put down 1 mm from a knife's tip had the knife's end under its base on the arm, and
lifting the knife later tipped the mug and threw out the fork in it). Real pybullet, real skills."""

from __future__ import annotations

import numpy as np

from owl_bt.tamp.planning_model import PlanningModel
from tests.support.worlds import world_with

KNIFE = (0.45, 0.15, 0.01)  # lying along x: its tips at x ≈ 0.355 and 0.545


def _holding_the_mug(skills) -> PlanningModel:
    world = world_with(("mug", (0.40, -0.20, 0.0)), ("knife", KNIFE))
    try:
        model = PlanningModel(world.ground_truth())
    finally:
        world.close()
    rng = np.random.default_rng(0)
    for _ in range(200):
        params = skills["pick"].sample(model, ("mug",), rng)
        before = model.snapshot()
        if skills["pick"].simulate(model, ("mug",), params).ok:
            model.drop_snapshot(before)
            return model
        model.restore(before)
        model.drop_snapshot(before)
    raise AssertionError("no grasp of the upright mug in 200 samples")


def _put_down(skills, model: PlanningModel, x: float, y: float):
    return skills["place_ontop"].simulate(
        model, ("mug", "table"), {"face": 0, "dyaw": 0.0, "clearance": 0.004, "x": x, "y": y}
    )


def test_a_mug_set_down_against_a_knifes_tip_is_refused_and_one_clear_of_it_is_not(skills):
    model = _holding_the_mug(skills)
    try:
        # the mug's wall 3.6 cm from its axis: 4 mm from the knife's tip, then 4 cm clear of it
        near = _put_down(skills, model, 0.545 + 0.036 + 0.004, 0.15)
        assert not near.ok and "less than 1 cm from knife" in near.reason, near.reason
        clear = _put_down(skills, model, 0.545 + 0.036 + 0.04, 0.15)
        assert clear.ok, clear.reason
    finally:
        model.close()
