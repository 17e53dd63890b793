"""More paraphrases of the tasks' goals the offline grounder read wrong or not at all, found by trying
them through the grounder alone (relations, pronouns, colours, pouring, sequencing, quantifiers,
superlatives, what fits). Hand-written scenes (tests/test_offline.py's), no planning; each case failed
before the change it tests."""

from __future__ import annotations

import pytest

from owl_bt.errors import GroundingError
from owl_bt.language.reading import Reader
from tests.support.offline_scenes import PEAR, SCENE, goals, thing


def test_the_side_of_an_object_is_beside_it_and_intensifiers_and_either_are_read():
    """ "to the left side of the red line" was the far left of the table; "right next to" and "either" were
    unknown words; "…, in that order" was an unknown 'order'."""
    scene = [*SCENE, thing("red_line", "line", "red", 0.55, 0.0, (0.7, 0.01, 0.001), fixed=True)]
    assert goals("move the lemon to the left side of the red line", scene)[0][3] == (
        ("left_of", ("red_line",)),
    )
    assert goals("move the lemon to the right side of the line", scene)[0][3] == (
        ("right_of", ("red_line",)),
    )
    assert goals("move the lemon to the left side of the table", scene)[0][3] == (("far_left", ()),)
    assert goals("put the lemon right next to the bowl")[0][3] == (("near", ("big_bowl",)),)
    assert [g[0] for g in goals("put either citrus fruit on the plate")] == ["lemon"]
    assert [
        g[:3] for g in goals("put the apple on the plate and the lime in the bowl, in that order")
    ] == [("apple", "ontop", "plate"), ("lime", "inside", "big_bowl")]


def test_it_is_one_object():
    """mug2 in other words: "put the fork and the knife in the mug, then put it next to the mustard" took 'it'
    for the fork and the knife and took them out of the mug again."""
    assert [
        g[:4]
        for g in goals(
            "put the spoon and the strawberry in the mug, then put it next to the ketchup"
        )
    ] == [
        ("spoon", "inside", "mug", ()),
        ("strawberry", "inside", "mug", ()),
        ("mug", "ontop", "table", (("near", ("ketchup",)),)),
    ]
    assert (
        goals("put the spoon and the strawberry in the mug, then put them next to the ketchup")[-1][
            0
        ]
        == "strawberry"
    )
    with pytest.raises(
        GroundingError, match="^'it' could be the citrus fruit or the big bowl; name one$"
    ):
        goals(
            "put the citrus fruit in the bowl, then put it on the plate"
        )  # a mass noun takes 'it' too


def test_a_colour_shares_the_noun_after_it_and_the_red_one_is_one():
    """ "the yellow and the green fruit" dropped the yellow one silently; "the yellow one" asked what to move."""
    assert [g[0] for g in goals("put the yellow and the green fruit on the plate")] == [
        "lemon",
        "lime",
    ]
    assert [g[0] for g in goals("put the yellow one on the plate")] == ["lemon"]
    assert [g[0] for g in goals("put the red ones in the bowl")] == [
        "apple",
        "strawberry",
        "ketchup",
    ]
    with pytest.raises(
        GroundingError, match="'the red one' could be the apple, the strawberry or the ketchup"
    ):
        goals("put the red one in the bowl")


def test_emptying_a_can_of_soup_pours_the_can():
    """ "empty the soup can into the bowl" poured the soup with the can as its contents (the can's box held
    in the soup's)."""
    scene = [
        thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
        thing("soup_can", "tomato_soup_can", "red", 0.5, -0.2, (0.07, 0.07, 0.1)),
        thing("soup", "soup", "red", 0.5, -0.2, (0.05, 0.05, 0.03), z0=0.005),
        thing("bowl", "bowl", "red", 0.6, 0.2, (0.16, 0.16, 0.06)),
    ]
    for text in ("empty the soup can into the bowl", "pour the soup into the bowl"):
        (g,) = Reader(scene).read(text).goals
        assert (g.obj, g.how, g.support, g.contents) == ("soup_can", "pour", "bowl", ("soup",)), (
            text
        )


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


# the lime lies on the plate and the strawberry in the bowl
PLACED = [t for t in SCENE if t.name not in ("lime", "strawberry")] + [
    thing("lime", "lime", "green", 0.45, 0.15, (0.05, 0.05, 0.05), z0=0.02),
    thing("strawberry", "strawberry", "red", 0.6, 0.2, (0.03, 0.03, 0.04), z0=0.005),
]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("put the fruit on the plate in the bowl", [("lime", "inside", "big_bowl")]),
        ("move the fruit in the bowl to the plate", [("strawberry", "ontop", "plate")]),
        ("put the red fruit in the bowl on the plate", [("strawberry", "ontop", "plate")]),
        ("put the lemon in the bowl on the table", [("lemon", "inside", "big_bowl")]),
        ("take everything off the plate", [("lime", "ontop", "table")]),
        ("take the fruit out of the bowl", [("strawberry", "ontop", "table")]),
    ],
)
def test_a_place_after_a_group_says_which_of_it(text, want):
    """ "put the fruit on the plate in the bowl" put all the fruit on the plate (the bowl passed over);
    "take everything off the plate" moved what was not on it; "the red fruit in the bowl" was ambiguous."""
    assert [g[:3] for g in goals(text, PLACED)] == want


