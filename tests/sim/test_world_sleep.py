"""While the arm moves, objects lying still sleep (physics skips them) and wake when something moving
touches them (`SimWorld.asleep_at_rest`, used by the simulated arm). Real pybullet world and arm."""

from __future__ import annotations

import math

import pybullet as p

from owl_bt.tamp.kinematics import solve_ik
from owl_bt.tamp.planning_model import PlanningModel
from sim import catalog
from skills.sim_backend import SimArmBackend
from tests.support.worlds import world_with

CAN = (0.45, 0.15)  # x, y (m, world frame): where the soup can stands, within the arm's reach


def _can_world():
    half = catalog.make("tomato_soup_can").size()[2] / 2
    return world_with(("tomato_soup_can", (*CAN, half + 0.002)))


def _at(world, name: str) -> tuple[float, ...]:
    return p.getBasePositionAndOrientation(world.body_id(name), physicsClientId=world.cid)[0]


def _lift(world, name: str, dz: float = 0.05) -> tuple[float, ...]:
    """Put `name` dz metres higher, as it is; returns where it was."""
    body = world.body_id(name)
    pos, quat = p.getBasePositionAndOrientation(body, physicsClientId=world.cid)
    p.resetBasePositionAndOrientation(
        body, (pos[0], pos[1], pos[2] + dz), quat, physicsClientId=world.cid
    )
    return pos


def test_an_object_lying_still_sleeps_and_wakes_when_the_arm_pushes_it():
    world = _can_world()
    try:
        with (
            world.asleep_at_rest()
        ):  # the first stretch: nothing known to have lain still through physics yet
            world.step(24)
        with world.asleep_at_rest():
            world.step(24)
            was = _lift(world, "tomato_soup_can")
            world.step(120)
            assert (
                _at(world, "tomato_soup_can")[2] > was[2] + 0.049
            )  # asleep: physics skips it (it hangs there)
            _lift(world, "tomato_soup_can", -0.05)
        # the hand swept through where the can stands, fingers down, 6 cm above the table
        model = PlanningModel(world.ground_truth())
        down = p.getQuaternionFromEuler((math.pi, 0.0, 0.0))
        qs = [
            solve_ik(model, ((CAN[0], CAN[1] + dy, 0.06), down), seed=world.robot.arm_q())
            for dy in (-0.2, 0.2)
        ]
        model.close()
        assert None not in qs
        arm = SimArmBackend(world)
        arm.execute_trajectory([qs[0]])
        before = _at(
            world, "tomato_soup_can"
        )  # (the hand came down beside it: the can is asleep again now)
        try:
            arm.execute_trajectory([qs[1]], times=[2.0])
        except Exception:  # blocked against the can is fine: what counts is that the can moved
            pass
        assert (
            math.dist(_at(world, "tomato_soup_can")[:2], before[:2]) > 0.02
        )  # woken and pushed aside
    finally:
        world.close()


def test_an_object_put_somewhere_new_is_not_put_to_sleep_and_all_wake_on_leaving():
    world = _can_world()
    try:
        with world.asleep_at_rest():
            world.step(24)
        pos = _lift(world, "tomato_soup_can")
        with (
            world.asleep_at_rest()
        ):  # still (just let go, as it were) but moved since the last look: it falls
            world.step(120)
            assert _at(world, "tomato_soup_can")[2] < pos[2] + 0.005
        with world.asleep_at_rest():  # fallen since the last look: not yet
            world.step(24)
        with world.asleep_at_rest():  # lain still through a stretch of physics: asleep now
            world.step(24)
            pos = _lift(world, "tomato_soup_can")
            world.step(120)
            assert _at(world, "tomato_soup_can")[2] > pos[2] + 0.049
        world.step(120)  # outside: awake again, it falls
        assert _at(world, "tomato_soup_can")[2] < pos[2] + 0.005
    finally:
        world.close()
