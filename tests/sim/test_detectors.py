"""Each benchmark task's detector, on the real simulator: the built scene fails it, and a goal state
made by moving objects with pybullet resets (then settling under physics) passes it. The task's
oracle answers go through the real parser, validator and sandbox and agree with the detector."""

from __future__ import annotations

import math

import pytest

from owl_bt.language.constraints import generate
from owl_bt.language.scripted import ScriptedVLM
from owl_bt.state import Pose
from owl_bt.tamp.grounding import ground_operators
from sim import tasks
from sim.tasks.common import cavity_centre, held, new_layout, notes, put, rests_on
from sim.world import SimWorld
from tests.support.goal_states import (
    GOALS,
    rest_at,
)

SEED = 3


@pytest.fixture()
def world():
    w = SimWorld()
    yield w
    w.close()


def test_every_task_has_a_goal_here():
    assert sorted(GOALS) == sorted(tasks.TASKS)


@pytest.mark.parametrize("name", sorted(tasks.TASKS))
def test_initial_state_fails_and_goal_state_passes(world, name, schemas):
    task = tasks.get(name)
    task.build(world, SEED)
    verdict = task.detect(world)
    assert not verdict.success and verdict.reason and "\n" not in verdict.reason
    s0 = world.ground_truth()
    oracle = generate(
        ScriptedVLM("oracle", task.oracle_sketch, task.oracle_checkers),
        s0,
        task.instruction,
        schemas,
        ground_operators(s0, schemas),
    )
    goal_checks = oracle.goal_checkers()
    assert not all(oracle.checkers.evaluate(n, s0) for n in goal_checks)
    GOALS[name](world)
    world.settle(1.0)
    verdict = task.detect(world)
    assert verdict.success, verdict.reason
    assert not any(held(world, n) for n in world.bodies)
    final = world.ground_truth()
    last = oracle.action_checkers()[len(oracle.sketch.actions) - 1]
    assert all(oracle.checkers.evaluate(n, final) for n in [*goal_checks, last]), (
        oracle.checkers.errors
    )


def test_berrycook_needs_the_visit_to_the_pan(world):
    task = tasks.get("berrycook")
    task.build(world, SEED)
    x, y, z = cavity_centre(world, "bowl")
    rest_at(world, "strawberry", x, y, support_z=z)
    world.settle(0.5)
    task.observe(world)
    verdict = task.detect(world)
    assert not verdict.success and "never put in the pan" in verdict.reason


def test_detector_notes_are_per_world_and_reset_by_build(world):
    task = tasks.get("berrycook")
    task.build(world, SEED)
    notes(world)["visited_skillet"] = True
    other = SimWorld()
    try:
        task.build(other, SEED)
        assert (
            notes(other) == {"visited_skillet": False} and notes(world)["visited_skillet"] is True
        )
    finally:
        other.close()
    world.close()
    fresh = SimWorld()
    try:
        task.build(fresh, SEED)
        assert notes(fresh) == {"visited_skillet": False}
    finally:
        fresh.close()


@pytest.mark.parametrize(
    "name, held, target, content",
    [("souppour", "tomato_soup_can", "bowl", "soup"), ("mug3", "mug", "table", "golf_ball")],
)
def test_oracle_pour_checker_wants_a_tipped_container_over_the_target_and_the_contents_out(
    world, schemas, name, held, target, content
):
    task = tasks.get(name)
    task.build(world, SEED)
    s0 = world.ground_truth()
    oracle = generate(
        ScriptedVLM("oracle", task.oracle_sketch, task.oracle_checkers),
        s0,
        task.instruction,
        schemas,
        ground_operators(s0, schemas),
    )
    pour = next(i for i, a in enumerate(oracle.sketch.actions) if a.op.name == "pour")
    check = oracle.action_checkers()[pour]
    if target == "table":  # somewhere over the table, clear of everything
        x, y = 0.7, -0.25
        dropped = Pose(x + 0.1, y, 0.021)
    else:
        x, y, floor = cavity_centre(world, target)
        dropped = Pose(x, y, floor + 0.013)
    over = s0.get(target).aabb()[1][2] + 0.15
    tipped = s0.with_pose(held, Pose(x, y, over, 2.3, 0.0, 0.0)).with_pose(content, dropped)
    assert oracle.checkers.evaluate(check, tipped), oracle.checkers.errors
    upright = s0.with_pose(held, Pose(x, y, over, 0.0, 0.0, 0.0)).with_pose(content, dropped)
    assert not oracle.checkers.evaluate(check, upright)
    still_in = s0.with_pose(held, Pose(x, y, over, 2.3, 0.0, 0.0)).with_pose(
        content, Pose(x, y, over)
    )
    assert not oracle.checkers.evaluate(check, still_in)


def test_on_a_round_plate_means_over_the_disc_not_its_box():
    """A strawberry resting on the plate's rim at 9 cm from the centre is on it; one at 11.5 cm along
    the diagonal (inside the plate's 22 cm box, off the disc) touching its edge is not."""
    world = SimWorld()
    try:
        layout = new_layout(0)
        put(world, layout, "plate", at=(0.5, 0.0))
        put(world, layout, "strawberry", at=(0.5 + 0.09, 0.0), support_z=0.015)
        world.settle(0.3)
        assert rests_on(world, "strawberry", "plate")
        d = 0.115 / math.sqrt(2)
        rest_at(
            world, "strawberry", 0.5 + d, d, support_z=0.0
        )  # on the table, against the plate's edge
        world.step(1)
        assert world.contacts("strawberry", "plate")
        plate = world.object_states()["plate"]
        x, y, _ = world.pose("strawberry").position
        lo, hi = plate.aabb()
        assert lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]  # inside the box …
        assert not rests_on(world, "strawberry", "plate")  # … but not on the plate
    finally:
        world.close()
