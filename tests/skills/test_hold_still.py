"""Before the executive looks after a step, the arm holds still until what it let go has come to rest
(`skills.backend.hold_still`): the simulated arm ends the hold once every object lies still, any other
arm holds for the full time. Real pybullet world and arm; a fake arm at the backend boundary."""

from __future__ import annotations

import pybullet as p
import pytest

from owl_bt.state import RobotState
from sim import catalog
from sim.world import TIME_STEP
from skills.backend import ArmFault, hold_still
from skills.guard import SafetyGuard
from skills.guarded import GuardedBackend
from skills.sim_backend import STILL_STEPS, ArmFaulted, SimArmBackend
from tests.support.worlds import world_with


def _plum_world():
    return world_with(("plum", (0.45, 0.1, catalog.make("plum").size()[2] / 2 + 0.002)))


def test_a_scene_at_rest_ends_the_hold_after_a_short_stillness():
    world = _plum_world()
    try:
        arm, start = SimArmBackend(world), world.steps
        hold_still(arm, 0.5)
        assert world.steps - start == STILL_STEPS  # everything lay still from the first step
    finally:
        world.close()


def test_a_rolling_object_keeps_the_arm_holding_until_it_has_stopped():
    world = _plum_world()
    try:
        body = world.body_id("plum")
        p.resetBaseVelocity(
            body, (0.0, 0.3, 0.0), (-6.0, 0.0, 0.0), physicsClientId=world.cid
        )  # rolling along y
        arm, start = SimArmBackend(world), world.steps
        hold_still(arm, 0.5)
        held = world.steps - start
        assert (
            STILL_STEPS < held < int(0.5 / TIME_STEP)
        )  # not over before the plum stopped (it rolls ~1 cm) …
        assert world.at_rest()  # … and over once it lay still
    finally:
        world.close()


def test_a_faulted_arm_refuses_to_hold():
    world = _plum_world()
    try:
        arm = SimArmBackend(world)
        arm.report_fault("protective stop")
        with pytest.raises(ArmFaulted):
            hold_still(arm, 0.5)
    finally:
        world.close()


class _Arm:
    """A fake arm without a hold of its own: it records what it is sent."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []

    def state(self) -> RobotState:
        return RobotState(joints=(0.0, -1.2, 1.2, -1.6, -1.57, 0.0), gripper_width=0.085, held=None)

    def execute_trajectory(self, waypoints, times=None, guarded: bool = False) -> None:
        self.sent.append((tuple(map(tuple, waypoints)), tuple(times or ())))

    def gripper(self, command: str, width: float | None = None):
        raise ArmFault("no gripper")

    def stop(self) -> None:
        pass


def test_an_arm_without_its_own_hold_is_sent_a_motionless_trajectory_of_the_full_time():
    arm = _Arm()
    hold_still(arm, 0.5)
    assert arm.sent == [((arm.state().joints,), (0.5,))]


def test_the_guarded_arm_holds_through_the_simulator_and_a_dry_run_through_the_guard():
    world = _plum_world()
    try:
        guarded = GuardedBackend(SimArmBackend(world), SafetyGuard())
        start = world.steps
        hold_still(guarded, 0.5)
        assert world.steps - start == STILL_STEPS and guarded.sent == []
        dry = GuardedBackend(SimArmBackend(world), SafetyGuard(), dry_run=True)
        hold_still(dry, 0.5)
        assert (
            len(dry.sent) == 1
            and dry.sent[0].times[-1] >= 0.5
            and world.steps - start == STILL_STEPS
        )
    finally:
        world.close()
