"""A closing gripper closes until its fingers meet resistance, then squeezes briefly (`sim.grip`), in the
arm and in the planning model alike; a guarded descent stops where the held object presses on
something (`HELD_CONTACT_N`), as a wrist force sensor would stop it. Real pybullet, planner and arm."""

from __future__ import annotations

import math

import numpy as np

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.search import SketchItem, plan
from sim.grip import SQUEEZE_S
from sim.world import TIME_STEP
from skills.base import Grip
from skills.motions import raised, reach
from skills.registry import load_skills
from skills.sim_backend import FINGERS_S, SimArmBackend
from tests.support.worlds import world_with


def _planned_pick(world):
    """The planner's step picking the potted-meat can (real planner, seed 0)."""
    result = plan(
        world.ground_truth(),
        load_skills(),
        [SketchItem(GroundOp("pick", ("potted_meat_can",)))],
        [],
        np.random.default_rng(0),
        500,
        1,
    )
    assert result.failure is None, result.failure and result.failure.line()
    return result.refinement.steps[0]


def _close_steps(world, backend) -> int:
    start = world.steps
    backend.gripper("close")
    return world.steps - start


def test_closing_on_nothing_ends_once_the_fingers_have_closed_and_squeezed():
    world = world_with()
    try:
        backend = SimArmBackend(world)
        steps = _close_steps(world, backend)
        assert world.robot.opening() < 0.01  # closed
        # the free close takes ~0.54 s; then the squeeze; not the whole of FINGERS_S
        assert 0.45 / TIME_STEP < steps < FINGERS_S / TIME_STEP, steps
        assert backend.held is None
    finally:
        world.close()


def test_a_pick_closes_only_until_the_pads_meet_the_can_and_the_plan_foresaw_the_grasp():
    world = world_with(("potted_meat_can", (0.5, 0.05, 0.0415)))
    try:
        step = _planned_pick(world)
        backend = SimArmBackend(world)
        closing = None
        for cmd in step.commands:
            if isinstance(cmd, Grip):
                if cmd.command == "close":
                    closing = _close_steps(world, backend)
                else:
                    backend.gripper(cmd.command, cmd.width)
            else:
                backend.execute_trajectory(cmd.waypoints, cmd.times, guarded=cmd.guarded)
        assert backend.held == "potted_meat_can"
        # the 6 cm can stops the pads within ~0.3 s of closing; the squeeze follows
        assert closing is not None and closing < 0.3 / TIME_STEP + SQUEEZE_S / TIME_STEP + 2, (
            closing
        )
        got, planned = world.pose("potted_meat_can"), step.expected["potted_meat_can"]
        assert math.dist(got.position, planned.position) < 0.01, (got, planned)
    finally:
        world.close()


def test_a_guarded_descent_stops_where_the_held_can_presses_on_the_table():
    # Mug2 seed 5: a fork met the mug's rim 5.7 cm above its release; the hand drove on, the fixed
    # constraint holding the fork (200 N at most) gave way, and the fork was pushed 5.7 cm out of its
    # grasp. With force sensing the descent ends at the contact, the grasp as it was.
    world = world_with(("potted_meat_can", (0.5, 0.05, 0.0415)))
    try:
        backend = SimArmBackend(world)
        assert load_skills()["pick"].execute(backend, _planned_pick(world).commands) is None
        model = PlanningModel(world.ground_truth(backend.held))
        tcp = world.robot.tcp_pose()
        low = reach(
            model, raised(tcp, -0.2), seed=world.robot.arm_q()
        )  # 20 cm down: 8 cm through the table
        assert low is not None
        q0 = world.robot.arm_q()
        path = [
            tuple(a + (b - a) * k / 20 for a, b in zip(q0, low, strict=True)) for k in range(1, 21)
        ]
        grasp_before = _in_hand(world, "potted_meat_can")
        backend.execute_trajectory(path, guarded=True)
        assert backend.held == "potted_meat_can"
        dropped = tcp[0][2] - world.robot.tcp_pose()[0][2]
        assert 0.08 < dropped < 0.125, (
            dropped
        )  # down to the table (the can was lifted 12 cm), no further
        assert (
            math.dist(_in_hand(world, "potted_meat_can"), grasp_before) < 0.005
        )  # not pushed out of the grasp
    finally:
        world.close()


def _in_hand(world, name: str) -> tuple[float, ...]:
    """The object's position in the TCP frame (m)."""
    import pybullet as p

    tpos, tquat = world.robot.tcp_pose()
    inv = p.invertTransform(tpos, tquat)
    return p.multiplyTransforms(inv[0], inv[1], world.pose(name).position, (0, 0, 0, 1))[0]
