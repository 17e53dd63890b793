"""A closing gripper closes until its fingers meet resistance, then squeezes briefly (`sim.grip`), in the
arm and in the planning model alike. Real pybullet, planner and arm."""

from __future__ import annotations

import math

import numpy as np

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.search import SketchItem, plan
from sim.grip import SQUEEZE_S
from sim.world import TIME_STEP
from skills.base import Grip
from skills.registry import load_skills
from skills.sim_backend import FINGERS_S, SimArmBackend
from tests.worlds import world_with


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
        skills = load_skills()
        result = plan(world.ground_truth(), skills, [SketchItem(GroundOp("pick", ("potted_meat_can",)))], [],
                      np.random.default_rng(0), 500, 1)
        assert result.failure is None, result.failure and result.failure.line()
        step = result.refinement.steps[0]
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
        assert closing is not None and closing < 0.3 / TIME_STEP + SQUEEZE_S / TIME_STEP + 2, closing
        got, planned = world.pose("potted_meat_can"), step.expected["potted_meat_can"]
        assert math.dist(got.position, planned.position) < 0.01, (got, planned)
    finally:
        world.close()
