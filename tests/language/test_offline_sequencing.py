"""The offline grounder's order words: before, after, once, first, last, at the end, a destination said
once for two steps, and leaving a thing there. Hand-written scenes, no planning."""

from __future__ import annotations

import pytest

from owl_bt.errors import GroundingError
from tests.support.offline_scenes import PEAR, SCENE, goals, thing


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("once the pear is in the bowl, put the apple in the bowl", ["pear", "apple"]),
        ("put the apple in the bowl when the pear is in the bowl", ["pear", "apple"]),
        ("put the apple in the bowl, and the pear before it", ["pear", "apple"]),
        ("put the apple in the bowl and the pear after it", ["apple", "pear"]),
        ("put the apple in the bowl after putting the pear there", ["pear", "apple"]),
        ("put the pear in the bowl, then put the apple there", ["pear", "apple"]),
    ],
)
def test_once_when_before_it_and_there(text, order):
    """'once' was an unknown word and 'when' a filler (the apple went first); "the pear before it" came
    after; "after putting the pear there" put the pear on the table."""
    assert [g[:3] for g in goals(text, PEAR)] == [(x, "inside", "big_bowl") for x in order]


def test_leave_it_there_keeps_the_placement_and_there_with_no_place_asks():
    """ "… and leave it there" took the pear out of the bowl onto the table; "put the lime there" put it on the table."""
    assert goals("put the pear in the bowl and leave it there", PEAR) == [
        ("pear", "inside", "big_bowl", (), False, True, False)
    ]
    with pytest.raises(GroundingError, match="'there' is where?"):
        goals("put the lime there")


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("put the apple on the plate last and the lemon first", ["lemon", "apple"]),
        ("put the apple and the lemon on the plate, the apple last", ["lemon", "apple"]),
        ("put the apple on the plate, and then, after that, the lemon", ["apple", "lemon"]),
        ("put the apple and the lemon on the plate one at a time", ["apple", "lemon"]),
    ],
)
def test_first_and_last_inside_one_clause(text, order):
    """'first'/'last' on one object of a clause were passed over; "and then, after that, …" left an empty
    clause ("cannot tell what to move in ''"); "one at a time" was an unknown 'time'."""
    assert [g[:3] for g in goals(text)] == [(x, "ontop", "plate") for x in order]


@pytest.mark.parametrize(
    "text",
    ["put the apple and then the lemon on the plate", "put the apple, then the lemon on the plate"],
)
def test_a_destination_said_once_for_two_steps(text):
    """ "put the apple and then the lemon on the plate" put the apple on the table (its clause ended at 'then'
    with no place); "move the apple and then put the lemon in the bowl" asks where the apple goes."""
    assert [g[:3] for g in goals(text)] == [
        ("apple", "ontop", "plate"),
        ("lemon", "ontop", "plate"),
    ]
    with pytest.raises(
        GroundingError, match="^where should the apple go\\? 'move the apple' says no place"
    ):
        goals(
            "move the apple and then put the lemon in the bowl"
        )  # no place for the apple: asked, not the table


def test_before_that_at_the_end_and_a_bare_phrase_with_nothing_to_share():
    """berrycook in other words: "put the strawberry in the bowl, but it should be in the pan before that" gave
    two places for one object; "first the pan, then the bowl: move the strawberry" moved the pan and the bowl
    onto the table (a bare phrase was a placement on the table)."""
    scene = [*SCENE, thing("pan", "skillet", "black", 0.3, 0.25, (0.25, 0.2, 0.05))]
    for text in (
        "put the strawberry in the bowl, but it should be in the pan before that",
        "put the strawberry in the bowl, and in the pan before that",
    ):
        assert [g[:3] + g[5:6] for g in goals(text, scene)] == [
            ("strawberry", "inside", "pan", False),
            ("strawberry", "inside", "big_bowl", True),
        ], text
    with pytest.raises(GroundingError, match="what should happen to 'first the pan'"):
        goals("first the pan, then the bowl: move the strawberry", scene)
