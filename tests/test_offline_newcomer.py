"""A newcomer's findings on the offline grounder: a flat marker named by its shape ("the grey square") was
an unknown word with a useless "did you mean \"sure\"?"; "behind the bowl" held for a mug 8 cm off to the
bowl's side (the side() strip reached 15 cm past its edge); a counted step's note read "2 of the 3 asked
for by 'two fruits'", as if 3 were asked for. Hand-written scenes (none is a benchmark task)."""

from __future__ import annotations

import pytest
from test_offline import SCENE, goals, thing

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language.suggest import did_you_mean

REGION = thing("light_grey_region", "region", "light_grey", 0.55, 0.0, (0.16, 0.16, 0.002), fixed=True)
MAT = thing("white_mat", "mat", "white", 0.35, -0.05, (0.14, 0.2, 0.005), fixed=True)


@pytest.mark.parametrize("text", [
    "place the strawberry on the grey square in the middle", "put the strawberry on the grey pad",
    "put the strawberry on the light grey tile", "put the strawberry on the grey marker",
    "put the strawberry on the grey spot", "put the strawberry onto the square", "put the strawberry on the grey rectangle"])
def test_a_flat_marker_may_be_named_by_its_shape(text):
    assert goals(text, [*SCENE, REGION])[0][:3] == ("strawberry", "ontop", "light_grey_region")


def test_shape_words_name_the_marker_of_that_colour_and_are_absent_without_one():
    scene_ = [*SCENE, REGION, MAT]
    assert goals("put the apple on the white square", scene_)[0][:3] == ("apple", "ontop", "white_mat")
    assert goals("put the apple on the grey square", scene_)[0][:3] == ("apple", "ontop", "light_grey_region")
    with pytest.raises(UnknownObjectError, match="^there is no 'square' in the scene"):
        goals("put the apple on the square")


def test_a_suggestion_is_a_word_close_enough_to_be_a_slip():
    """'square' got "sure" (two slips in six letters, and a little word no one would have meant)."""
    assert did_you_mean("secure", ["apple", "plate"]) == []  # two slips from "sure"
    assert did_you_mean("sqaure", ["apple", "plate"]) == ["square"]
    assert did_you_mean("straberyy", ["strawberry", "plate"]) == ["strawberry"]  # two slips in nine letters: the scene's
    with pytest.raises(GroundingError, match="did not understand: 'secure'; "):
        goals("put the apple on the plate secure")
