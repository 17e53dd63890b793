"""The skills in the planning model: grasp validity by the object's real shape, pouring by physics,
reorientation by resting faces, and sampling guided by the checkers' bounds (real pybullet)."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state
from owl_bt.tamp.guidance import guide
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import _guided
from owl_bt.tamp.search import SketchItem, plan
from owl_bt.tamp.step_context import StepContext
from sim import tasks
from sim.world import SimWorld
from skills.motions import reach
from skills.pick import _fit_between_pads
from skills.pour_grasp import hand_over_mouth as _hand_over_mouth
from tests.support.worlds import settled_state

UPRIGHT = """
def goal_check0():
    return abs(mug.pose.roll) < 0.2 and abs(mug.pose.pitch) < 0.2
"""


def _picked(
    model: PlanningModel,
    skills,
    name: str,
    rng: np.random.Generator,
    accept=lambda m: True,
    step: StepContext | None = None,
) -> None:
    for _ in range(300):
        snap = model.snapshot()
        params = skills["pick"].sample(model, (name,), rng, step=step)
        if skills["pick"].simulate(model, (name,), params, step=step).ok and accept(model):
            model.drop_snapshot(snap)
            return
        model.restore(snap)
        model.drop_snapshot(snap)
    pytest.fail(f"no grasp on {name} in 300 samples")


def test_grasp_must_straddle_the_object_not_its_edge():
    model = PlanningModel(settled_state(("potted_meat_can", (0.55, 0.1, 0.042))))
    try:
        c = model.pose("potted_meat_can")
        down = p.getQuaternionFromEuler(
            (math.pi, 0.0, math.pi / 2)
        )  # closing across the can's 6 cm side
        centred = reach(model, ((c.x, c.y, c.z + 0.02), down))
        assert _fit_between_pads(model, "potted_meat_can", centred)[0] is None
        edge = reach(model, ((c.x + 0.052, c.y, c.z + 0.02), down))  # pads past the can's end
        reason, _ = _fit_between_pads(model, "potted_meat_can", edge)
        assert reason is not None and "potted_meat_can" in reason
    finally:
        model.close()


def test_pour_tips_the_ball_out_of_the_mug_only_when_tilted_enough(skills):
    world = settled_state(("mug", (0.5, -0.15, 0.046)), ("golf_ball", (0.5, -0.15, 0.04)))
    model = PlanningModel(world)
    try:
        step = StepContext(next_op=GroundOp("pour", ("mug", "table")))  # as the refiner says it
        start, rng, reasons = model.snapshot(), np.random.default_rng(0), []
        for _grasp in range(4):  # (a grid of pours: some grasps reach none of its tilts)
            model.restore(start)
            _picked(
                model,
                skills,
                "mug",
                rng,
                accept=lambda m: not _hand_over_mouth(m, "mug"),
                step=step,
            )
            assert model.carried == {
                "golf_ball": model.carried["golf_ball"]
            }  # the ball travels with the mug
            snap = model.snapshot()
            params = {"x": 0.55, "y": 0.15, "z": 0.2, "dyaw": 0.0}
            gentle = skills["pour"].simulate(model, ("mug", "table"), {**params, "tilt": 0.3})
            assert not gentle.ok and "not tilted far enough" in gentle.reason
            model.restore(snap)
            for z, tilt, dyaw in [
                (z, t, d) for z in (0.2, 0.28) for t in (1.9, -1.9, 2.3, -2.3) for d in (0.0, 1.57)
            ]:
                poured = skills["pour"].simulate(
                    model, ("mug", "table"), {**params, "z": z, "tilt": tilt, "dyaw": dyaw}
                )
                if poured.ok:
                    break
                reasons.append(poured.reason)
                model.restore(snap)
            if poured.ok:
                break
        assert poured.ok, reasons
        assert "golf_ball" not in model.contents("mug") and model.held == "mug"
    finally:
        model.close()


@pytest.mark.slow
def test_an_upside_down_mug_is_stood_up(skills):
    """A half turn needs a grasp from the side, or a regrasp through a face in between (both are
    found by the search; which one depends on the draws)."""
    world = settled_state(("mug", (0.55, 0.1, 0.046, math.pi, 0.0, 0.4)))
    checkers = CheckerSet.compile(UPRIGHT, world, env_from_state(world))
    items = [
        SketchItem(GroundOp("pick", ("mug",))),
        SketchItem(GroundOp("place_ontop", ("mug", "table"))),
    ]
    res = plan(
        world,
        skills,
        items,
        [("goal_check0", checkers.as_callable("goal_check0"))],
        np.random.default_rng(0),
        budget=500,
    )
    assert res.failure is None, res.failure
    ops = [str(s.op) for s in res.refinement.steps]
    assert ops[-2:] == ["pick(mug)", "place_ontop(mug, table)"] and len(ops) in (2, 4)
    assert (len(ops) == 4) == any("regrasp" in e for e in res.edits)
    up = res.refinement.steps[-1].expected["mug"]
    assert (
        abs(up.roll) < 0.2 and abs(up.pitch) < 0.2
    )  # where the planner expects it to rest: upright


def test_samples_are_drawn_inside_the_bounds_the_checkers_test(berry_world):
    src = """
