"""Plans meeting the physics of execution (real pybullet, real planner): a blocked motion backs out,
a fork flat on the table is picked with a pre-shaped hand, place_inside aims at a container's
opening, and an earlier placement that blocks a later grasp is redrawn."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

from owl_bt.state import Pose
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import GroundedStep, _culprit
from owl_bt.tamp.search import SketchItem, plan
from sim.robot import HOME
from sim.world import SimWorld
from skills.backend import ArmBlocked
from skills.base import Move, back_out
from skills.registry import load_skills
from skills.sim_backend import SimArmBackend
from tests.support.worlds import world_with


def test_a_blocked_motion_backs_out_to_where_it_started():
    world = world_with()
    try:
        backend = SimArmBackend(world)
        down = list(HOME)
        down[1] += 0.9  # shoulder down: the hand drives into the table long before this
        path = tuple(
            tuple(a + (b - a) * k / 10 for a, b in zip(HOME, down, strict=True)) for k in range(11)
        )
        skill = load_skills()["pick"]
        reason = skill.execute(backend, [Move(path)])
        assert reason is not None and "not reached" in reason
        assert max(abs(a - b) for a, b in zip(backend.state().joints, HOME, strict=True)) < 0.05
        try:  # and the backend's own report is the typed one the back-out keys on
            backend.execute_trajectory(path)
        except ArmBlocked:
            pass
        else:
            raise AssertionError("a motion into the table must raise ArmBlocked")
        assert back_out(backend, path)
    finally:
        world.close()


def test_a_fork_flat_on_the_table_is_picked_with_a_preshaped_hand():
    world = world_with(("fork", (0.55, 0.05, 0.007, 0.0, 0.0, 0.4)))
    try:
        skills = load_skills()
        result = plan(
            world.ground_truth(),
            skills,
            [SketchItem(GroundOp("pick", ("fork",)))],
            [],
            np.random.default_rng(1),
            500,
            1,
        )
        assert result.failure is None, result.failure and result.failure.line()
        backend = SimArmBackend(world)
        for step in result.refinement.steps:
            assert skills[step.op.name].execute(backend, step.commands) is None
        assert backend.held == "fork"
        assert world.pose("fork").z > 0.08  # lifted off the table
    finally:
        world.close()


def test_place_inside_aims_at_the_opening_not_the_handle():
    world = world_with(
        ("skillet", (0.55, 0.1, 0.02, 0.0, 0.0, math.pi / 2)), ("strawberry", (0.5, -0.15, 0.03))
    )
    try:
        model = PlanningModel(world.ground_truth())
        try:
            floor, radius, depth = model.cavity("skillet")
            assert radius > 0.09 and depth > 0.02
            assert model.cavity("strawberry") is None
            skill = load_skills()["place_inside"]
            rng = np.random.default_rng(0)
            draws = [skill.sample(model, ("strawberry", "skillet"), rng) for _ in range(200)]
            over = sum(math.dist((d["x"], d["y"]), floor[:2]) < radius for d in draws)
            assert over >= 0.75 * len(
                draws
            )  # the handle sticks 12 cm out: a box draw lands there often
        finally:
            model.close()
    finally:
        world.close()


def test_the_culprit_is_the_latest_step_that_put_the_blocker_down():
    steps = [
        GroundedStep(GroundOp(name, args), {}, [], {}, 1, [])
        for name, args in (
            ("pick", ("orange",)),
            ("place_ontop", ("orange", "table")),
            ("pick", ("mug",)),
            ("place_ontop", ("mug", "table")),
        )
    ]
    fork = GroundOp("pick", ("fork",))
    assert _culprit(steps, fork, collections.Counter({"orange": 200, "table": 3})) == 1
    assert _culprit(steps, fork, collections.Counter({"mug": 50})) == 3
    assert _culprit(steps, fork, collections.Counter({"fork": 300})) is None  # its own argument
    assert _culprit(steps, fork, collections.Counter({"knife": 30})) is None  # never moved
    # into the mug an earlier step set down, blocked by a bottle nothing moved: set the mug down elsewhere
    into = GroundOp("place_inside", ("fork", "mug"))
    assert _culprit(steps, into, collections.Counter({"mustard_bottle": 40, "mug": 5})) == 3
    assert (
        _culprit(steps, into, collections.Counter({"mug": 40})) is None
    )  # the target itself: no third object


def test_a_balls_box_does_not_grow_as_it_rolls():
    from owl_bt.state import ObjectState

    ball = ObjectState(
        "soup",
        "soup",
        Pose(0.5, 0.2, 0.022, -2.86, -0.59, -2.34),
        (0.024, 0.024, 0.024),
        shape="sphere",
    )
    lo, hi = ball.aabb()
    assert abs(lo[2] - 0.010) < 1e-9 and abs(hi[0] - lo[0] - 0.024) < 1e-9
    box = ObjectState("can", "can", Pose(0.5, 0.2, 0.05, 0.0, 0.7, 0.0), (0.066, 0.066, 0.1))
    assert box.aabb()[1][2] - box.aabb()[0][2] > 0.1  # a tipped box's does


def _turn_deg(a: Pose, b: Pose) -> float:
    import pybullet as pb

    qa, qb = pb.getQuaternionFromEuler(a.euler), pb.getQuaternionFromEuler(b.euler)
    return math.degrees(
        2.0 * math.acos(min(1.0, abs(sum(x * y for x, y in zip(qa, qb, strict=True)))))
    )


@pytest.mark.slow
def test_the_planned_grasp_is_the_one_the_arm_ends_up_with():
    # The fingers close under physics in the planning model too: a knife lying flat, pinched by the
    # fingertips, turns in the hand as they close; the plan's expected pose after the pick is where
    # the arm really holds it, within a centimetre and mostly within 10° (before, the knife came out up
    # to 50° off, and a later place missed).
    world = world_with(
        ("knife", (0.50, -0.10, 0.008, 0.0, 0.0, 0.7)), ("mug", (0.45, 0.15, 0.045, 0.0, 0.0, 0.0))
    )
    try:
        skills = load_skills()
        turns = []
        for seed in range(5):
            result = plan(
                world.ground_truth(),
                skills,
                [SketchItem(GroundOp("pick", ("knife",)))],
                [],
                np.random.default_rng(seed),
                500,
                1,
            )
            assert result.failure is None, result.failure and result.failure.line()
            step = result.refinement.steps[0]
            backend = SimArmBackend(world)
            assert skills["pick"].execute(backend, step.commands) is None
            got, planned = world.pose("knife"), step.expected["knife"]
            assert math.dist(got.position, planned.position) < 0.01, (seed, got, planned)
            turns.append(_turn_deg(got, planned))
            assert turns[-1] < 30.0, (
                seed,
                got,
                planned,
            )  # a fingertip pinch stays chancy: rarely 20–30°
            backend.gripper("open")
            world.settle(1.0)
        assert sorted(turns)[len(turns) // 2] < 10.0, (
            turns
        )  # a pinch is chancy, but mostly as planned
    finally:
        world.close()


@pytest.mark.slow
def test_a_planned_pour_empties_the_mug_for_real():
    # Mug3's scene, seed 0: the grasp first drawn there had a finger inside the mug, and the golf
    # ball wedged between it and the wall instead of rolling out (the pour's look-ahead refuses it).
    from sim import tasks

    world = SimWorld()
    try:
        tasks.get("mug3").build(world, 0)
        skills = load_skills()
        items = [
            SketchItem(GroundOp("pick", ("mug",))),
            SketchItem(GroundOp("pour", ("mug", "table"))),
        ]
        result = plan(world.ground_truth(), skills, items, [], np.random.default_rng(0), 500, 1)
        assert result.failure is None, result.failure and result.failure.line()
        backend = SimArmBackend(world)
        for step in result.refinement.steps:
            assert skills[step.op.name].execute(backend, step.commands) is None
        world.settle(1.0)
        assert world.pose("golf_ball").z < 0.03  # out, on the table
    finally:
        world.close()
