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


def test_a_thing_on_something_picked_later_must_move(schemas):
    from owl_bt.state import Pose, WorldState
    from sim import catalog

    objs = {"table": catalog.table().to_state(Pose(0.55, 0.0, -0.025))}
    objs["mug"] = catalog.make("mug").to_state(Pose(0.5, 0.0, 0.045))
    objs["orange"] = catalog.make("orange").to_state(Pose(0.5, 0.0, 0.09 - 0.021 + 0.035))
    objs["fork"] = catalog.make("fork").to_state(Pose(0.5, 0.2, 0.007))
    world = WorldState(objects=objs)
    items = _items(
        ("pick", "orange"),
        ("place_ontop", "orange", "table"),
        ("pick", "mug"),
        ("place_ontop", "mug", "table"),
        ("pick", "fork"),
        ("place_inside", "fork", "mug"),
    )
    assert unrequested(items, ("fork", "mug"), [""], "table", world) == []
    assert unrequested(items, ("fork", "mug"), [""], "table") == ["orange"]
