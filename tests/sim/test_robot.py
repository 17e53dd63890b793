"""The arm as the planner, the hand sweep and the safety guard load it: without its visual meshes
(`RobotModel.load(..., visual=False)`, sim/robot.py `collision_only`), and otherwise the same body."""

from __future__ import annotations

import pybullet as p
import pytest

from sim.bullet import connect
from sim.robot import ROBOTS, RobotModel


def _body(cid: int, body: int) -> list[tuple]:
    """Per link: its name, joint (name, type, limits), mass and local inertia, and collision shapes
    (geometry type, dimensions, mesh file, local frame)."""
    out = []
    for link in range(-1, p.getNumJoints(body, physicsClientId=cid)):
        joint = p.getJointInfo(body, link, physicsClientId=cid) if link >= 0 else None
        dyn = p.getDynamicsInfo(body, link, physicsClientId=cid)
        shapes = [s[2:] for s in p.getCollisionShapeData(body, link, physicsClientId=cid)]
        out.append(
            (joint and (joint[1], joint[2], joint[8], joint[9], joint[12]), dyn[0], dyn[2], shapes)
        )
    return out


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_the_unrendered_arm_parses_no_visual_mesh_and_has_the_same_links_joints_masses_and_collision_shapes(
    name,
):
    cid, other = connect(gui=False), connect(gui=False)
    try:
        full = RobotModel.load(cid, robot=name)
        bare = RobotModel.load(other, robot=name, visual=False)
        collision = {shape[2] for link in _body(cid, full.body) for shape in link[3]}  # mesh files
        # the rendered arm shows its visual meshes; the other only its collision shapes (pybullet's stand-in
        # for a link without <visual>), so none of the visual meshes was parsed
        assert (
            {v[4] for v in p.getVisualShapeData(full.body, physicsClientId=cid)} - collision - {b""}
        )
        assert {
            v[4] for v in p.getVisualShapeData(bare.body, physicsClientId=other)
        } <= collision | {b""}
        assert _body(other, bare.body) == _body(cid, full.body)
        assert (bare.arm, bare.fingers, bare.tcp) == (full.arm, full.fingers, full.tcp)
        for model in (full, bare):
            model.reset_arm(model.home)
        assert bare.tcp_pose() == full.tcp_pose()  # the same kinematics
    finally:
        p.disconnect(cid)
        p.disconnect(other)
