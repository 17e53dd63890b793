"""A pour's dwell (the held object kept at its last tilt while the contents fall out) ends once what
fell out has come to rest: the rest of it only cost physics steps, a third of each pour's. The end
state must be the one the whole dwell gives. Real SoupPour scene, real planning model and physics."""

from __future__ import annotations

import math
from dataclasses import replace

import pybullet as p

from owl_bt.state import Pose
from owl_bt.tamp.planning_model import PlanningModel
from sim.world import TIME_STEP
from skills.pour import DWELL_SECONDS, REST_SPEED, REST_STEPS, TILT_SECONDS, _at_rest
from tests.support.worlds import task_state


def _can_over_bowl(seed: int) -> PlanningModel:
    """SoupPour's planning model with the soup can held 12 cm above the bowl's rim beside its axis."""
    model = PlanningModel(task_state("souppour", seed))
    bowl, can = model.pose("bowl"), model.pose("tomato_soup_can")
    top = model.state().get("bowl").aabb()[1][2]
    model.set_pose("tomato_soup_can", replace(can, x=bowl.x - 0.05, y=bowl.y, z=top + 0.12))
    soup = model.pose("soup")
    model.set_pose("soup", replace(soup, x=bowl.x - 0.05, y=bowl.y, z=soup.z + top + 0.12 - can.z))
    model.attach("tomato_soup_can")
    assert "soup" in model.carried
    return model


def _tilt(model: PlanningModel, angle: float = 2.4, n: int = 40) -> list[tuple]:
    """The can's path: turned about the world y axis by up to `angle` rad, its mouth towards +x."""
    pos, quat = p.getBasePositionAndOrientation(
        model.bodies["tomato_soup_can"], physicsClientId=model.cid
    )
    return [
        (
            pos,
            p.multiplyTransforms(
                (0, 0, 0), p.getQuaternionFromAxisAngle((0, 1, 0), angle * k / n), (0, 0, 0), quat
            )[1],
        )
        for k in range(n + 1)
    ]


def test_the_dwell_ends_once_the_poured_soup_has_come_to_rest_where_the_whole_dwell_leaves_it():
    model = _can_over_bowl(8)
    try:
        poses = _tilt(model)
        model.release_contents()
        before = model.snapshot()
        steps = [0]

        def count() -> None:
            steps[0] += 1

        model.pour_motion(poses, TILT_SECONDS, DWELL_SECONDS, watch=count)
        whole, whole_steps = model.pose("soup"), steps[0]
        model.restore(before)
        steps[0] = 0
        model.pour_motion(
            poses, TILT_SECONDS, DWELL_SECONDS, watch=count, settled=_at_rest(model, ["soup"])
        )
        cut, cut_steps = model.pose("soup"), steps[0]
        dwell = int(DWELL_SECONDS / TIME_STEP)
        tilt = whole_steps - dwell
        assert (
            tilt + REST_STEPS <= cut_steps < whole_steps - dwell // 4
        )  # ended early, but not before rest
        assert (
            model.contents("tomato_soup_can") == []
        )  # poured out, as with the whole dwell, into the bowl
        assert math.dist(cut.position[:2], model.pose("bowl").position[:2]) < 0.05
        assert (
            math.dist(cut.position, whole.position) < 0.005
        )  # and come to rest where the whole dwell left it
        model.drop_snapshot(before)
    finally:
        model.close()


def test_contents_still_moving_are_not_at_rest_and_contents_lying_still_are_after_rest_steps():
    model = PlanningModel(task_state("souppour", 8))
    try:
        model.set_pose(
            "soup", Pose(0.30, -0.30, 0.05, 0.0, 0.0, 0.0)
        )  # spilt: dropped onto the table
        settled = _at_rest(model, ["soup"])
        calls, fast = [], []
        for _ in range(int(1.0 / TIME_STEP)):
            p.stepSimulation(physicsClientId=model.cid)
            calls.append(settled())
            fast.append(
                math.hypot(*p.getBaseVelocity(model.bodies["soup"], physicsClientId=model.cid)[0])
                >= REST_SPEED
            )
        assert not calls[0] and calls[-1]  # falling at first; lying still within a second
        last_fast = max(i for i, f in enumerate(fast) if f)
        assert (
            calls.index(True) == last_fast + REST_STEPS
        )  # REST_STEPS still steps after it last moved, not before
        p.resetBaseVelocity(model.bodies["soup"], (0.2, 0.0, 0.0), physicsClientId=model.cid)
        assert not settled()  # knocked: moving again, and the count starts over
        calm = _at_rest(model, [])
        assert [calm() for _ in range(REST_STEPS)][-2:] == [
            False,
            True,
        ]  # nothing poured: at rest after REST_STEPS
    finally:
        model.close()
