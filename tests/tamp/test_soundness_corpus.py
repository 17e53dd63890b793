"""A soundness corpus: scenes settled by the real simulator in a plausible but wrong end state, judged
the way a run judges its end (the goal checkers, lax ones too, the implicit physical sanity of
owl_bt.tamp.sanity, and nothing left touching the hand: trees.recover.leaning_on_hand). No case
may be judged a success; the task's own detector confirms each state is wrong."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pybullet as p
import pytest

from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state
from owl_bt.state import Pose
from owl_bt.tamp.kinematics import solve_ik
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.sanity import Placement, insane
from sim import catalog
from sim.catalog.layout import resting_pose
from sim.tasks.common import held, is_inside, rests_on
from sim.world import SimWorld
from trees.recover import leaning_on_hand


@dataclass(frozen=True)
class Case:
    objects: tuple[tuple[str, str, Pose | tuple[float, float]], ...]  # kind, name, pose or (x, y)
    placements: tuple[Placement, ...]
    checkers: str  # lax goal checkers a model might plausibly write
    wrong: str  # why the state is wrong, checked by `detector`
    hand_on: str | None = None  # the open fingers left resting on this object's top, along it


def _lax(body: str) -> str:
    return f"def goal_check0():\n    return {body}\n"


FORK_ON_END = Pose(0.55, 0.16, 0.09, pitch=-math.pi / 2)
CASES = {
    # "lay the fork left of the plate": stood on end, leaning on a block there, its centre left of the plate
    "fork leaning on a block": Case(
        (
            ("plate", "plate", (0.55, 0.0)),
            ("block", "block", (0.55, 0.197)),
            ("fork", "fork", FORK_ON_END),
        ),
        (Placement("place_ontop", "fork", "table", Pose(0.55, 0.16, 0.007)),),
        _lax(
            "position_within_bounds(get_obj_center(state, env, 'fork'), "
            "modify_pose_bounds_to_be_left_of_object(state, env, init_bounds, 'plate'))"
        ),
        "fork not lying flat",
    ),
    # "put the block on the table": it came to rest on its neighbour instead
    "block on its neighbour": Case(
        (("block", "a", (0.5, 0.0)), ("block", "b", Pose(0.5, 0.01, 0.075))),
        (Placement("place_ontop", "b", "table", Pose(0.5, 0.1, 0.025)),),
        _lax("get_obj_center(state, env, 'b')[2] < 0.2"),
        "b not on the table",
    ),
    # "put the hammer in the bin": lying across it, on both rims
    "hammer across the bin": Case(
        (
            ("bin", "bin", (0.55, 0.0)),
            ("hammer", "hammer", Pose(0.55, 0.0, 0.115, yaw=math.pi / 2)),
        ),
        (Placement("place_inside", "hammer", "bin", Pose(0.55, 0.0, 0.02)),),
        _lax(
            "get_aabb_bounds(state, env, 'bin')[0][0] < get_obj_center(state, env, 'hammer')[0] "
            "< get_aabb_bounds(state, env, 'bin')[1][0]"
        ),
        "hammer not inside the bin",
    ),
    # "stand the milk carton in the pan": it fell over and lies across the pan
    "carton fallen in the pan": Case(
        (
            ("skillet", "skillet", (0.55, 0.0)),
            ("milk_carton", "milk_carton", Pose(0.49, 0.0, 0.06, pitch=math.pi / 2)),
        ),
        (Placement("place_inside", "milk_carton", "skillet", Pose(0.49, 0.0, 0.112)),),
        _lax(
            "position_within_bounds(get_obj_center(state, env, 'milk_carton'), "
            "modify_pose_bounds_to_be_inside_object(state, env, init_bounds, 'milk_carton', 'skillet'))"
        ),
        "carton not standing",
    ),
    # "put the lemon near the edge": it rolled off the table
    "lemon off the table": Case(
        (("lemon", "lemon", Pose(0.93, 0.0, 0.2)),),
        (Placement("place_ontop", "lemon", "table", Pose(0.88, 0.0, 0.027)),),
        _lax("get_obj_center(state, env, 'lemon')[0] > 0.8"),
        "lemon not on the table",
    ),
    # "put the banana in the bin": in it, but the arm stopped with its open fingers on the banana
    "fingers left on the banana": Case(
        (("bin", "bin", (0.6, 0.0)), ("banana", "banana", Pose(0.6, 0.0, 0.2))),
        (Placement("place_inside", "banana", "bin", Pose(0.6, 0.0, 0.024)),),
        _lax("get_obj_center(state, env, 'banana')[2] < get_aabb_bounds(state, env, 'bin')[1][2]"),
        "banana still touching the gripper",
        hand_on="banana",
    ),
}


def _build(case: Case) -> SimWorld:
    w = SimWorld()
    for kind, name, pose in case.objects:
        spec = catalog.make(kind, name)
        w.add(spec, pose if isinstance(pose, Pose) else resting_pose(spec, *pose))
    w.settle(2.0)
    if case.hand_on is not None:
        lo, hi = w.ground_truth().get(case.hand_on).aabb()
        at = w.pose(case.hand_on)
        model = PlanningModel(w.ground_truth())
        try:
            down = p.getQuaternionFromEuler((math.pi, 0.0, at.yaw))
            q = solve_ik(model, ((at.x, at.y, hi[2]), down))
        finally:
            model.close()
        assert q is not None, "no arm pose puts the fingers on it"
        w.robot.reset_arm(q)
        w.settle(0.5)
        p.performCollisionDetection(physicsClientId=w.cid)
    return w


def _detector_says_wrong(w: SimWorld, case: Case) -> bool:
    if case.wrong.startswith("fork"):
        return abs(w.pose("fork").pitch) > 0.5 or abs(w.pose("fork").roll) > 0.5
    if case.wrong.startswith("b "):
        return not rests_on(w, "b", "table")
    if case.wrong.startswith("hammer"):
        return not is_inside(w, "hammer", "bin")
    if case.wrong.startswith("banana"):
        return held(w, "banana")
    if case.wrong.startswith("carton"):
        return abs(w.pose("milk_carton").pitch) > 0.5 or abs(w.pose("milk_carton").roll) > 0.5
    return w.pose("lemon").z < -0.05


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_wrong_end_state_is_judged_a_success(name):
    case = CASES[name]
    w = _build(case)
    try:
        end = w.ground_truth()
        assert _detector_says_wrong(w, case), f"the corpus scene is not wrong: {case.wrong}"
    finally:
        w.close()
    checkers = CheckerSet.compile(case.checkers, end, env_from_state(end))
    goal_holds = checkers.evaluate("goal_check0", end)
    sane = insane(end, case.placements) is None and not leaning_on_hand(end)
    assert not (goal_holds and sane), f"{name}: judged a success"
