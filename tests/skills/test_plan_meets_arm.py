"""Where the plan and the arm must agree (real pybullet, real planner, the simulated arm): a placed
object comes to rest where the planning model said it would; a gripper that closes on the wrong
object lets go of it where it lies; a hand is shaped for a grasp only where the plan checked it."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.search import SketchItem, plan
from skills.motions import reach
from skills.registry import load_skills
from skills.sim_backend import SimArmBackend
from tests.support.worlds import world_with


@pytest.mark.slow
def test_a_placed_mug_comes_to_rest_where_the_plan_put_it():
    # The planning model lets go as the arm does: the fingers do not touch the object until they have
    # opened off it. Before, reset into the mug's wall at the grip angle, they shoved it 2-3 cm as
    # they opened, and every later step aimed at a mug that was not there.
    world = world_with(("mug", (0.45, -0.20, 0.045, 0.0, 0.0, 0.0)))
    try:
        skills = load_skills()
        sketch = [
            SketchItem(GroundOp("pick", ("mug",))),
            SketchItem(GroundOp("place_ontop", ("mug", "table"))),
        ]
        for seed in range(3):
            result = plan(
                world.ground_truth(), skills, sketch, [], np.random.default_rng(seed), 500, 1
            )
            assert result.failure is None, result.failure and result.failure.line()
            backend = SimArmBackend(world)
            for step in result.refinement.steps:
                assert skills[step.op.name].execute(backend, step.commands) is None
            world.settle(0.5)
            planned, got = result.refinement.steps[-1].expected["mug"], world.pose("mug")
            assert math.dist(planned.position[:2], got.position[:2]) < 0.012, (seed, planned, got)
    finally:
        world.close()


def test_a_gripper_closed_on_the_wrong_object_lets_go_of_it_where_it_lies():
    # The lemon the plan grasps is swapped for a plum before the arm gets there: the gripper closes on
    # the plum, opens again at once and backs out along its approach, leaving the plum where it lay
    # (it used to carry it off, and the replan started with the arm holding something it had no plan for).
    world = world_with(
        ("lemon", (0.50, -0.10, 0.03, 0.0, 0.0, 0.0)), ("plum", (0.35, 0.25, 0.03, 0.0, 0.0, 0.0))
    )
    try:
        skills = load_skills()
        result = plan(
            world.ground_truth(),
            skills,
            [SketchItem(GroundOp("pick", ("lemon",)))],
            [],
            np.random.default_rng(0),
            500,
            1,
        )
        assert result.failure is None, result.failure and result.failure.line()
        lemon, plum = world.pose("lemon"), world.pose("plum")
        cid = world.cid
        p.resetBasePositionAndOrientation(
            world.body_id("lemon"), (0.30, 0.30, lemon.z), (0, 0, 0, 1), physicsClientId=cid
        )
        p.resetBasePositionAndOrientation(
            world.body_id("plum"), (lemon.x, lemon.y, plum.z), (0, 0, 0, 1), physicsClientId=cid
        )
        world.settle(0.5)
        put = world.pose("plum")
        backend = SimArmBackend(world)
        commands = result.refinement.steps[0].commands
        reason = skills["pick"].execute(backend, commands)
        assert reason == "gripper closed on plum instead of lemon"
        assert backend.held is None
        world.settle(0.5)
        assert math.dist(world.pose("plum").position, put.position) < 0.02
        approach = [c for c in commands if hasattr(c, "waypoints")][
            -2
        ]  # the straight approach to the grasp
        q = backend.state().joints
        assert max(abs(a - b) for a, b in zip(q, approach.waypoints[0], strict=True)) < 0.05
    finally:
        world.close()


@pytest.mark.slow
def test_a_later_step_keeps_what_an_earlier_step_achieved():
    # The lemon is put where nothing is within 10 cm of it; the strawberry then goes within 13 cm of
    # the lemon. Left to chance, the strawberry often lands within 10 cm (the mug of Mug2 was set down
    # on the orange put aside for it, and every replan moved the orange again): an earlier step's
    # checker binds later steps that do not move its object again.
    world = world_with(
        ("lemon", (0.45, -0.15, 0.03, 0.0, 0.0, 0.0)),
        ("strawberry", (0.55, 0.15, 0.03, 0.0, 0.0, 0.0)),
    )
    try:
        skills = load_skills()

        def gap(s) -> float:
            return math.dist(
                s.get("lemon").pose.position[:2], s.get("strawberry").pose.position[:2]
            )

        def lemon_clear(s) -> bool:
            return (
                gap(s) > 0.10
                and 0.40 < s.get("lemon").pose.x < 0.60
                and abs(s.get("lemon").pose.y) < 0.1
            )

        sketch = [
            SketchItem(GroundOp("pick", ("lemon",))),
            SketchItem(GroundOp("place_ontop", ("lemon", "table")), [("lemon_clear", lemon_clear)]),
            SketchItem(GroundOp("pick", ("strawberry",))),
            SketchItem(
                GroundOp("place_ontop", ("strawberry", "table")),
                [("near_lemon", lambda s: gap(s) < 0.13)],
            ),
        ]
        for seed in range(8):
            result = plan(
                world.ground_truth(), skills, sketch, [], np.random.default_rng(seed), 500, 1
            )
            assert result.failure is None, result.failure and result.failure.line()
            final = result.refinement.steps[-1].expected["strawberry"]
            lemon = result.refinement.steps[1].expected["lemon"]
            assert 0.10 < math.dist(final.position[:2], lemon.position[:2]) < 0.13, seed
    finally:
        world.close()


def test_a_hand_beside_a_tall_neighbour_is_shaped_for_a_grasp_only_once_clear_of_it():
    # Mug2 seed 8: the hand, just back from setting the mug down by the mustard bottle, was pre-shaped
    # for the fork where it stood; closing a little, the fingertips swing down, and they knocked the
    # bottle over (the plan had checked the motion with the hand open). The hand is now shaped above
    # the object to grasp, and the approach is checked with the fingers as they will be.
    world = world_with(
        ("mustard_bottle", (0.55, 0.15, 0.0975, 0.0, 0.0, 0.0)),
        ("fork", (0.45, -0.15, 0.01, 0.0, 0.0, 0.0)),
    )
    try:
        skills = load_skills()
        model_world = world.ground_truth()
        model = PlanningModel(model_world)
        try:  # the open hand hovering with one finger just clear of the bottle's top (fingers close along x)
            top = model_world.get("mustard_bottle").aabb()[1][2]
            down = p.getQuaternionFromEuler((math.pi, 0.0, 0.0))
            q0 = None
            for dz in np.arange(0.10, 0.0, -0.001):
                q = reach(model, ((0.55 + 0.046, 0.15, top + dz), down))
                if q is None or model.in_collision(q) is not None:
                    break
                q0 = q
        finally:
            model.close()
        assert q0 is not None
        world.robot.reset_arm(q0)
        world.robot.command_arm(q0)
        shaped = 0
        for seed in range(6):
            start = world.ground_truth()
            result = plan(
                start,
                skills,
                [SketchItem(GroundOp("pick", ("fork",)))],
                [],
                np.random.default_rng(seed),
                500,
                1,
            )
            assert result.failure is None, result.failure and result.failure.line()
            commands = result.refinement.steps[0].commands
            if not any(getattr(c, "width", None) for c in commands):
                continue
            shaped += 1
            bottle = world.pose("mustard_bottle")
            backend = SimArmBackend(world)
            assert skills["pick"].execute(backend, commands) is None
            world.settle(0.5)
            assert math.dist(world.pose("mustard_bottle").position, bottle.position) < 0.01, seed
            break
        assert shaped, "no pre-shaped grasp was drawn"
    finally:
        world.close()


@pytest.mark.slow
def test_grasps_are_found_for_a_fork_leaning_on_its_edge_against_a_mug():
    # Mug1 seed 3: a fork fell out of the mug and came to rest on its edge, leaning on the mug. Grasps
    # were drawn as for a fork lying flat (its box's z axis taken as up), and no sample of 500 held
    # it, in every replan. Now an elongated thing is closed across wherever its long axis points, the
    # pads along its slope, held along that axis, and never from the side like a bottle. (On the arm
    # this leaning fork, still creeping down the mug's wall, often drops flat as the pads touch it;
    # the gripper then closes on nothing and the replan picks it up lying flat.)
    world = world_with(
        ("mug", (0.34, 0.18, 0.045, 0.0, 0.0, 0.0)),
        ("fork", (0.337, 0.086, 0.047, 1.807, -0.464, 1.319)),
    )
    try:
        assert abs(world.pose("fork").roll) > 1.0  # still on its edge once settled
        skills = load_skills()
        for seed in range(3):
            result = plan(
                world.ground_truth(),
                skills,
                [SketchItem(GroundOp("pick", ("fork",)))],
                [],
                np.random.default_rng(seed),
                500,
                1,
            )
            assert result.failure is None, result.failure and result.failure.line()
            params = result.refinement.steps[0].params
            assert abs(params["tilt"]) < 1.0  # from above, not from the side
    finally:
        world.close()


@pytest.mark.parametrize(("seed", "draws"), [(3, 4), (8, 6)])  # (8, 5) before the grasp generator
def test_a_stood_up_mug_is_let_go_of_though_the_opened_fingers_press_it_a_little(seed, draws):
    # Coffee: opened fully where it let go of the stood-up mug, a finger pressed its wall or handle 2-6 mm,
    # and 9 placements in 10 were refused as 'cannot retreat' though the hand then backed out clear
    # (seed 3 on the camera: 1,724 samples, 97 s). A press at the release is a nudge; only the way out
    # must be clear. Here the first grasp's placement used to be given up for a regrasp.
    from sim import tasks
    from sim.world import SimWorld

    world = SimWorld()
    try:
        tasks.get("coffee").build(world, seed)
        skills = load_skills()
        sketch = [
            SketchItem(GroundOp("pick", ("mug",))),
            SketchItem(GroundOp("place_ontop", ("mug", "table"))),
        ]
        upright = [
            (
                "upright",
                lambda s: (
                    abs(s.objects["mug"].pose.roll) < 0.2 and abs(s.objects["mug"].pose.pitch) < 0.2
                ),
            )
        ]
        result = plan(
            world.ground_truth(), skills, sketch, upright, np.random.default_rng(draws), 500, 1
        )
        assert result.failure is None, result.failure.line()
        assert result.samples == sum(
            s.samples for s in result.refinement.steps
        )  # no grasp given up
        backend = SimArmBackend(world)
        for step in result.refinement.steps:
            assert skills[step.op.name].execute(backend, step.commands) is None
        world.settle(0.5)
        got, planned = world.pose("mug"), result.refinement.steps[-1].expected["mug"]
        assert (
            abs(got.roll) < 0.2
            and abs(got.pitch) < 0.2
            and math.dist(got.position[:2], planned.position[:2]) < 0.015
        )
    finally:
        world.close()


def test_an_upright_mug_is_picked_by_its_rim_and_lifted_on_the_arm():
    # Held by its body, an upright mug (7.2 cm across, its handle out) leaves the open fingers little room:
    # most draws had them cut into it. Pinched at the rim, one pre-shaped pad inside, it is held as people do.
    from skills.pick import _rim_grasp

    world = world_with(("mug", (0.50, 0.10, 0.045, 0.0, 0.0, 0.0)))
    try:
        skills = load_skills()
        model = PlanningModel(world.ground_truth())
        rng = np.random.default_rng(1)
        snap = model.snapshot()
        try:
            for _ in range(20):
                params = _rim_grasp(model, "mug", rng)
                assert params is not None and params["opening"] < 0.04
                res = skills["pick"].simulate(model, ("mug",), params)
                if res.ok:
                    break
                model.restore(snap)
        finally:
            model.close()
        assert res.ok, res.reason
        backend = SimArmBackend(world)
        assert skills["pick"].execute(backend, res.commands) is None
        assert (
            backend.state().held == "mug" and world.pose("mug").z > 0.045 + 0.08
        )  # lifted with the arm
    finally:
        world.close()
    lying = world_with(("mug", (0.50, 0.10, 0.036, math.pi / 2, 0.0, 0.0)))
    try:
        model = PlanningModel(lying.ground_truth())
        try:  # lying, the inner finger would have to come down through the wall: no rim grasp
            assert _rim_grasp(model, "mug", np.random.default_rng(1)) is None
        finally:
            model.close()
    finally:
        lying.close()
