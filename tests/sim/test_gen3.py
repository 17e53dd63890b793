"""The Kinova Gen3 + Robotiq 2F-85 model written from the published kinematics, and the robot choice
threaded through the simulator and the planning model."""

from __future__ import annotations

import math

import pybullet as p
import pytest

from owl_bt.state import RobotState, WorldState
from owl_bt.tamp.kinematics import solve_ik
from owl_bt.tamp.motion import plan_motion
from owl_bt.tamp.planning_model import PlanningModel
from sim.robot import GEN3_HOME, HOME, KINOVA_GEN3, RobotModel, robot_spec
from sim.robots import kinova_gen3
from sim.world import SimWorld


@pytest.fixture()
def cid():
    c = p.connect(p.DIRECT)
    yield c
    p.disconnect(c)


def _link(model: RobotModel, name: str) -> int:
    return next(
        j
        for j in range(p.getNumJoints(model.body, physicsClientId=model.cid))
        if p.getJointInfo(model.body, j, physicsClientId=model.cid)[12].decode() == name
    )


def test_flange_is_1_19_m_above_the_base_at_zero(cid):
    model = RobotModel.load(cid, robot="kinova-gen3")
    model.reset_arm([0.0] * 7)
    flange = p.getLinkState(
        model.body,
        _link(model, "end_effector_link"),
        computeForwardKinematics=True,
        physicsClientId=cid,
    )[4]
    assert flange[2] == pytest.approx(1.1874, abs=0.001)
    assert kinova_gen3.FLANGE_HEIGHT_AT_ZERO == pytest.approx(flange[2], abs=1e-4)
    base = KINOVA_GEN3.mount  # the base link's origin, on the table plane (z = 0)
    assert (
        math.hypot(flange[0] - base[0], flange[1] - base[1]) < 0.03
    )  # straight up (the y offsets sum to −2.5 cm)
    assert model.tcp_pose()[0][2] == pytest.approx(1.1874 + 0.145, abs=0.001)


def test_joints_limits_and_velocities_as_published(cid):
    model = RobotModel.load(cid, robot="kinova-gen3")
    info = [p.getJointInfo(model.body, j, physicsClientId=cid) for j in model.arm]
    assert [i[1].decode() for i in info] == [f"joint_{k}" for k in range(1, 8)]
    limited = {1: 2.24, 3: 2.57, 5: 2.09}
    for k, i in enumerate(info):
        if k in limited:
            assert (i[8], i[9]) == pytest.approx((-limited[k], limited[k]))
        else:  # endless on the arm; in pybullet revolute within ±4π (a "continuous" joint upsets finger contacts)
            assert (i[8], i[9]) == pytest.approx(
                (-kinova_gen3.ENDLESS_RANGE, kinova_gen3.ENDLESS_RANGE)
            )
            assert kinova_gen3.ENDLESS_RANGE > max(abs(v) for v in KINOVA_GEN3.limits[k])
        assert i[11] == pytest.approx(1.3963 if k < 4 else 1.2218)


def test_home_puts_the_tool_straight_down_above_the_table(cid):
    model = RobotModel.load(cid, robot="kinova-gen3")
    assert model.arm_q() == pytest.approx(GEN3_HOME)
    pos, quat = model.tcp_pose()
    assert 0.3 < pos[0] < 0.5 and abs(pos[1]) < 0.05 and 0.25 < pos[2] < 0.4
    z_axis = p.getMatrixFromQuaternion(quat)[2::3]
    assert z_axis[2] == pytest.approx(-1.0, abs=1e-3)


def test_unknown_robot_names_the_known_ones():
    assert robot_spec("ur5").name == "ur5" and robot_spec("Kinova-Gen3") is KINOVA_GEN3
    with pytest.raises(KeyError, match="kinova-gen3"):
        robot_spec("panda")


def test_the_planning_model_builds_the_perceived_arm_and_plans_in_7_d():
    world = SimWorld(robot="kinova-gen3")
    try:
        state = world.ground_truth()
    finally:
        world.close()
    assert state.robot.arm == "kinova-gen3" and len(state.robot.joints) == 7
    model = PlanningModel(state)
    try:
        assert model.robot.spec is KINOVA_GEN3 and len(model.limits) == 7
        target = ((0.55, 0.15, 0.20), p.getQuaternionFromEuler((math.pi, 0.0, 0.3)))
        q = solve_ik(model, target, seed=GEN3_HOME)
        assert q is not None and len(q) == 7
        path = plan_motion(model, GEN3_HOME, q)
        assert path is not None and path[-1] == pytest.approx(q)
        assert model.state().robot.arm == "kinova-gen3"
    finally:
        model.close()


def test_the_default_is_still_the_ur5e():
    model = PlanningModel(WorldState(objects={}, robot=RobotState(joints=HOME)))
    try:
        assert model.robot.spec.name == "ur5e" and len(model.limits) == 6
    finally:
        model.close()
