"""The offline grounder's reading of instructions (SPEC §3; issue 4 widens its vocabulary)."""

from __future__ import annotations

import pytest

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language.offline import Clause, SceneObject, ground

SCENE = [SceneObject("apple", "apple", "red"), SceneObject("strawberry", "strawberry", "red"),
         SceneObject("red_bowl", "bowl", "red"), SceneObject("table", "table", "brown")]


def test_every_object_named_before_the_relation_moves():
    assert ground("put the apple and the strawberry into the bowl", SCENE) == [
        Clause("apple", "inside", "red_bowl"), Clause("strawberry", "inside", "red_bowl")]


def test_a_category_names_all_its_members():
    assert {c.moved for c in ground("put the fruit in the bowl", SCENE)} == {"apple", "strawberry"}


def test_what_it_cannot_ground_is_named_not_guessed():
    with pytest.raises(UnknownObjectError):
        ground("put the banana in the bowl", SCENE)
    with pytest.raises(GroundingError, match="'sandwich'"):
        ground("make me a sandwich", SCENE)
