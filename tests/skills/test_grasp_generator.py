"""The pick's grasp generator and the place's reachable hint (session 16), on Coffee's upside-down mug
(real pybullet, real skills): the sampler yields grasps whose open hand clears the mug itself and closes
squarely on it (before, 115 of 212 draws on seed 0 failed "the open fingers cut into mug"), and the place
after the pick draws half its samples around the spot and yaw the look-ahead found the arm reaches from
that very grasp (before, 125 broad draws failed and a regrasp followed)."""

from __future__ import annotations

import numpy as np
import pytest

from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.search import SketchItem, plan
from owl_bt.tamp.step_context import StepContext
from sim import tasks
from sim.world import SimWorld
from skills.place import REACHABLE_SPREAD

UPRIGHT = """
def goal_check0():
    return abs(mug.pose.roll) < 0.2 and abs(mug.pose.pitch) < 0.2
"""
# what the open hand and the object alone decide (not the arm, the table or other objects)
OBJECT_ONLY = (
    "the open fingers cut into",
    "at a slant",
    "on the edge of",
    "off the middle",
    "would close beside",
)


@pytest.fixture(scope="module")
def coffee():
    world = SimWorld()
    try:
        tasks.get("coffee").build(world, 0)
        return world.ground_truth()
    finally:
        world.close()


def _reasons(model, skill, draw, n, rng):
    out = []
    for _ in range(n):
        params = draw(model, ("mug",), rng)
        snap = model.snapshot()
        res = skill.simulate(model, ("mug",), params)
        model.restore(snap)
        model.drop_snapshot(snap)
        out.append("" if res.ok else res.reason)
    return out


@pytest.mark.slow
def test_the_grasp_generator_yields_grasps_the_mug_itself_does_not_refuse(skills, coffee):
    pick = skills["pick"]
    model = PlanningModel(coffee)
    try:
        drawn = _reasons(model, pick, pick.sample, 30, np.random.default_rng(0))
        raw = _reasons(model, pick, pick._draw, 30, np.random.default_rng(0))
    finally:
        model.close()
    refused = sum(any(w in r for w in OBJECT_ONLY) for r in raw)
    assert refused >= 10  # the broad draws: a third or more
    # judged at the grasp itself; the arm's IK lands 2-4 mm off it, so a grasp on the very edge may still be refused
    assert sum(any(w in r for w in OBJECT_ONLY) for r in drawn) <= refused / 2
    assert not [r for r in drawn if "the open fingers cut into" in r and "mug" in r][3:]
    assert drawn.count("") > raw.count("")


@pytest.mark.slow
def test_the_place_after_the_pick_starts_from_what_the_look_ahead_found_reachable(skills, coffee):
    checkers = CheckerSet.compile(UPRIGHT, coffee, env_from_state(coffee))
    items = [
        SketchItem(GroundOp("pick", ("mug",))),
        SketchItem(GroundOp("place_ontop", ("mug", "table"))),
    ]
    res = plan(
        coffee,
        skills,
        items,
        [("goal_check0", checkers.as_callable("goal_check0"))],
        np.random.default_rng(0),
        budget=500,
        max_skeletons=1,
    )
    assert res.failure is None, res.failure.line()
    pick, place = res.refinement.steps
    # 125 broad draws failed here before, then a regrasp (10 at most before grips closed only until the fingers
    # met resistance; 19 since, the mug held a little otherwise)
    assert place.samples <= 25, place.samples
    up = place.expected["mug"]
    assert abs(up.roll) < 0.2 and abs(up.pitch) < 0.2

    # the mechanism: from that grasp, half the draws are around the reachable spot and yaw, marked so
    model = PlanningModel(coffee)
    try:
        assert skills["pick"].simulate(model, ("mug",), pick.params).ok
        step = StepContext(checks=[("goal_check0", checkers.as_callable("goal_check0"))])
        place = skills["place_ontop"]
        assert place.grasp_fits(model, ("mug", "table"), step.checks, step=step) is None
        hint = step.place_hint
        assert hint.obj == "mug" and hint.grasp == model.grasp
        spot = hint.params
        rng = np.random.default_rng(1)
        draws = [place.sample(model, ("mug", "table"), rng, step=step) for _ in range(200)]
    finally:
        model.close()
    near = [d for d in draws if d.get("reachable")]
    assert 70 <= len(near) <= 130
    d, a = REACHABLE_SPREAD
    for n in near:
        assert n["face"] == spot["face"] and abs(n["dyaw"] - spot["dyaw"]) <= a
        assert abs(n["x"] - spot["x"]) <= d and abs(n["y"] - spot["y"]) <= d


def test_a_straight_line_retreat_keeps_the_tcp_on_the_line_and_its_turn(coffee):
    """Coffee seed 8: a level hand held low beside the stood-up mug backed out by one joint-space segment
    swung its wrist through the table (24 of 26 retreats refused); `cartesian` backs out along the line."""
    import math

    import pybullet as p

    from skills.motions import backed, cartesian, reach

    model = PlanningModel(coffee)
    try:
        level = p.getQuaternionFromEuler(
            (math.pi / 2, 0.0, 0.0)
        )  # the fingers pointing along +y, level
        start = ((0.5, -0.1, 0.1), level)
        q0 = reach(model, start)
        assert q0 is not None
        end = backed(start, 0.1)
        path = cartesian(model, q0, start, end)
        assert path is not None and len(path) >= 5
        for q in path:
            model.set_arm(q)
            pos, quat = model.robot.tcp_pose()
            # on the segment start → end (within the IK's 5 mm), the hand not turned
            t = sum((a - b) * (c - b) for a, b, c in zip(pos, start[0], end[0], strict=True)) / 0.01
            on = [
                b + min(1.0, max(0.0, t)) * (c - b) for b, c in zip(start[0], end[0], strict=True)
            ]
            assert math.dist(pos, on) <= 0.006
            assert (
                2 * math.acos(min(1.0, abs(sum(x * y for x, y in zip(quat, level, strict=True)))))
                <= 0.06
            )
        model.set_arm(path[-1])
        assert math.dist(model.robot.tcp_pose()[0], end[0]) <= 0.006
    finally:
        model.close()


def test_a_mug_to_be_poured_is_held_from_the_side_near_its_axis_not_by_the_edge_of_its_wall(skills):
    """Mug3 seed 0: a side grasp drawn anywhere in the mug's box (its handle widens it) put the pads 3.5 cm
    off the axis of a 3.6 cm mug; the planning model's fingers held it, the arm's slipped off ("gripper closed
    on nothing"), and the replan spent 500 draws. From the side, the pads now stay near the axis along the approach."""
    import pybullet as p

    from skills.pick import _grasp_target
    from tests.support.worlds import task_state

    state = task_state("mug3", 0)
    model = PlanningModel(state)
    step = StepContext(next_op=GroundOp("pour", ("mug", "table")))
    try:
        centre, _, radius = model.opening("mug")
        rng, off_axis = np.random.default_rng(0), []
        for _ in range(150):
            params = skills["pick"].sample(model, ("mug",), rng, step=step)
            if abs(abs(params["tilt"]) - np.pi / 2) > 0.3:
                continue  # from above
            pos, quat = _grasp_target(state.get("mug"), params)
            m = p.getMatrixFromQuaternion(quat)
            off_axis.append(
                abs((pos[0] - centre[0]) * m[2] + (pos[1] - centre[1]) * m[5])
            )  # along the approach
    finally:
        model.close()
    assert len(off_axis) > 60  # most draws are from the side (the mug is poured next)
    assert max(off_axis) < 0.5 * radius, max(off_axis)
