"""A thing that came away on the open fingers (a mug lifted by them as they left the strawberry put in
it) is caught on the hand: the monitor fails the step, and no later attempt judges the goal done while
it hangs there ("put the strawberry in the mug", Mug2 seed 0, ended with the mug in the air at
the arm's home and said success). On the real simulator; the whole run is in
tests/e2e/test_monitor_runs.py."""

from __future__ import annotations

from owl_bt.state import Pose
from sim import tasks
from sim.world import SimWorld
from trees.recover import caught_on_hand, hanging


def _scene():
    world = SimWorld()
    tasks.get("mug2").build(world, 0)
    return world


def test_a_mug_hanging_at_the_hand_is_caught_and_one_on_the_table_is_not():
    world = _scene()
    try:
        state = world.ground_truth()
        assert caught_on_hand(state) == ()
        (x, y, z), _ = world.robot.tcp_pose()
        mug = state.get("mug")
        # the fingers in the mug's mouth: its rim just around the tool point, the strawberry inside it
        hanging = state.with_pose("mug", Pose(x, y, z - mug.size[2] / 2 + 0.02, 0.0, 0.0, 0.0))
        inside = hanging.with_pose("strawberry", Pose(x, y, z - mug.size[2] + 0.03, 0.0, 0.0, 0.0))
        assert caught_on_hand(hanging) == ("mug",)
        assert caught_on_hand(inside) == ("mug",)  # what is in it hangs with it, not on the hand
        # held, it is carried, and so is what is in it: neither is caught
        held = inside.__class__(
            objects=inside.objects, robot=world.robot_state("mug"), source=inside.source
        )
        assert caught_on_hand(held) == ()
        berry_at_hand = held.with_pose(
            "strawberry", Pose(x, y, z - mug.size[2] / 2 + 0.01, 0.0, 0.0, 0.0)
        )
        assert caught_on_hand(berry_at_hand) == ()
    finally:
        world.close()


def test_a_mug_hanging_on_the_held_orange_is_caught_and_one_left_on_the_table_is_not():
    # Gen3 Mug2 seed 8: the orange, wedged in the mug's mouth, was lifted and the mug came with it; the
    # replans then looked for motions around the hanging mug for 40 minutes
    world = _scene()
    try:
        state = world.ground_truth()
        (x, y, z), _ = world.robot.tcp_pose()
        mug, orange = state.get("mug"), state.get("orange")
        held = state.with_pose("orange", Pose(x, y, z, 0.0, 0.0, 0.0))
        held = held.__class__(
            objects=held.objects, robot=world.robot_state("orange"), source=held.source
        )
        assert caught_on_hand(held) == ()  # lifted clear of the mug, which stays on the table
        # the mug up around the orange's lower half, its rim against it, clear of the table
        rim = z - orange.size[2] / 4
        hung = held.with_pose("mug", Pose(x, y, rim - mug.size[2] / 2, 0.0, 0.0, 0.0))
        assert caught_on_hand(hung) == ("mug",)
        line = hanging(("mug",), "after pick(orange)", "orange")
        assert line.startswith("mug hangs on the orange in the gripper after pick(orange)")
    finally:
        world.close()
