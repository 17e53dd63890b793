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


def test_a_strawberry_picked_from_the_middle_of_the_pan_does_not_carry_the_pan():
    # BerryCook seed 1: the strawberry set down in the middle of the shallow skillet had the
    # skillet's centre inside its own box, and picking it up "carried" the skillet along into the
    # bowl, where the two flung each other out: 500 samples of place_inside(strawberry, bowl) failed.
    s0 = task_state("berrycook", 1)
    model = PlanningModel(s0)
    try:
        pan = model.state().get("skillet")
        bottom = pan.aabb()[0][2]
        half = model.state().get("strawberry").size[2] / 2
        model.set_pose("strawberry", Pose(pan.pose.x - 0.01, pan.pose.y, bottom + 0.01 + half))
        lo, hi = model.state().get("strawberry").aabb()
        assert all(lo[i] < pan.pose.position[i] < hi[i] for i in range(3))  # the case it guards
        model.attach("strawberry")
        assert model.carried == {} and model.contents("strawberry") == []
        assert model.contents("skillet") == ["strawberry"]
    finally:
        model.close()
