"""The planning model's collision check asks for exact distances only between links whose bounding boxes
meet: it must never miss what the exhaustive query (every link against every part) finds. Real planning
model, real pybullet, a held mug (21 parts) swung through random arm configurations."""

from __future__ import annotations

import numpy as np
import pybullet as p

from owl_bt.state import WorldState
from owl_bt.tamp.planning_model import PlanningModel
from tests.support.worlds import task_state


def _exhaustive(model: PlanningModel) -> tuple[bool, bool]:
    """(the held object touches an arm link it can swing into, the hand touches a base link), by asking
    every pair, as the check did before its boxes."""
    body, held, robot = model.robot.body, model.bodies[model.held], model.robot
    arm = any(
        c[4] < robot.arm[-1] and c[4] not in model.grasp_touch
        for c in p.getClosestPoints(held, body, 0.0, physicsClientId=model.cid)
    )
    hand = any(
        p.getClosestPoints(body, body, 0.0, linkIndexA=g, linkIndexB=b, physicsClientId=model.cid)
        for g in (robot.arm[-1], robot.gripper_links[0])
        for b in robot.base_links
    )
    return arm, hand


def test_the_boxes_never_hide_a_collision_of_the_held_mug_with_the_arm_or_of_the_hand_with_the_base():
    state = task_state("mug3", 0)
    model = PlanningModel(WorldState({n: state.objects[n] for n in ("table", "mug")}))
    try:
        tpos, tquat = model.robot.tcp_pose()
        p.resetBasePositionAndOrientation(
            model.bodies["mug"],
            (tpos[0], tpos[1], tpos[2] - 0.02),
            tquat,
            physicsClientId=model.cid,
        )
        model.attach("mug")
        rng = np.random.default_rng(3)
        lo, hi = np.array(model.limits).T
        seen = {"mug↔the arm": 0, "self": 0, None: 0}
        for _ in range(1500):
            q = tuple(rng.uniform(lo, hi))
            verdict = model.in_collision(q)
            if verdict not in seen:  # the table, the workspace box: checked before (or after) these
                continue
            arm, hand = _exhaustive(model)
            seen[verdict] += 1
            if verdict is None:
                assert not arm and not hand, q
            elif verdict == "self":
                assert hand, q
            else:
                assert arm, q
        assert min(seen.values()) >= 3, seen  # each verdict met, so the comparison means something
    finally:
        model.close()
