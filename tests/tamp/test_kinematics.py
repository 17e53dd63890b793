"""Kin(q, o, g, p): the UR5e's closed-form IK against pybullet's iterative IK on the same body (real
pybullet, real `ur_analytic_ik`). Every answer must put the TCP on the target, lie inside the planning
limits and, of the arm's solutions, be the one nearest the seed."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pybullet as p
import pytest

from owl_bt.state import WorldState
from owl_bt.tamp.kinematics import reaches, solve_ik
from owl_bt.tamp.planning_model import PlanningModel
from sim.robot import UR5E


@pytest.fixture(scope="module")
def model():
    m = PlanningModel(WorldState(objects={}))
    yield m
    m.close()


def _targets(n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):  # over the table, the hand turned up to ~70° from pointing down
        pos = (rng.uniform(0.25, 0.8), rng.uniform(-0.45, 0.45), rng.uniform(0.0, 0.45))
        rpy = (math.pi + rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2), rng.uniform(-3.0, 3.0))
        out.append((pos, p.getQuaternionFromEuler(rpy)))
    return out


def test_closed_form_answers_reach_the_target_within_limits_and_solve_what_pybullet_solves(model):
    assert model.robot.spec.closed_form_ik == "ur5e"
    iterative = dataclasses.replace(UR5E, closed_form_ik=None)
    closed_n = iterative_n = 0
    for target in _targets(60, 1):
        model.set_arm(UR5E.home)
        q = solve_ik(model, target, seed=UR5E.home)
        if q is not None:
            closed_n += 1
            assert all(isinstance(v, float) for v in q)
            assert model.within_limits(q) and tuple(model.robot.arm_q()) == pytest.approx(q)
            assert reaches(model, target)
            pos, _ = model.robot.tcp_pose()
            assert math.dist(pos, target[0]) < 1e-6  # exact, not within the 5 mm tolerance
        model.robot.spec, spec = iterative, model.robot.spec
        try:
            model.set_arm(UR5E.home)
            q_it = solve_ik(model, target, seed=UR5E.home)
        finally:
            model.robot.spec = spec
        if q_it is not None:
            iterative_n += 1
            assert q is not None, f"pybullet's IK reaches {target}, the closed form does not"
    assert iterative_n >= 20 and closed_n >= iterative_n


def test_of_the_solutions_the_answer_is_the_one_nearest_the_seed(model):
    target = ((0.5, 0.1, 0.15), p.getQuaternionFromEuler((math.pi, 0.0, 1.0)))
    model.set_arm(UR5E.home)
    near_home = solve_ik(model, target, seed=UR5E.home)
    assert near_home is not None
    # the same target from a seed with the wrist turned most of a turn further: the answer keeps that turn
    turn = -2 * math.pi if near_home[5] > 0 else 2 * math.pi
    seed = near_home[:5] + (near_home[5] + turn * 0.9,)
    far = solve_ik(model, target, seed=seed)
    assert far is not None and reaches(model, target)
    assert far[5] == pytest.approx(near_home[5] + turn, abs=1e-6)
    assert far[:5] == pytest.approx(near_home[:5], abs=1e-6)


def test_out_of_reach_is_none_and_leaves_the_arm_at_the_seed(model):
    model.set_arm(UR5E.home)
    assert (
        solve_ik(
            model, ((1.5, 0.0, 0.2), p.getQuaternionFromEuler((math.pi, 0.0, 0.0))), seed=UR5E.home
        )
        is None
    )
    assert tuple(model.robot.arm_q()) == pytest.approx(UR5E.home)
