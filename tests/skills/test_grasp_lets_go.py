"""A grasp the hand could never let go of is refused at the pick. The lying mug of Coffee seed 8 slides
into the hand as the fingers close, its handle into the palm: opened again, the hand still overlapped it
by 8-9 mm, and every place of it then failed "cannot retreat from mug" (56 of one planning round's 125
placements, each refused for the grasp, never for where it went). Real pybullet, real skills."""

from __future__ import annotations

import numpy as np

from owl_bt.tamp.planning_model import PlanningModel
from skills.motions import RELEASE_PRESS, sunk_into
from tests.support.worlds import perceived_state

REFUSED = "the opened hand could not let go of it"


def test_a_grasp_the_opened_hand_still_overlaps_is_refused_and_the_kept_ones_open_clear(skills):
    model = PlanningModel(
        perceived_state("coffee", 8)
    )  # as the run saw it (its ground truth seldom does this)
    pick = skills["pick"]
    refused, kept = [], []
    try:
        rng = np.random.default_rng(8)
        start = model.snapshot()
        for _ in range(600):
            model.restore(start)
            out = pick.simulate(model, ("mug",), pick.sample(model, ("mug",), rng))
            if out.ok:
                kept.append(sunk_into(model, "mug")[0])
            elif REFUSED in out.reason:
                refused.append(out.reason)
            if refused and len(kept) >= 2:
                break
    finally:
        model.close()
    assert refused, "no grasp of the lying mug sank into the hand"
    assert "mm into the" in refused[0] and "mug" in refused[0]
    assert len(kept) >= 2 and max(kept) <= RELEASE_PRESS, kept
