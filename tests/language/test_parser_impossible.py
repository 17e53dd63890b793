"""The plan-sketch parser's honest refusal: `impossible(<reason>)` as the plan."""

from __future__ import annotations

import pytest

from owl_bt.errors import ModelAnswerError
from owl_bt.language.parser import parse_sketch
from owl_bt.tamp.operators import GroundOp

OPS = [GroundOp("pick", ("apple",)), GroundOp("place_ontop", ("apple", "plate"))]
NAMES = ["apple", "plate", "table"]


@pytest.mark.parametrize(
    "answer",
    [
        "The mug is 6 cm wide.\n\nPlan:\nimpossible(the melon is wider than the mug's opening)\n",
        "Plan:\n- `impossible(the melon is wider than the mug's opening)`\n",
        'impossible("the melon is wider than the mug\'s opening")',
    ],
)
def test_impossible_gives_the_reason_and_no_actions(answer):
    sketch = parse_sketch(answer, OPS, NAMES)
    assert sketch.impossible == "the melon is wider than the mug's opening"
    assert sketch.actions == () and sketch.text().startswith("impossible(")


def test_a_reason_with_a_description_keeps_both():
    sketch = parse_sketch(
        "Plan:\nimpossible(no lid to open); the robot has no open skill", OPS, NAMES
    )
    assert sketch.impossible == "no lid to open; the robot has no open skill"


def test_impossible_needs_a_reason():
    with pytest.raises(ModelAnswerError, match="needs a reason"):
        parse_sketch("Plan:\nimpossible()\n", OPS, NAMES)


def test_actions_and_impossible_together_are_sent_back():
    with pytest.raises(ModelAnswerError, match="either a plan or impossible"):
        parse_sketch("Plan:\npick(apple); grasp it\nimpossible(cannot)\n", OPS, NAMES)


def test_an_ordinary_plan_is_not_impossible():
    sketch = parse_sketch(
        "Plan:\npick(apple); grasp\nplace_ontop(apple, plate); set down\nachieve_goal(apple); on it",
        OPS,
        NAMES,
    )
    assert sketch.impossible == "" and len(sketch.actions) == 2
