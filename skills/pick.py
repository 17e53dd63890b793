"""pick(o): grasp a movable object from above and lift it (SPEC §2.1: Kin(q, o, g, p)).

Sampler: grasps spread over the object's box — mostly top-down with any yaw, some tilted up to
0.35 rad — whose width across the fingers fits the 85 mm opening. Controller: free motion to a
pre-grasp 10 cm above, straight approach, close, straight lift by 12 cm.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.tamp.operators import OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from sim.bullet import to_bullet
from sim.robot import MAX_OPENING
from skills.base import Grip, Move, Outcome, Skill
from skills.motions import APPROACH, raised, reach, straight, touching_now, transit

LIFT = 0.12  # metres


class PickSkill(Skill):
    schema = OperatorSchema(
        name="pick",
        params=(("o", "Movable"),),
        pre=(("HandEmpty", ()),),
        add=(("AtGrasp", ("o",)),),
        delete=(("HandEmpty", ()),),
        description=(
            "pick(o): grasps the movable object o with the parallel gripper and lifts it off whatever "
            "it rests on. The hand must be empty. No description of how is needed."
        ),
    )

    def sample(self, model: PlanningModel, args: tuple[str, ...], rng: np.random.Generator) -> dict:
        obj = model.state().get(args[0])
        yaw = rng.uniform(-math.pi, math.pi)
        tilt = 0.0 if rng.random() < 0.7 else rng.uniform(-0.35, 0.35)
        hx, hy, hz = (s / 2 for s in obj.size)
        # at or above the centre, so that the finger pads clear the table
        offset = (rng.uniform(-0.3, 0.3) * hx, rng.uniform(-0.3, 0.3) * hy, rng.uniform(0.0, 0.4) * hz)
        return {"yaw": yaw, "tilt": tilt, "offset": offset}

    def simulate(self, model: PlanningModel, args: tuple[str, ...], params: dict) -> Outcome:
        o = args[0]
        if model.held is not None:
            return Outcome.fail(f"hand is not empty (holding {model.held})", model.held)
        obj = model.state().get(o)
        # TCP z axis points down (roll = π), turned by yaw and tilted about the closing axis.
        quat = p.getQuaternionFromEuler((math.pi, params["tilt"], params["yaw"]))
        opos = obj.pose.position
        pos = tuple(c + d for c, d in zip(opos, params["offset"], strict=True))
        target = (pos, quat)
        if _width_across_fingers(obj, quat) > MAX_OPENING - 0.01:
            return Outcome.fail(f"{o} is too wide for the gripper at this grasp", o)
        q0 = model.robot.arm_q()
        q_grasp = reach(model, target, seed=q0)
        if q_grasp is None:
            return Outcome.fail(f"no inverse-kinematics solution for the grasp on {o}", o)
        hit = model.in_collision(q_grasp, ignore=(o,))
        if hit:
            return Outcome.fail(f"the grasp on {o} collides with {hit}", hit)
        q_pre = reach(model, raised(target, APPROACH), seed=q_grasp)
        if q_pre is None:
            return Outcome.fail(f"no inverse-kinematics solution above {o}", o)
        path = transit(model, q0, q_pre)
        if path is None:
            return Outcome.fail(f"no collision-free motion to above {o}", o)
        approach = straight(model, q_pre, q_grasp, ignore=(o,))
        if approach is None:
            return Outcome.fail(f"the approach to {o} is blocked", o)
        model.set_arm(q_grasp)
        supports = touching_now(model, o)
        model.attach(o)
        q_lift = reach(model, raised(target, LIFT), seed=q_grasp)
        if q_lift is None:
            return Outcome.fail(f"cannot lift {o} straight up", o)
        lift = straight(model, q_grasp, q_lift, ignore=supports)
        if lift is None:
            return Outcome.fail(f"lifting {o} is blocked", o)
        model.set_arm(q_lift)
        return Outcome(ok=True, commands=[Move(path), Move(approach), Grip("close", expect=o), Move(lift)])


def _width_across_fingers(obj, quat) -> float:
    """Extent (m) of the object's box along the gripper's closing axis (TCP x)."""
    rot = p.getMatrixFromQuaternion(quat)
    axis = (rot[0], rot[3], rot[6])
    orot = p.getMatrixFromQuaternion(to_bullet(obj.pose)[1])
    half = [s / 2 for s in obj.size]
    return 2 * sum(abs(axis[0] * orot[j] + axis[1] * orot[3 + j] + axis[2] * orot[6 + j]) * half[j] for j in range(3))
