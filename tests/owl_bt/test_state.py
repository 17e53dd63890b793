"""What lies inside what in a world state (`WorldState.contents`): a thing whose centre is in the
holder's box and that reaches no lower than the holder's bottom."""

from __future__ import annotations

import pytest

from owl_bt.errors import UnknownObjectError
from owl_bt.state import ObjectState, Pose, WorldState


def _world(**things: tuple[tuple[float, float, float], tuple[float, float, float]]) -> WorldState:
    return WorldState(
        objects={
            name: ObjectState(name, name, Pose(*at), size=size, shape="box")
            for name, (at, size) in things.items()
        }
    )


def test_a_fork_standing_in_a_mug_is_its_content():
    w = _world(
        mug=((0.5, 0.0, 0.05), (0.08, 0.08, 0.1)), fork=((0.5, 0.0, 0.08), (0.01, 0.02, 0.15))
    )
    assert w.contents("mug") == ["fork"]
    assert w.contents("fork") == []


def test_a_shallow_pan_under_a_strawberry_is_not_the_strawberrys_content():
    # the pan's centre (z 2 cm) lies inside the box of the strawberry resting in it (z 1 to 6 cm)
    w = _world(
        skillet=((0.52, 0.23, 0.02), (0.34, 0.22, 0.04)),
        strawberry=((0.51, 0.23, 0.035), (0.044, 0.044, 0.05)),
    )
    assert w.contents("strawberry") == []
    assert w.contents("skillet") == ["strawberry"]


def test_contents_of_an_unknown_holder_is_an_unknown_object_error():
    with pytest.raises(UnknownObjectError):
        _world().contents("bowl")
