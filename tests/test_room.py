"""A spot redrawn inside a checker's region keeps, for a share of the draws, the roomiest of a few (the
place skills say how much room a spot leaves: the gap to the nearest other movable object). Mug3 seed
0's mug, set down 11 cm from the mustard bottle inside its "near" region, left the hand no way to put
the fork in; its own draws over the table already kept the roomiest spot."""

from __future__ import annotations

import statistics

import numpy as np

from owl_bt.state import ObjectState, Pose, WorldState
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import HINT_INSET, _guided

HINT = ((0.40, -0.20, 0.0), (0.60, 0.20, 0.3))


def _draws(room, n: int = 400) -> list[dict]:
    rng = np.random.default_rng(7)
    return [_guided({"x": 0.0, "y": 0.0}, HINT, rng, room=room) for _ in range(n)]


def test_redraws_stay_in_the_region_and_lean_to_the_roomy_side():
    plain = [d for d in _draws(None) if d["x"] != 0.0]
    roomy = [d for d in _draws(lambda spot: spot["y"]) if d["x"] != 0.0]  # more room the further +y
    for d in plain + roomy:
        assert HINT[0][0] + HINT_INSET <= d["x"] <= HINT[1][0] - HINT_INSET
        assert HINT[0][1] + HINT_INSET <= d["y"] <= HINT[1][1] - HINT_INSET
    assert abs(statistics.mean(d["y"] for d in plain)) < 0.015  # uniform: centred
    assert statistics.mean(d["y"] for d in roomy) > 0.03  # half of them the best of three (expected 0.045)
    assert sum(d["y"] < 0 for d in roomy) > 0.15 * len(roomy)  # and the rest still broad


def test_a_place_spot_has_the_room_to_its_nearest_other_object(skills):
    objects = {
        "mug": ObjectState("mug", "mug", Pose(0.45, 0.2, 0.045), (0.072, 0.072, 0.09)),
        "mustard_bottle": ObjectState("mustard_bottle", "mustard_bottle", Pose(0.5, -0.1, 0.095), (0.06, 0.09, 0.19)),
        "fork": ObjectState("fork", "fork", Pose(0.6, 0.3, 0.01), (0.18, 0.02, 0.02)),
    }
    model = PlanningModel(WorldState(objects))
    try:
        place = skills["place_ontop"]
        # beside the bottle's box (x 0.47-0.53, y -0.145 to -0.055): 5 cm from its +y face
        assert abs(place.room(model, ("mug", "table"), {"x": 0.5, "y": -0.005}) - 0.05) < 1e-6
        # the fork (o) and the table (s) do not count; the mug does when the fork is placed
        assert place.room(model, ("fork", "mug"), {"x": 0.45, "y": 0.2}) > 0.2
    finally:
        model.close()
