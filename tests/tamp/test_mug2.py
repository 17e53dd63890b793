"""Mug2 (the orange blocks the mug's opening; the fork and the knife go into the mug, which
stands near the mustard bottle): the defects that failed its camera seeds, each on the real simulator."""

from __future__ import annotations

from owl_bt.failures import Evidence, Failure
from owl_bt.state import Pose
from owl_bt.tamp import pddl
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.search import SketchItem, propose_edit
from tests.support.worlds import task_state


def _mug_by_the_mustard(seed: int):
    """Seed's initial state with the orange on the table and the mug standing upright by the mustard
    bottle (where attempt 1 of camera seed 8 set it down)."""
    s0 = task_state("mug2", seed)
    mug = s0.get("mug").pose
    state = s0.with_pose("orange", Pose(0.32, 0.01, s0.get("orange").size[2] / 2, 0.0, 0.0, 0.0))
    return state.with_pose("mug", Pose(0.707, 0.241, mug.z, mug.roll, mug.pitch, 2.414))


def test_a_knife_blamed_for_a_place_into_the_mug_is_moved_aside_not_poured_out_of_it(schemas):
    # Camera, seed 8: place_inside(fork, mug) ran out of samples blaming the knife, which lay on the table
    # 28 cm from the mug; the edit read "mug holds knife: pour it out onto the table first" (everything
    # lying on the table is below the mug's rim), then "mug holds sponge", and the rounds were spent on
    # pouring an empty mug. A blamed object is in a container only when it is over it too.
    state = _mug_by_the_mustard(8)
    items = [
        SketchItem(GroundOp("pick", ("fork",))),
        SketchItem(GroundOp("place_inside", ("fork", "mug"))),
    ]
    tp = pddl.solve(state, schemas, [i.op for i in items])
    failure = Failure(
        "plan",
        "no sample",
        "place_inside(fork, mug)",
        ("mug", "knife", "table"),
        Evidence(step=1, around_target={"fork": [], "mug": []}),
    )
    edited, note = propose_edit(state, items, tp, failure, set())
    assert note == "knife is in the way of place_inside(fork, mug): move it to the table first"
    assert [str(i.op) for i in edited][:2] == ["pick(knife)", "place_ontop(knife, table)"]


def test_a_fork_stood_on_end_in_the_mug_is_let_go_at_most_two_and_a_half_centimetres_up(skills):
    # Camera, seed 2: the fork, stood on its end, was let go 5 cm above the mug's floor (the sampled
    # clearance): it struck the floor, leant on the rim and tipped the mug onto its side, and the
    # replans never got it up again (seed 8: 4.3 cm, the same; seed 6: 3.7 cm, it bounced out). Stood on
    # end it is let go at most 2.5 cm up (lower, the hand holding a knife by its middle meets the rim in
    # most draws); lying, or on the table, the sampled clearance stands.
    s0, inside, ontop = task_state("mug2", 2), skills["place_inside"], skills["place_ontop"]
    for face in (2, 3):  # the fork on either end
        assert inside._drop(s0, "fork", {"face": face, "dyaw": -0.59, "clearance": 0.0497}) <= 0.025
        assert ontop._drop(s0, "fork", {"face": face, "dyaw": -0.59, "clearance": 0.0497}) == 0.0497
    assert (
        inside._drop(s0, "fork", {"face": 0, "dyaw": -0.59, "clearance": 0.0497}) == 0.0497
    )  # lying flat
    assert inside._drop(s0, "orange", {"face": None, "dyaw": 0.3, "clearance": 0.03}) == 0.03


def test_a_thing_held_at_a_replan_is_put_on_the_table_not_into_the_mug(schemas):
    # Camera, seed 3: the fork slipped 5 cm in the hand as it was picked; the replan held it, and Fast
    # Downward freed the hand with place_inside(fork, mug) (with the fork hanging askew: 500 samples, none
    # fitted, every round); seed 8: place_inside(mustard_bottle, mug) the same way. Both are as short as
    # a place on the table; holding something, the planner now takes the cheapest plan, a place into a
    # container costing more when it is not asked for.
    s0 = task_state("mug2", 3)
    state = s0.with_pose("orange", Pose(0.737, -0.133, 0.035, 0.0, 0.0, 0.0))
    state = state.with_pose("mug", Pose(0.345, 0.117, s0.get("mug").pose.z, 0.0, 0.0, 0.0))
    rest = [
        GroundOp("pick", ("fork",)),
        GroundOp("place_inside", ("fork", "mug")),
        GroundOp("pick", ("knife",)),
        GroundOp("place_inside", ("knife", "mug")),
    ]
    held_fork = state.with_pose("fork", Pose(0.404, 0.132, 0.302, 0.0, 0.0, 0.0))
    assert [str(s) for s in pddl.solve(held_fork, schemas, rest, held="fork").steps][:2] == [
        "place_ontop(fork, table)",
        "pick(fork)",
    ]
    held_mustard = state.with_pose("mustard_bottle", Pose(0.389, 0.146, 0.294, 0.0, 0.0, 0.0))
    steps = pddl.solve(held_mustard, schemas, rest, held="mustard_bottle").steps
    assert str(steps[0]) == "place_ontop(mustard_bottle, table)"
    assert [str(s) for s in steps[1:]] == [str(op) for op in rest]  # the sketch, nothing else