def action_check1():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "strawberry", "light_grey_region")
    return position_within_bounds(get_obj_center(state, env, "strawberry"), b)
"""
    checkers = CheckerSet.compile(src, berry_world, env_from_state(berry_world))
    hint = guide(
        berry_world, "strawberry", [("action_check1", checkers.as_callable("action_check1"))]
    )
    lo, hi = berry_world.get("light_grey_region").aabb()
    assert (
        hint is not None
        and hint[0][0] == pytest.approx(lo[0])
        and hint[1][1] == pytest.approx(hi[1])
    )
    rng = np.random.default_rng(0)
    drawn = [_guided({"x": 0.0, "y": 0.0}, hint, rng) for _ in range(200)]
    inside = sum(lo[0] <= d["x"] <= hi[0] and lo[1] <= d["y"] <= hi[1] for d in drawn)
    assert 0.7 * 200 <= inside < 200  # most guided, some left broad
    assert (
        guide(
            berry_world,
            "light_grey_region",
            [("action_check1", checkers.as_callable("action_check1"))],
        )
        is None
    )


def test_a_pour_is_refused_when_the_palm_covers_the_mouth(skills):
    world = settled_state(("mug", (0.5, -0.15, 0.046)), ("golf_ball", (0.5, -0.15, 0.04)))
    model = PlanningModel(world)
    try:
        _picked(
            model,
            skills,
            "mug",
            np.random.default_rng(0),
            accept=lambda m: _hand_over_mouth(m, "mug"),
        )
        res = skills["pour"].simulate(
            model, ("mug", "table"), {"x": 0.55, "y": 0.15, "z": 0.2, "dyaw": 0.0, "tilt": 2.3}
        )
        assert not res.ok and "covers the mouth" in res.reason
    finally:
        model.close()


def test_a_thing_wider_than_a_containers_opening_is_said_not_to_fit(skills):
    # an apple (7 cm) and a mug (6.4 cm inside): 500 samples a step (1,519 a run, 21 s) said "placing apple
    # there collides with mug"; now the planning round ends at the first sample, saying why
    world = settled_state(
        ("mug", (0.5, -0.15, 0.046)), ("apple", (0.5, 0.15, 0.04)), ("golf_ball", (0.4, 0.15, 0.03))
    )
    model = PlanningModel(world)
    try:
        params = skills["place_inside"].sample(model, ("apple", "mug"), np.random.default_rng(0))
        out = skills["place_inside"].simulate(model, ("apple", "mug"), params)
        assert not out.ok and out.hopeless  # no other sample, grasp or edit can make it fit
        assert (
            "apple does not fit into mug" in out.reason and "opening, 6.4 cm across" in out.reason
        ), out.reason
        ball = skills["place_inside"].simulate(model, ("golf_ball", "mug"), params)
        assert "fit" not in ball.reason  # (it is not held: that is what stops it)
    finally:
        model.close()


def test_the_place_look_ahead_keeps_grasps_that_can_stand_the_mug_up_clear_of_the_table(skills):
    # Coffee seed 0: from the grasps of the upside-down mug the look-ahead accepted, the only upright
    # poses the arm could reach put the wrist, level and low beside the mug, into the table; all 4 × 125
    # placements failed ("collides with table") and only the regrasp skeleton stood it up. The
    # look-ahead now asks for the arm clear of the table, so the one-grasp skeleton does it. (On the
    # simulator's state, seeds 0, 3, 6 × draws 0-3: 8 of 12 one-grasp skeletons succeed before, 9 after,
    # in 3,214 samples against 4,120; these draws are one that failed before.)
    world = SimWorld()
    try:
        tasks.get("coffee").build(world, 0)
        state = world.ground_truth()
    finally:
        world.close()
    checkers = CheckerSet.compile(UPRIGHT, state, env_from_state(state))
    items = [
        SketchItem(GroundOp("pick", ("mug",))),
        SketchItem(GroundOp("place_ontop", ("mug", "table"))),
    ]
    res = plan(
        state,
        skills,
        items,
        [("goal_check0", checkers.as_callable("goal_check0"))],
        np.random.default_rng(2),
        budget=500,
        max_skeletons=1,
    )
    assert res.failure is None, res.failure.line()
    up = res.refinement.steps[-1].expected["mug"]
    assert abs(up.roll) < 0.2 and abs(up.pitch) < 0.2


def test_spots_drawn_on_a_flat_region_keep_the_whole_footprint_on_it(skills, berry_world):
    # The README's first run let the strawberry go with its centre 1.6 cm in from the region's
    # edge; it rolled to 5 mm from it, half off. Drawn spots keep all of it on, with 5 mm to roll.
    model = PlanningModel(berry_world)
    try:
        rng = np.random.default_rng(0)
        lo, hi = berry_world.get("light_grey_region").aabb()
        half = max(berry_world.get("strawberry").size[:2]) / 2 + 0.005
        for _ in range(200):
            params = skills["place_ontop"].sample(model, ("strawberry", "light_grey_region"), rng)
            assert lo[0] + half - 1e-9 <= params["x"] <= hi[0] - half + 1e-9
            assert lo[1] + half - 1e-9 <= params["y"] <= hi[1] - half + 1e-9
    finally:
        model.close()
