"""The UR5 (CB3) is its own arm, not a UR5e: its URDF has the CB3's lengths (the shoulder 7.3 cm
lower), and `ur_analytic_ik.ur5` solves it exactly while the UR5e's solver misses."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from owl_bt.state import RobotState, WorldState
from owl_bt.tamp.kinematics import solve_ik
from owl_bt.tamp.planning_model import PlanningModel
from sim.robot import UR5, UR5E, robot_spec


@pytest.fixture(scope="module")
def model():
    arm = RobotState(joints=UR5.home, gripper_width=0.085, held=None, arm="ur5")
    m = PlanningModel(WorldState(objects={}, robot=arm))
    yield m
    m.close()


def test_ur5_is_not_an_alias() -> None:
    assert robot_spec("ur5") is UR5 and UR5.closed_form_ik == "ur5"
    assert UR5.limits == UR5E.limits and UR5.velocity_limits == UR5E.velocity_limits


def _link(model, name: str) -> np.ndarray:
    body, cid = model.robot.body, model.cid
    index = next(
        j
        for j in range(p.getNumJoints(body, physicsClientId=cid))
        if p.getJointInfo(body, j, physicsClientId=cid)[12].decode() == name
    )
    pos, quat = p.getLinkState(body, index, computeForwardKinematics=True, physicsClientId=cid)[4:6]
    t = np.eye(4)
    t[:3, :3] = np.asarray(p.getMatrixFromQuaternion(quat)).reshape(3, 3)
    t[:3, 3] = pos
    return t


def test_shoulder_height_is_the_cb3s(model) -> None:
    model.set_arm(UR5.home)
    assert _link(model, "shoulder_link")[2, 3] == pytest.approx(0.089159, abs=1e-6)


def test_the_urdf_is_the_ur5_solvers_arm(model) -> None:
    """flange(q) · fk(q)⁻¹ is the solver's base frame: one fixed matrix for every q when the URDF
    and the solver describe the same arm (`owl_bt.tamp.kinematics._closed_form` relies on it)."""
    import ur_analytic_ik

    rng = np.random.default_rng(3)
    bases = {"ur5": [], "ur5e": []}
    for _ in range(10):
        q = tuple(float(v) for v in rng.uniform(-2.5, 2.5, 6))
        model.robot.reset_arm(q)
        flange = _link(model, "tool0")
        for name, solver in (("ur5", ur_analytic_ik.ur5), ("ur5e", ur_analytic_ik.ur5e)):
            bases[name].append(flange @ np.linalg.inv(solver.forward_kinematics(*q)))
    spread = {n: max(np.abs(b - m[0]).max() for b in m) for n, m in bases.items()}
    assert spread["ur5"] < 1e-5  # the same base for every q
    assert spread["ur5e"] > 0.02  # the UR5e's lengths do not fit this arm


def test_closed_form_ik_is_exact(model) -> None:
    rng = np.random.default_rng(3)
    solved = 0
    for _ in range(20):
        pos = (rng.uniform(0.3, 0.7), rng.uniform(-0.3, 0.3), rng.uniform(0.05, 0.35))
        quat = p.getQuaternionFromEuler((math.pi, rng.uniform(-0.4, 0.4), rng.uniform(-3, 3)))
        model.set_arm(UR5.home)
        q = solve_ik(model, (pos, quat), seed=UR5.home)
        if q is None:
            continue
        solved += 1
        assert math.dist(model.robot.tcp_pose()[0], pos) < 1e-6
    assert solved >= 15
