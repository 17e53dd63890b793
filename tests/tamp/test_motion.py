"""OMPL RRT-Connect finds a collision-free joint path around an obstacle the straight path hits, and the
same query gives the same path (seeded from the query, bounded by checks, not seconds)."""

from __future__ import annotations

import time

from owl_bt.state import ObjectState, Pose, WorldState
from owl_bt.tamp.motion import WALL_CAP_S, densify, plan_motion, segment_free
from owl_bt.tamp.planning_model import PLANNING_BOX, PlanningModel
from skills.guard import WORKSPACE_BOX
from skills.motions import reach


def test_path_around_a_wall():
    wall = ObjectState("wall", "box", Pose(0.36, 0.0, 0.2), (0.04, 0.3, 0.4), fixed=True)
    model = PlanningModel(WorldState(objects={"wall": wall}))
    try:
        q1 = (-1.2, -1.9, 1.9, -1.571, -1.571, 0.0)
        q2 = (1.2, -1.9, 1.9, -1.571, -1.571, 0.0)
        assert model.in_collision(q1) is None and model.in_collision(q2) is None
        assert not segment_free(model, q1, q2)  # the direct sweep hits the wall
        path = plan_motion(model, q1, q2)
        assert path is not None and len(path) > 2
        assert plan_motion(model, q1, q2) == path  # reproducible
        assert plan_motion(model, q1, q2, budget=1) is None  # the budget bounds the effort
        assert path[0] == q1 and all(abs(a - b) < 1e-9 for a, b in zip(path[-1], q2, strict=True))
        assert all(model.in_collision(q) is None for q in densify(path, 0.02))
    finally:
        model.close()


def test_the_planner_keeps_inside_the_guards_workspace_box():
    (glo, ghi), (plo, phi) = WORKSPACE_BOX, PLANNING_BOX
    assert all(g < q for g, q in zip(glo[:2], plo[:2], strict=True)) and glo[2] <= plo[2]
    assert all(q < g for g, q in zip(ghi, phi, strict=True))
    model = PlanningModel(WorldState(objects={}))
    try:  # an arm stretched out to its side puts the tool outside the box: not a valid configuration
        q = (-1.571, -0.3, 0.0, -1.571, -1.571, 0.0)
        assert model.robot.tcp_pose()[0] is not None
        model.set_arm(q)
        assert model.robot.tcp_pose()[0][1] < PLANNING_BOX[0][1]
        assert model.in_collision(q) == "the workspace box"
    finally:
        model.close()


def test_a_held_object_dipping_below_the_box_beside_the_table_is_outside_it():
    # Gen3 Mug3 seed 0: a pour onto the table swung the held mug to 2 cm under the table's top level
    # beside the table, next to the arm's base; the planning model never checked the box's floor for a
    # held object and the safety guard refused the waypoint on the arm.
    cube = ObjectState("cube", "box", Pose(0.35, 0.3, 0.2), (0.06, 0.06, 0.06))
    model = PlanningModel(WorldState(objects={"cube": cube}))
    try:
        down = (1.0, 0.0, 0.0, 0.0)  # the hand pointing down
        high = reach(model, ((0.35, 0.3, 0.2), down))
        model.set_arm(high)
        model.set_pose("cube", Pose(*model.robot.tcp_pose()[0], 0.0, 0.0, 0.0))
        model.attach("cube")
        assert model.in_collision(high) is None
        low = reach(
            model, ((0.35, 0.3, 0.01), down), seed=high
        )  # the tool just above z = 0, the cube 2 cm under
        assert low is not None and model.robot.tcp_pose()[0][2] >= PLANNING_BOX[0][2]
        assert model.in_collision(low) == "the workspace box"
    finally:
        model.close()


def test_a_goal_that_spills_what_the_hand_carries_is_refused_at_once():
    # Mug3 seed 1: a place's transit ended where the held mug, the golf ball still in it, was tipped. The
    # validity checker refuses such a state; RRT-Connect, given a goal it judges invalid, waits for a valid one
    # (sleeping, no validity checks counted against the budget) until WALL_CAP_S: 30 s a query, minutes a run.
    mug = ObjectState(
        "mug", "mug", Pose(0.4, 0.25, 0.3), (0.098, 0.072, 0.09), shape="compound", kind="mug"
    )
    ball = ObjectState(
        "golf_ball", "golf_ball", Pose(0.4, 0.25, 0.3), (0.043, 0.043, 0.043), shape="sphere"
    )
    model = PlanningModel(WorldState(objects={"mug": mug, "golf_ball": ball}))
    try:
        down = (1.0, 0.0, 0.0, 0.0)
        high = reach(model, ((0.4, 0.25, 0.3), down))
        model.set_arm(high)
        tcp = model.robot.tcp_pose()[0]
        model.set_pose("mug", Pose(tcp[0], tcp[1], tcp[2] - 0.1, 0.0, 0.0, 0.0))
        model.set_pose("golf_ball", Pose(tcp[0], tcp[1], tcp[2] - 0.11, 0.0, 0.0, 0.0))
        model.attach("mug")
        assert model.carried and model.in_collision(high) is None and not model.spills()
        tipped = tuple(high[:4]) + (high[4] + 1.2, high[5])  # the wrist turned: the mug on its side
        assert model.in_collision(tipped) is None and model.spills()
        t0 = time.monotonic()
        assert plan_motion(model, high, tipped) is None
        assert (
            time.monotonic() - t0 < WALL_CAP_S / 3
        )  # refused, not waited on until the wall-clock cap
    finally:
        model.close()
