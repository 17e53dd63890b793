"""pick(o): grasp a movable object from above and lift it (SPEC §2.1: Kin(q, o, g, p)).

Sampler: grasps spread over the object's box (offsets in the object's frame, up to 40 % of its
half-size sideways) — mostly top-down with any yaw, some tilted up to 0.35 rad, and some tilted up
to 0.9 rad about or across the closing axis (what standing a lying mug up, or a fork into a mug,
needs after a turn of the wrist) — whose width across the fingers fits the 85 mm opening. Controller: free motion to a
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
        u = rng.random()
        tilt = 0.0 if u < 0.55 else rng.uniform(-0.35, 0.35) if u < 0.8 else rng.uniform(-0.9, 0.9)
        axis = "across" if rng.random() < 0.5 else "about"  # tilt across or about the closing axis
        hx, hy, hz = (s / 2 for s in obj.size)
        local = (rng.uniform(-0.4, 0.4) * hx, rng.uniform(-0.4, 0.4) * hy, rng.uniform(-0.4, 0.4) * hz)
        rot = p.getMatrixFromQuaternion(to_bullet(obj.pose)[1])
        offset = tuple(sum(rot[3 * i + j] * local[j] for j in range(3)) for i in range(3))
        # at or above the centre, so that the finger pads clear what the object stands on
        offset = (offset[0], offset[1], abs(offset[2]))
        return {"yaw": yaw, "tilt": tilt, "axis": axis, "offset": offset}

    def simulate(self, model: PlanningModel, args: tuple[str, ...], params: dict) -> Outcome:
        o = args[0]
        if model.held is not None:
            return Outcome.fail(f"hand is not empty (holding {model.held})", model.held)
        obj = model.state().get(o)
        # TCP z axis points down (roll = π), turned by yaw and tilted about the closing axis.
        if params.get("axis") == "about":
            quat = p.getQuaternionFromEuler((math.pi + params["tilt"], 0.0, params["yaw"]))
        else:
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
