"""Implicit physical sanity of an end state: off the table, not resting on what it was put on (leaning
on a neighbour), tipped from the face it was put down on."""

from __future__ import annotations

import math

from owl_bt.state import Pose, WorldState
from owl_bt.tamp.sanity import Placement, insane, placements_from
from sim import catalog


def _world(*placed: tuple[str, str, Pose]) -> WorldState:
    objs = {"table": catalog.table().to_state(Pose(0.55, 0.0, -0.025))}
    for kind, name, pose in placed:
        objs[name] = catalog.make(kind, name).to_state(pose)
    return WorldState(objects=objs)


FORK_FLAT = Pose(0.5, 0.2, 0.007)
FORK_ON_END = Pose(0.5, 0.2, 0.09, pitch=-math.pi / 2)


def test_a_thing_lying_where_it_was_put_is_sane():
    w = _world(("fork", "fork", FORK_FLAT), ("plate", "plate", Pose(0.5, 0.0, 0.0075)))
    assert insane(w, [Placement("place_ontop", "fork", "table", FORK_FLAT)]) is None


def test_a_fork_stood_on_end_is_tipped():
    w = _world(("fork", "fork", FORK_ON_END))
    why = insane(w, [Placement("place_ontop", "fork", "table", FORK_FLAT)])
    assert why is not None and "tipped over" in why


def test_a_thing_resting_on_a_neighbour_is_not_on_its_support():
    w = _world(
        ("block", "a", Pose(0.5, 0.0, 0.025)),
        ("block", "b", Pose(0.5, 0.0, 0.075)),
    )
    why = insane(w, [Placement("place_ontop", "b", "table", Pose(0.5, 0.1, 0.025))])
    assert why == "b rests on a, not on table as it was put"
    assert insane(w, [Placement("place_ontop", "b", "a", Pose(0.5, 0.0, 0.075))]) is None


def test_leaning_is_not_resting():
    w = _world(("block", "b", Pose(0.5, 0.0, 0.05)))  # hanging 2.5 cm above the table
    why = insane(w, [Placement("place_ontop", "b", "table", None)])
    assert why is not None and "leans or hangs" in why


def test_off_the_table():
    w = _world(("lemon", "lemon", Pose(0.95, 0.0, -0.2)))
    assert insane(w, []) == "lemon is off the table"


def test_the_last_placement_counts_and_executed_strings_parse():
    steps = [
        "pick(b)",
        "place_ontop(b, table)",
        "pick(b)",
        "place_ontop(b, a)",
        "place_inside(x, y)",
    ]
    got = placements_from(steps)
    assert [(p.op, p.obj, p.support) for p in got] == [
        ("place_ontop", "b", "table"),
        ("place_ontop", "b", "a"),
        ("place_inside", "x", "y"),
    ]
    w = _world(("block", "a", Pose(0.5, 0.0, 0.025)), ("block", "b", Pose(0.5, 0.0, 0.075)))
    assert insane(w, got[:2]) is None


def test_a_fork_on_end_against_a_block_leans():
    on_end = Pose(0.5, 0.2, 0.09, pitch=-math.pi / 2)
    w = _world(("fork", "fork", on_end), ("block", "block", Pose(0.5, 0.2 + 0.012 + 0.025, 0.025)))
    why = insane(w, [Placement("place_ontop", "fork", "table", on_end)])
    assert why == "fork stands on end leaning on block"
    alone = _world(("fork", "fork", on_end), ("block", "block", Pose(0.5, -0.2, 0.025)))
    assert insane(alone, [Placement("place_ontop", "fork", "table", on_end)]) is None


def test_a_container_knocked_over_by_the_plan_is_not_sane():
    up = Pose(0.5, 0.0, 0.045)
    before = _world(("mug", "mug", up), ("lime", "lime", Pose(0.4, -0.2, 0.025)))
    after = _world(("mug", "mug", Pose(0.5, 0.0, 0.036, roll=math.pi / 2)), ("lime", "lime", up))
    placed = [Placement("place_inside", "lime", "mug", up)]
    assert insane(after, placed, before=before) == "mug was knocked over (its opening turned 90°)"


def test_what_the_hand_holds_is_not_knocked_over():
    # "pick up the banana": held as gripped, it hangs taller than it lay; that is no knocking over
    lying = Pose(0.5, 0.0, 0.017)
    before = _world(("banana", "banana", lying))
    hanging = _world(("banana", "banana", Pose(0.5, 0.0, 0.3, roll=math.pi / 2)))
    assert insane(hanging, [], before=before) is not None  # not in the hand: knocked over
    assert insane(hanging, [], before=before, hold="banana") is None
