"""A monitor failure names what a failed checker stands for (its sketch line), not only its name:
"action_check1 no longer holds" told the user nothing (break-it, Mug3's pour)."""

from __future__ import annotations

from types import SimpleNamespace

from owl_bt.language.parser import parse_sketch
from owl_bt.tamp.operators import GroundOp
from trees.execute import checker_meaning

OPS = [GroundOp("pick", ("mug",)), GroundOp("pour", ("mug", "table")), GroundOp("place_ontop", ("mug", "table"))]
SKETCH = parse_sketch("Plan:\npick(mug); grasp the mug\npour(mug, table); tip it so the golf ball rolls out\n"
                      "place_ontop(mug, table)\nachieve_goal(mug, golf_ball); the ball out of the mug\n",
                      OPS, ["mug", "table", "golf_ball"])


def test_an_action_checker_is_told_by_its_sketch_line() -> None:
    constraints = SimpleNamespace(sketch=SKETCH)
    assert checker_meaning(constraints, "action_check1") == "pour(mug, table): tip it so the golf ball rolls out"
    assert checker_meaning(constraints, "goal_check0") == "the goal: the ball out of the mug"


def test_without_a_line_that_says_it_the_name_stands_alone() -> None:
    constraints = SimpleNamespace(sketch=SKETCH)
    assert checker_meaning(constraints, "action_check2") == ""  # its line has no description
    assert checker_meaning(constraints, "action_check9") == ""  # no such action
    assert checker_meaning(constraints, "in_mug") == ""  # a helper, not a numbered checker
    assert checker_meaning(None, "action_check1") == ""
