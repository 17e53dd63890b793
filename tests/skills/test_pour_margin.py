"""A pour is accepted only when what is in the held container leaves it also at 90 % of the planned tilt:
Mug3 seed 1 planned a pour of 114° that emptied the mug in the planning model by a hair; on the arm the mug
sagged and turned a few degrees in the fingers, tipped to 108°, and the golf ball stayed in (the camera,
seeing it at the mouth, put it on the table below), twice, then the run failed. So are the step's checkers
(seed 7: a pour planned just past its "tilted past 1.2 rad" checker failed it on the arm, after the golf
ball had left). Real skills, real scene."""

from __future__ import annotations

import math

import pybullet as p

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import StepContext
from skills.registry import load_skills
from tests.support.worlds import task_state

# a grasp and pour of Mug3 seed 1's mug (drawn by the skills' own samplers) whose tilt empties it only just
GRASP = {
    "yaw": 0.6527421588292408,
    "tilt": 1.5490530670841787,
    "axis": "about",
    "offset": [0.03306497590951209, -0.015977036024612853, 0.0010552593952506495],
    "preshape": False,
}
POUR = {
    "x": 0.553947268296921,
    "y": 0.21707869937209062,
    "z": 0.09288641474029746,
    "dyaw": 0.08347618849949257,
}


def _pour(state, tilt: float, checks: tuple = ()):
    skills = load_skills()
    model = PlanningModel(state)
    try:
        pick = StepContext(next_op=GroundOp("pour", ("mug", "table")))
        assert skills["pick"].simulate(model, ("mug",), GRASP, step=pick).ok and model.carried == {
            "golf_ball": model.carried["golf_ball"]
        }
        pour = StepContext(checks=list(checks))
        out = skills["pour"].simulate(model, ("mug", "table"), {**POUR, "tilt": tilt}, step=pour)
        return out, model.contents("mug")
    finally:
        model.close()


def test_a_pour_that_empties_the_mug_only_at_its_full_tilt_is_refused():
    state = task_state("mug3", 1)
    out, _ = _pour(state, math.radians(-118))
    assert (
        not out.ok and out.reason == "golf_ball stays inside mug if it is tilted 10 % less"
    )  # full tilt: it left
    out, inside = _pour(state, math.radians(-136))  # steeper: it leaves at 122° too
    assert out.ok and inside == []


def _tilted_past(degrees: float):
    def check(state) -> bool:  # the mug's axis this far from upright
        up = p.getMatrixFromQuaternion(p.getQuaternionFromEuler(state.get("mug").pose.euler))[8]
        return math.degrees(math.acos(max(-1.0, min(1.0, up)))) > degrees

    return check


def test_a_pour_that_meets_its_checker_only_at_its_full_tilt_is_refused():
    state = task_state("mug3", 1)
    out, _ = _pour(
        state, math.radians(-136), (("tilted", _tilted_past(130)),)
    )  # 136° meets it, 122° not
    assert not out.ok and out.reason == "constraint tilted not satisfied"
    out, inside = _pour(state, math.radians(-136), (("tilted", _tilted_past(115)),))
    assert out.ok and inside == []