def test_two_places_that_fit_no_reading_are_refused():
    with pytest.raises(
        GroundingError, match="two places for the same objects: 'on the plate' and 'in the bowl'"
    ):
        goals("put the apple on the plate in the bowl", PLACED)


def test_pouring_from_a_named_can_making_sure_and_meat():
    """ "pour the soup from the can into the bowl" asked which can (the one the soup is in: no question);
    "making sure" and "the meat" were unknown words."""
    scene = [
        thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
        thing("soup_can", "tomato_soup_can", "red", 0.5, -0.2, (0.07, 0.07, 0.1)),
        thing("soup", "soup", "red", 0.5, -0.2, (0.05, 0.05, 0.03), z0=0.005),
        thing("meat_can", "potted_meat_can", "blue", 0.3, 0.1, (0.1, 0.06, 0.08)),
        thing("bowl", "bowl", "red", 0.6, 0.2, (0.16, 0.16, 0.06)),
    ]
    (g,) = Reader(scene).read("pour the soup from the can into the bowl").goals
    assert (g.obj, g.how, g.support, g.contents) == ("soup_can", "pour", "bowl", ("soup",))
    with pytest.raises(GroundingError, match="the soup is not in the meat can"):
        goals("pour the soup out of the meat can into the bowl", scene)
    assert goals("put the meat next to the bowl", scene)[0][:4] == (
        "meat_can",
        "ontop",
        "table",
        (("near", ("bowl",)),),
    )
    assert goals("put the strawberry into the mug, making sure the mug is upright") == [
        ("strawberry", "inside", "mug", (), False, True, False),
        ("mug", "ontop", "table", (), True, True, False),
    ]


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


def test_taking_out_emptying_and_a_place_said_before():
    """mug3 in other words: "…, but first take the ball out" passed over the ball; "empty the mug and put the
    fork in it" and "take the ball out of the mug, then put the fork in" asked "in what?"; berry1: "move the
    strawberry to the grey area" moved the region (fixed) and the strawberry to the table."""
    scene = [
        *SCENE,
        thing("ball", "golf_ball", "white", 0.7, 0.05, (0.04, 0.04, 0.04), z0=0.01),
    ]  # in the mug
    take_out = ("ball", "ontop", "table", (("off", ("mug",)),))
    assert [
        g[:4] for g in goals("put the spoon in the mug, but first take the ball out", scene)
    ] == [take_out, ("spoon", "inside", "mug", ())]
    assert [g[:4] for g in goals("take the ball out of the mug, then put the spoon in", scene)] == [
        take_out,
        ("spoon", "inside", "mug", ()),
    ]
    assert [g[:3] for g in goals("take the ball out and put it next to the ketchup", scene)] == [
        ("ball", "ontop", "table")
    ]
    assert [g[:3] for g in goals("empty the mug and put the spoon in it", scene)] == [
        ("mug", "pour", "table"),
        ("spoon", "inside", "mug"),
    ]
    region = [
        *SCENE,
        thing("grey_region", "region", "light_grey", 0.55, 0.0, (0.1, 0.1, 0.001), fixed=True),
    ]
    assert goals("move the lime to the grey area", region) == [
        ("lime", "ontop", "grey_region", (), False, True, False)
    ]


def test_later_relations_to_a_group_and_a_fixed_object_read_as_moved():
    """ "… and later return it to where it started" was one clause (the lemon on the plate where it started);
    "the lemon behind all the fruit" put it behind itself."""
    assert [
        g[:4] for g in goals("move the lemon to the plate and later return it to where it started")
    ] == [
        ("lemon", "ontop", "plate", ()),
        ("lemon", "ontop", "table", (("at_initial", ("lemon",)),)),
    ]
    assert ("behind", ("lemon",)) not in goals("put the lemon behind all the fruit")[0][3]


def test_a_named_kind_that_fits_is_what_fits():
    """ "put the biggest fruit that fits in the mug into it" put the apple in (too wide for the mug's opening):
    'fits' after a noun did not filter the noun's objects; "whichever fruit fits" took the first fruit."""
    assert goals("put the biggest fruit that fits in the mug into it")[0][:3] == (
        "lemon",
        "inside",
        "mug",
    )
    assert goals("put whichever fruit fits in the mug into it")[0][0] == "strawberry"
    assert [g[0] for g in goals("put the fruits that fit into the mug in it")] == [
        "strawberry",
        "lemon",
        "lime",
    ]
    with pytest.raises(GroundingError, match="no apple fits in the mug"):
        goals("put the apple that fits in the mug into it")


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
