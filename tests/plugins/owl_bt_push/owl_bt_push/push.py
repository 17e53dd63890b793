"""push(o, s): slide the movable object o across the table onto the flat surface s, never lifting it.

Continuous parameters (the sampler): where o's centre should end (`x`, `y`, metres, world frame,
drawn over s's box — so owl-bt's constraint-guided sampling can redraw them inside the bounds the
generated checkers test), the push `direction` (radians about z) and `distance` (metres) that
follow from them, and the `height` (metres) of the hand's lowest point above o's bottom.

Controller: the gripper, open and turned so that its closing axis lies along the push (the leading
finger's outer face, upright, meets o over its height from `height` up), comes down
behind o (the leading finger's outer face towards it), moves in a straight line (inverse kinematics
every centimetre) until o's centre has travelled `distance`, and rises straight up. In the planning
model the push is kinematic: o is moved to its end pose and physics settles it there; it must come
to rest on s. Only owl-bt's public skill API is used (skills.base, skills.motions, the planning model,
the refinement's StepContext, which a push does not need).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from owl_bt.tamp.operators import OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import StepContext
from skills.base import Move, Outcome, Skill
from skills.motions import APPROACH, raised, reach, straight, transit

STANDOFF = 0.03  # metres between the finger and o where the push starts
MAX_DISTANCE = 0.30  # metres: longer pushes drift too much to be planned kinematically
MIN_DISTANCE = 0.01
STEP = 0.01  # metres between inverse-kinematics waypoints along the push
MAX_JOINT_JUMP = 0.25  # radians between neighbouring waypoints (a jump is an IK branch flip)
REST_SPEED = 0.02  # m/s: slower than this after settling counts as at rest
TIP_MARGIN = 0.6  # share of the tipping height (half-depth / friction) the finger may meet o at


class PushSkill(Skill):
    schema = OperatorSchema(
        name="push",
        params=(("o", "Movable"), ("s", "Surface")),
        pre=(("HandEmpty", ()),),
        add=(("On", ("o", "s")),),
        delete=(),
        description=(
            "push(o, s): slides the movable object o along the table with the side of the open gripper "
            "until it rests on the flat surface s (a region, mat or the table), without lifting it: for "
            "objects that are better not grasped. The hand must be empty. Describe where on s o should end."
        ),
        open_world=True,
    )

    def sample(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        rng: np.random.Generator,
        step: StepContext | None = None,
    ) -> dict:
        o, s = args
        state = model.state()
        obj = state.get(o)
        lo, hi = state.get(s).aabb()
        olo, ohi = obj.aabb()
        mx, my = (
            min((ohi[0] - olo[0]) / 2, (hi[0] - lo[0]) / 4),
            min((ohi[1] - olo[1]) / 2, (hi[1] - lo[1]) / 4),
        )
        x, y = rng.uniform(lo[0] + mx, hi[0] - mx), rng.uniform(lo[1] + my, hi[1] - my)
        tall = ohi[2] - olo[2]
        height = rng.uniform(0.003, max(0.004, min(0.015, 0.2 * tall)))
        return {"x": x, "y": y, "height": height, **_direction(obj.pose, x, y)}

    def simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        step: StepContext | None = None,
    ) -> Outcome:
        o, s = args
        if model.held is not None:
            return Outcome.fail(f"hand is not empty (holding {model.held})", model.held)
        obj = model.state().get(o)
        params.update(_direction(obj.pose, params["x"], params["y"]))  # x, y may have been redrawn
        dist, yaw = params["distance"], params["direction"]
        if not MIN_DISTANCE <= dist <= MAX_DISTANCE:
            return Outcome.fail(
                f"a push of {dist * 100:.0f} cm is outside {MIN_DISTANCE * 100:.0f}–{MAX_DISTANCE * 100:.0f} cm",
                o,
            )
        u = (math.cos(yaw), math.sin(yaw))
        olo, ohi = obj.aabb()
        back = (
            abs(u[0]) * (ohi[0] - olo[0]) / 2 + abs(u[1]) * (ohi[1] - olo[1]) / 2
        )  # centre to the face pushed
        # A box pushed with its lowest point of contact above half its depth over the friction
        # coefficient tips over instead of sliding; the fingers meet o from `height` up.
        if params["height"] > TIP_MARGIN * back / max(obj.friction, 0.1):
            return Outcome.fail(f"pushed {params['height'] * 100:.1f} cm up, {o} would tip over", o)
        quat = p.getQuaternionFromEuler(
            (math.pi, 0.0, yaw)
        )  # tool down, closing axis along the push
        model.robot.reset_fingers(0.0)
        q0 = model.robot.arm_q()
        # Start well behind o with the hand's lowest point `height` above o's bottom (measured as
        # its clearance over the fixed things below: the table, flat markers), then measure how far
        # the leading finger still is from o.
        far = back + STANDOFF + 0.10
        z = olo[2] + 0.10
        below = [
            n
            for n, st in model.state().objects.items()
            if st.fixed and st.aabb()[1][2] <= olo[2] + 0.005
        ]
        for _ in range(3):
            start = ((obj.pose.x - u[0] * far, obj.pose.y - u[1] * far, z), quat)
            q_start = reach(model, start, seed=q0)
            if q_start is None:
                return Outcome.fail(f"no inverse-kinematics solution behind {o}", o)
            model.set_arm(q_start)
            clearance = min(
                (
                    c[8]
                    for n in below
                    for c in p.getClosestPoints(
                        model.robot.body, model.bodies[n], 0.5, physicsClientId=model.cid
                    )
                ),
                default=None,
            )
            if clearance is None:
                return Outcome.fail(
                    f"nothing under the hand behind {o} to measure its height against", o
                )
            z += (
                olo[2]
                + params["height"]
                - (max(model.state().get(n).aabb()[1][2] for n in below) + clearance)
            )
        gap = _gap_along(model, o, obj.pose, u, far)
        if gap is None:
            return Outcome.fail(f"the hand behind {o} would not meet it when moving towards {s}", o)
        lead = (
            far - back - gap
        )  # how far ahead of the TCP the leading finger reaches along the push
        start = (
            (
                obj.pose.x - u[0] * (back + STANDOFF + lead),
                obj.pose.y - u[1] * (back + STANDOFF + lead),
                z,
            ),
            quat,
        )
        q_start = reach(model, start, seed=q_start)
        q_above = (
            reach(model, raised(start, APPROACH), seed=q_start) if q_start is not None else None
        )
        if q_start is None or q_above is None:
            return Outcome.fail(f"no inverse-kinematics solution behind {o}", o)
        path = transit(model, q0, q_above)
        if path is None:
            return Outcome.fail(f"no collision-free motion to behind {o}", o)
        descent = straight(model, q_above, q_start)
        if descent is None:
            return Outcome.fail(f"the way down behind {o} is blocked", o)
        push = self._line(model, start, q_start, STANDOFF + dist, u, ignore=(o,))
        if push is None:
            return Outcome.fail(f"no straight, collision-free push of {o} towards {s}", s)
        end = (
            (start[0][0] + u[0] * (STANDOFF + dist), start[0][1] + u[1] * (STANDOFF + dist), z),
            quat,
        )
        q_up = reach(model, raised(end, APPROACH), seed=push[-1])
        # the kinematic push: o ends `dist` further along, then physics settles it
        model.set_pose(o, Pose(params["x"], params["y"], obj.pose.z, *obj.pose.euler))
        retreat = straight(model, push[-1], q_up, ignore=(o,)) if q_up is not None else None
        if retreat is None:
            return Outcome.fail(f"cannot rise from {o} after the push", o)
        model.set_arm(q_up)
        model.settle(0.5)
        if model.object_velocity(o) > REST_SPEED:
            return Outcome.fail(f"{o} does not come to rest where it was pushed", o)
        lo, hi = model.state().get(s).aabb()
        at = model.pose(o)
        if not (lo[0] <= at.x <= hi[0] and lo[1] <= at.y <= hi[1]):
            return Outcome.fail(f"{o} does not end over {s}", s)
        return Outcome(
            ok=True,
            commands=[Move(path), Move(descent), Move(push), Move(retreat)],
            expected={o: at},
        )

    @staticmethod
    def _line(model: PlanningModel, start, q_start, length: float, u, ignore: tuple[str, ...]):
        """Joint waypoints moving the TCP `length` metres along u from `start`, IK every STEP, or None."""
        qs, q = [q_start], q_start
        n = max(1, math.ceil(length / STEP))
        for i in range(1, n + 1):
            d = length * i / n
            target = ((start[0][0] + u[0] * d, start[0][1] + u[1] * d, start[0][2]), start[1])
            nxt = reach(model, target, seed=q)
            if nxt is None or max(abs(a - b) for a, b in zip(nxt, q, strict=True)) > MAX_JOINT_JUMP:
                return None
            if model.in_collision(nxt, ignore=ignore):
                return None
            qs.append(nxt)
            q = nxt
        return tuple(qs)


def _gap_along(
    model: PlanningModel, o: str, pose: Pose, u: tuple[float, float], far: float
) -> float | None:
    """How far the hand (as it is now) can move along u before it touches o: o is slid towards the
    hand instead (in 5 mm steps, then bisection to 1 mm) and put back. None when it never touches
    within `far`."""

    def touches(d: float) -> bool:
        model.set_pose(o, Pose(pose.x - u[0] * d, pose.y - u[1] * d, pose.z, *pose.euler))
        p.performCollisionDetection(
            physicsClientId=model.cid
        )  # refresh the broadphase after the reset
        return any(
            c[8] <= 0.0
            for c in p.getClosestPoints(
                model.robot.body, model.bodies[o], 0.001, physicsClientId=model.cid
            )
        )

    try:
        if touches(0.0):
            return 0.0
        steps = [far * i / math.ceil(far / 0.005) for i in range(1, math.ceil(far / 0.005) + 1)]
        hi = next((d for d in steps if touches(d)), None)
        if hi is None:
            return None
        lo = hi - steps[0]
        while hi - lo > 0.001:
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if touches(mid) else (mid, hi)
        return lo
    finally:
        model.set_pose(o, pose)


def _direction(pose: Pose, x: float, y: float) -> dict:
    """The push direction (radians) and distance (metres) that bring o's centre from pose to (x, y)."""
    dx, dy = x - pose.x, y - pose.y
    return {"direction": math.atan2(dy, dx), "distance": math.hypot(dx, dy)}
