"""The planning model's collision check of a held object: against the arm's own links it is a
collision, while what it touched as it was gripped belongs to the grasp. Real planning model, real
pybullet, Mug3's scene."""

from __future__ import annotations

from owl_bt.state import Pose
from owl_bt.tamp.planning_model import PlanningModel
from tests.support.worlds import task_state


def test_a_held_fork_swung_into_the_arm_is_a_collision_and_a_grasp_contact_is_not():
    # Mug3: the fork held for place_inside swung into the forearm on the arm, which stalled ("blocked
    # against fork"); the planning model did not check a held object against the arm's own links.
    s0 = task_state("mug3", 0)
    model = PlanningModel(s0)
    try:
        q = list(model.robot.home)
        model.set_arm(q)
        tcp = model.robot.tcp_pose()[0]
        model.set_pose(
            "fork", Pose(*tcp, 0.0, 0.0, 0.0)
        )  # held at its middle, lying along x under the hand
        model.attach("fork")
        assert model.in_collision(q) is None
        q[3] += 1.8  # the wrist turned back: the fork's end meets the arm
        assert model.in_collision(q) == "fork↔the arm"
        # what the held object touched as it was gripped is its grasp's own, not a collision
        model.set_arm(q)
        model.attach("fork")
        assert model.in_collision(q) is None
    finally:
        model.close()
