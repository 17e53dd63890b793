"""The faces a thing may be set down on: never stood on end on a surface (a knife on its handle, a
banana on its stem, a board on its edge), any face into a container; a bottle standing is its own pose."""

from __future__ import annotations

import pytest

from owl_bt.state import Pose
from sim import catalog
from skills.place import PlaceInsideSkill, PlaceOntopSkill
from skills.place_geometry import FACES, stands_on_end


def _state(kind: str):
    return catalog.make(kind, kind).to_state(Pose(0.5, 0.0, 0.05))


@pytest.mark.parametrize(
    ("kind", "on_end"),
    [
        ("knife", {2, 3}),
        ("banana", {2, 3}),
        ("cutting_board", {2, 3, 4, 5}),
        ("water_bottle", set()),
        ("mug", set()),
        ("block", set()),
    ],
)
def test_which_faces_stand_a_thing_on_end(kind, on_end):
    obj = _state(kind)
    assert {f for f in range(len(FACES)) if stands_on_end(obj, f)} == on_end
    assert not stands_on_end(obj, None)  # as it hangs: not judged
    assert set(PlaceOntopSkill().resting_faces(obj)) == set(range(len(FACES))) - on_end
    assert set(PlaceInsideSkill().resting_faces(obj)) == set(range(len(FACES)))
