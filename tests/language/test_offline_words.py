"""The offline grounder's words for things: names, shapes of flat markers, colours shared by nouns,
"it", a kind that fits, and "did you mean" only for a slip. Hand-written scenes, no planning."""

from __future__ import annotations

import pytest

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language.suggest import did_you_mean
from tests.support.offline_scenes import SCENE, goals, thing

REGION = thing(
    "light_grey_region", "region", "light_grey", 0.55, 0.0, (0.16, 0.16, 0.002), fixed=True
)


MAT = thing("white_mat", "mat", "white", 0.35, -0.05, (0.14, 0.2, 0.005), fixed=True)


@pytest.mark.parametrize(
    "text",
    [
        "place the strawberry on the grey square in the middle",
        "put the strawberry on the grey pad",
        "put the strawberry on the light grey tile",
        "put the strawberry on the grey marker",
        "put the strawberry on the grey spot",
        "put the strawberry onto the square",
        "put the strawberry on the grey rectangle",
    ],
)
def test_a_flat_marker_may_be_named_by_its_shape(text):
    assert goals(text, [*SCENE, REGION])[0][:3] == ("strawberry", "ontop", "light_grey_region")


def test_shape_words_name_the_marker_of_that_colour_and_are_absent_without_one():
    scene_ = [*SCENE, REGION, MAT]
    assert goals("put the apple on the white square", scene_)[0][:3] == (
        "apple",
        "ontop",
        "white_mat",
    )
    assert goals("put the apple on the grey square", scene_)[0][:3] == (
        "apple",
        "ontop",
        "light_grey_region",
    )
    with pytest.raises(UnknownObjectError, match="^there is no 'square' in the scene"):
        goals("put the apple on the square")


def test_a_suggestion_is_a_word_close_enough_to_be_a_slip():
    """'square' got "sure" (two slips in six letters, and a little word no one would have meant)."""
    assert did_you_mean("secure", ["apple", "plate"]) == []  # two slips from "sure"
    assert did_you_mean("sqaure", ["apple", "plate"]) == ["square"]
    assert did_you_mean("straberyy", ["strawberry", "plate"]) == [
        "strawberry"
    ]  # two slips in nine letters: the scene's
    with pytest.raises(GroundingError, match="did not understand: 'secure'; "):
        goals("put the apple on the plate secure")


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
