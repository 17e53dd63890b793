"""No unrequested moves: which sketch moves the goal does not ask for, and the sketch without them."""

from __future__ import annotations

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.search import SketchItem
from owl_bt.tamp.sparing import spared, unrequested


def _items(*ops: tuple[str, ...]) -> list[SketchItem]:
    return [SketchItem(GroundOp(op[0], op[1:])) for op in ops]


CLEAR_THEN_PLACE = _items(
    ("pick", "lemon"),
    ("place_ontop", "lemon", "table"),
    ("pick", "strawberry"),
    ("place_ontop", "strawberry", "plate"),
)


def test_moving_an_unnamed_thing_to_the_table_is_unrequested():
    src = ["def goal_check0():\n    return on('strawberry', 'plate')"]
    assert unrequested(CLEAR_THEN_PLACE, ("strawberry", "plate"), src, "table") == ["lemon"]
    left = spared(CLEAR_THEN_PLACE, ["lemon"])
    assert [str(it.op) for it in left] == ["pick(strawberry)", "place_ontop(strawberry, plate)"]


def test_a_thing_the_goal_checkers_name_is_requested():
    src = ["def goal_check0():\n    return on('strawberry', 'plate') and not on('lemon', 'plate')"]
    assert unrequested(CLEAR_THEN_PLACE, ("strawberry", "plate"), src, "table") == []


def test_a_move_somewhere_other_than_the_table_is_requested():
    items = _items(("pick", "lemon"), ("place_inside", "lemon", "bowl"))
    assert unrequested(items, ("bowl",), [""], "table") == []


def test_a_name_inside_another_word_does_not_count():
    src = ["def goal_check0():\n    return on('lemon_2', 'plate')"]
    assert unrequested(CLEAR_THEN_PLACE, ("strawberry",), src, "table") == ["lemon"]
