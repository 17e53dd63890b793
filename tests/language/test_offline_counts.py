"""The offline grounder's quantities: counts ("two fruits", the nearest to the robot), all but n,
superlatives, both, them after a group, everything and throwing all away. Hand-written scenes, no
planning."""

from __future__ import annotations

import pytest

from owl_bt.errors import GroundingError
from owl_bt.language.offline import plan_for
from tests.support.offline_scenes import SCENE, goals, thing


def test_a_counted_step_says_how_many_were_asked_for():
    three = [t for t in SCENE if t.name != "lime"]  # apple, strawberry, lemon
    steps = [
        s.text
        for s in plan_for("put two fruits at the back of the table", three).steps
        if s.op != "pick"
    ]
    assert len(steps) == 2
    assert all(
        s.endswith(
            "(one of the 2 asked for by 'two fruits': the 2 nearest the robot of the scene's 3 fruits)"
        )
        for s in steps
    ), steps
    text = plan_for("put the biggest two fruits in the bowl", three).steps[1].text
    assert text.endswith("the 2 biggest of the scene's 3 fruits)"), text  # it said "the two"


# a tester's scene, listed as perception lists it (alphabetically): the apple and the lemon come first
# but are the farthest from the robot's base (the origin); the strawberry and the peach are the nearest
TESTER = [
    thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
    thing("apple", "apple", "red", 0.72, 0.25, (0.07, 0.07, 0.07)),
    thing("bowl", "bowl", "white", 0.55, 0.2, (0.16, 0.16, 0.06)),
    thing("lemon", "lemon", "yellow", 0.7, -0.25, (0.06, 0.05, 0.05)),
    thing("peach", "peach", "orange", 0.45, 0.05, (0.06, 0.06, 0.06)),
    thing("plate", "plate", "white", 0.55, -0.16, (0.2, 0.2, 0.02)),
    thing("potted_meat_can", "potted_meat_can", "blue", 0.6, 0.3, (0.1, 0.06, 0.08)),
    thing("strawberry", "strawberry", "red", 0.4, -0.05, (0.03, 0.03, 0.04)),
    thing("tomato_soup_can", "tomato_soup_can", "red", 0.65, 0.0, (0.07, 0.07, 0.1)),
]


def test_a_count_takes_the_nearest_the_robot_and_says_so():
    """It took the apple and the lemon, the first alphabetically, and called that "the scene's order"."""
    plan = plan_for("put two fruits on the plate", TESTER)
    moved = [s for s in plan.steps if s.op != "pick"]
    assert [s.args[0] for s in moved] == ["strawberry", "peach"]
    assert all(
        s.text.endswith(
            "(one of the 2 asked for by 'two fruits': the 2 nearest the robot of the scene's "
            "4 fruits)"
        )
        for s in moved
    ), [s.text for s in moved]
    (one,) = [s for s in plan_for("put one fruit on the plate", TESTER).steps if s.op != "pick"]
    assert one.args[0] == "strawberry"
    assert one.text.endswith(
        "(the one asked for by 'one fruit': the nearest the robot of the scene's 4 fruits)"
    ), one.text


def test_all_but_n_leaves_out_the_n_farthest_from_the_robot():
    gs = goals("move all but two fruits onto the plate")
    moved = {g[0] for g in gs}
    assert {g[2] for g in gs} == {"plate"} and len(moved) == 2
    # the four fruits by distance from the robot's base (the origin): strawberry, apple, lime, lemon
    assert moved == {"strawberry", "apple"}
    assert len(goals("move all but one of the fruits onto the plate")) == 3
    with pytest.raises(
        GroundingError, match="'all but four fruits' leaves none of the scene's 4 fruits"
    ):
        goals("move all but four fruits onto the plate")


def test_all_but_the_n_biggest_leaves_the_biggest():
    """Break-it: "all but the two biggest fruits" moved the two biggest; "all but two biggest" the others."""
    for text in (
        "put all but the two biggest fruits on the plate",
        "put all but two biggest fruits on the plate",
    ):
        assert {g[0] for g in goals(text)} == {"strawberry", "lime"}, (
            text
        )  # the apple and the lemon stay


def test_everything_but_two_fruits_is_everything_else():
    moved = {g[0] for g in goals("put everything but two fruits on the plate")}
    assert {"spoon", "ketchup"} <= moved and len(
        moved & {"apple", "strawberry", "lemon", "lime"}
    ) == 2


def test_them_after_two_objects_is_both():
    g = goals("put the lemon and the lime on the table and then put the apple near them")[-1]
    assert g[0] == "apple" and {r for _, refs in g[3] for r in refs} == {"lemon", "lime"}


def test_superlatives_of_things_and_leaving_out_the_biggest():
    """ "the biggest thing" put the plate into the bowl; "all the fruit except the biggest one" took the apple
    too, and an 'except' that named nothing was passed over."""
    assert goals("put the biggest thing in the bowl")[0][:3] == ("ketchup", "inside", "big_bowl")
    assert [g[0] for g in goals("put all the fruit in the bowl except the biggest one")] == [
        "strawberry",
        "lemon",
        "lime",
    ]
    assert [g[0] for g in goals("put all the fruit except the smallest in the bowl")] == [
        "apple",
        "lemon",
        "lime",
    ]
    assert "ketchup" not in [
        g[0] for g in goals("put everything but the tallest thing on the plate")
    ]
    with pytest.raises(GroundingError, match="leaves out no object"):
        goals("put everything except the thing over there on the plate")


BIN = [
    *SCENE,
    thing("bin", "bin", "grey", 0.3, -0.35, (0.2, 0.2, 0.2)),
    thing("fork", "fork", "silver", 0.35, 0.35, (0.18, 0.03, 0.01)),
]


def test_throwing_away_everything_or_all_but_one_and_it_inside_one_unit():
    """ "throw everything away" asked for a placement, "throw away the fruit except the apple" had an unknown
    'except'; "the fork right of the spoon and aligned with it" found no object for 'it'."""
    assert [g[0] for g in goals("throw everything away", BIN)] == [
        "apple",
        "strawberry",
        "lemon",
        "lime",
        "spoon",
        "ketchup",
        "fork",
    ]
    assert [g[:3] for g in goals("throw away the fruit except the apple", BIN)] == [
        ("strawberry", "inside", "bin"),
        ("lemon", "inside", "bin"),
        ("lime", "inside", "bin"),
    ]
    assert goals("put the fork right of the spoon and aligned with it", BIN)[0][3] == (
        ("right_of", ("spoon",)),
        ("aligned", ("spoon",)),
    )
    # in a unit of its own, 'its' is still the object placed before
    assert goals("place the strawberry to the left of the plate and the lime to its right")[1][
        3
    ] == (("right_of", ("strawberry",)),)
