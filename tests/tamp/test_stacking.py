"""Stacking as a ground operator: place_ontop onto a movable thing with a flat top (a block, a can),
which only a plan sketch does (an inserted step never stacks), and a tower built by the real planner
and simulator."""

from __future__ import annotations

import pytest

from owl_bt.episode import EpisodeConfig, run_episode
from owl_bt.state import ObjectState, Pose, WorldState
from owl_bt.tamp import pddl
from owl_bt.tamp.grounding import ground_operators
from owl_bt.tamp.operators import GroundOp, static_types
from sim import tasks


def _blocks() -> WorldState:
    table = ObjectState("table", "table", Pose(0.55, 0, -0.025), (0.7, 0.9, 0.05), fixed=True)
    objs = {"table": table}
    for i, name in enumerate(("red_block", "green_block", "apple")):
        cat = "apple" if name == "apple" else "block"
        objs[name] = ObjectState(name, cat, Pose(0.5, -0.15 + 0.15 * i, 0.025), (0.05, 0.05, 0.05))
    return WorldState(objects=objs)


def test_flat_topped_movables_are_stackable_surfaces():
    for category in ("block", "box", "potted_meat_can", "sugar_box"):
        assert {"Movable", "Surface", "Stackable"} <= static_types(category, False), category
    assert "Surface" not in static_types("apple", False)
    assert "Stackable" not in static_types("plate", False)


def test_place_ontop_a_block_is_a_ground_operator(schemas):
    ops = {str(g) for g in ground_operators(_blocks(), schemas)}
    assert "place_ontop(green_block, red_block)" in ops
    assert "place_ontop(apple, red_block)" in ops
    assert "place_ontop(red_block, apple)" not in ops  # a round top is no place to stack


def test_a_sketch_stacks_and_an_inserted_step_does_not(schemas):
    sketch = [GroundOp("place_ontop", ("green_block", "red_block"))]
    plan = pddl.solve(_blocks(), schemas, sketch)
    assert [str(s) for s in plan.steps] == [
        "pick(green_block)",
        "place_ontop(green_block, red_block)",
    ]
    # holding the apple with a sketch that needs the hand: the apple goes to the table, not onto a block
    plan = pddl.solve(_blocks(), schemas, sketch, held="apple")
    freeing = [str(s) for s in plan.steps][0]
    assert freeing == "place_ontop(apple, table)", plan.steps


def test_a_goal_alone_may_stack(schemas):
    plan = pddl.solve(_blocks(), schemas, goal=[("On", ("green_block", "red_block"))])
    assert [str(s) for s in plan.steps][-1] == "place_ontop(green_block, red_block)"


@pytest.mark.slow
def test_the_oracle_builds_a_four_block_tower_in_the_requested_order(tmp_path):
    task = tasks.get("tower_hue")
    result = run_episode(
        EpisodeConfig(
            task.instruction,
            task="tower_hue",
            seed=1,
            out=tmp_path / "run",
            vlm="oracle",
            perception="sim-state",
        )
    )
    assert result.success, f"{result.detector_reason}; {result.failure}; {result.history}"
    assert result.declared_success
