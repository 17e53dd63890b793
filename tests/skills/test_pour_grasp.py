"""A grasp for a pour must leave what is inside a way out, and a step failed by its grasp tries another.

Mug3 seed 0 (UR5e, oracle, camera): a grasp from above on the mug's side put the palm and knuckles 2 cm
over two thirds of the mouth, clear of its middle. `hand_over_mouth` (one ray up the axis) and
`finger_inside` (rays up the cavity) passed it; the golf ball stayed in for 42 pours out of 42, and 125
of the pour's samples went on that grasp before the refiner tried another, whose first pour emptied the
mug. Real scene, real skills, real planning model."""

from __future__ import annotations

import numpy as np
import pytest

from owl_bt.tamp.operators import GroundOp, OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import REGRASP_AFTER, refine
from owl_bt.tamp.step_context import StepContext
from skills.base import Outcome, Skill
from skills.pour_grasp import MOUTH_COVERED, finger_inside, hand_over_mouth, mouth_passage
from skills.registry import load_skills
from tests.support.worlds import perceived_state

# (since grips close only until the fingers meet resistance, the first recorded grasp, -2.2026 yaw and -0.2797 tilt,
# leaves the mug where the old checks catch the hand; this one is found near it, fitted from a fresh model)
FROM_ABOVE = {
    "yaw": -2.528278862690762,
    "tilt": -0.4243113893042332,
    "axis": "about",
    "offset": (-0.013064559718387304, 0.0020404494252734802, 0.010285008330913177),
    "preshape": False,
}


def test_a_hand_over_part_of_the_mouth_leaves_the_ball_too_narrow_a_way_out():
    skills = load_skills()
    model = PlanningModel(perceived_state("mug3", 0))
    try:
        step = StepContext(next_op=GroundOp("pour", ("mug", "table")))
        radius = model.cavity("mug")[1]
        assert mouth_passage(model, "mug") == pytest.approx(
            2 * radius
        )  # the hand far away: the whole mouth
        assert skills["pick"].simulate(model, ("mug",), dict(FROM_ABOVE), step=step).ok
        assert not hand_over_mouth(model, "mug") and not finger_inside(
            model, "mug"
        )  # what passed it before
        ball = min(model.state().get("golf_ball").size)
        assert mouth_passage(model, "mug") < ball < 2 * radius
        why = skills["pour"].grasp_fits(model, ("mug", "table"))
        assert why == "the hand over the mouth of mug would leave golf_ball too narrow a way out", (
            why
        )
    finally:
        model.close()


class _Inspect(Skill):
    """A skill a user might add: hold o up to the camera. The first grasp it is given hides the label:
    a failure of that grasp (`Outcome.regrasp`); any other shows it."""

    schema = OperatorSchema(
        "inspect",
        (("o", "Movable"),),
        (("AtGrasp", ("o",)),),
        (("Inspected", ("o",)),),
        (),
        "inspect(o): hold o up to the camera",
    )

    def __init__(self) -> None:
        self.grasps: list = []

    def sample(self, model, args, rng, step=None) -> dict:
        return {}

    def simulate(self, model, args, params, step=None) -> Outcome:
        self.grasps.append(model.grasp)
        if model.grasp == self.grasps[0]:
            return Outcome.fail(
                f"the label of {args[0]} is under the fingers", args[0], regrasp=True
            )
        return Outcome(ok=True)


def test_a_step_failed_by_its_grasp_tries_another_grasp_after_a_few_draws(berry_world):
    skills = {**load_skills(), "inspect": _Inspect()}
    model = PlanningModel(berry_world)
    try:
        skeleton = [GroundOp("pick", ("strawberry",)), GroundOp("inspect", ("strawberry",))]
        out = refine(model, skeleton, skills, {}, [], np.random.default_rng(0), budget=500)
        assert out.failure is None, out.failure
        grasps = skills["inspect"].grasps
        assert (
            len(grasps) == REGRASP_AFTER + 1 and grasps[-1] != grasps[0]
        )  # not 125 draws (its share) at the first
    finally:
        model.close()


@pytest.mark.slow
def test_a_grasp_whose_hand_covers_the_mouth_is_refused_before_its_grip_and_only_such_a_grasp():
    """The pick before a pour asks whether the hand covers the mouth of the object where it stands,
    before the grip's 192 physics steps (105 of 404 grips in five container episodes were of such
    grasps). Every grasp so refused is one that, gripped, fails at the grip or is refused by the pour
    for the same reason."""
    skills = load_skills()
    pick, can = skills["pick"], "tomato_soup_can"
    model = PlanningModel(perceived_state("souppour", 7))
    try:
        start, rng, refused, passed = model.snapshot(), np.random.default_rng(7), 0, 0
        for _ in range(300):
            if refused >= 3 and passed >= 1:
                break
            model.restore(start)
            step = StepContext(next_op=GroundOp("pour", (can, "bowl")))
            params = pick.sample(model, (can,), rng, step=step)
            before = model.pose(can)
            out = pick.simulate(model, (can,), dict(params), step=step)
            if out.ok:
                passed += 1
                continue
            if out.reason != MOUTH_COVERED.format(can):
                continue
            refused += 1
            assert model.held is None and model.pose(can) == before  # no grip: the can never moved
            model.restore(start)
            gripped = pick.simulate(model, (can,), dict(params))  # the same grasp, gripped
            assert not gripped.ok or skills["pour"].grasp_fits(
                model, (can, "bowl")
            ) == MOUTH_COVERED.format(can)
        assert refused >= 3 and passed >= 1, (refused, passed)
    finally:
        model.close()
