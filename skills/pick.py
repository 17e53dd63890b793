"""pick(o): grasp a movable object from above and lift it (Kin(q, o, g, p)).

Sampler: grasps near the middle of the object's box (offsets in its frame, a ball's in the world's; an upright container held from
the side near its axis; from above, 30 % anywhere in its box — rim grasps) — mostly top-down with any
yaw, some tilted up to 0.35 rad, some up to 0.9 rad about or across the closing axis (what standing a
lying mug up, or a fork into a mug, needs after a turn of the wrist), and for things standing over 6 cm
tall a quarter from the side (what pouring from a can needs) — whose width across the fingers fits the 85 mm opening; optionally
pre-shaped (opened only 3 cm wider than the object). Controller: free motion to a pre-grasp 10 cm
back along the fingers (above, for a hand pointing down), straight approach, close, straight lift by 12 cm.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from owl_bt.tamp.operators import CONTAINER_CATEGORIES, GroundOp, OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import StepContext, context
from sim.bullet import to_bullet
from sim.robot import MAX_OPENING, PAD_ORIGIN_OFFSET
from skills.base import Grip, Move, Outcome, Skill
from skills.motions import (
    APPROACH,
    RELEASE_PRESS,
    backed,
    cuts_into,
    pointing_down,
    raised,
    reach,
    straight,
    sunk_into,
    touching_now,
    transit,
)
from skills.pour_grasp import mouth_covered_before_grip

LIFT = 0.12  # metres
BALL_OFFSET, BALL_HEIGHT = (
    0.002,
    0.75,
)  # a ball's grasp (world frame: its turn means nothing): m off its middle; up to
# this share of its radius above (others 0.4, too low for an orange resting in a mug's mouth)
SUPPORT_CLEARANCE, WALL_CLEARANCE = (
    0.002,
    0.01,
)  # metres the closed fingers keep above what the object rests on, and
# from a movable support's wall or rim beside it: a few millimetres of perception error and the fingers pinch it with
# the object (an orange lifted off a mug's mouth would take the mug along)
SIDE_SHARE, SIDE_MIN_HEIGHT = (
    0.25,
    0.06,
)  # share of grasps from the side for an object standing taller (m) ...
POUR_SIDE_SHARE = 0.8  # ... when it is to be poured next (from above, the palm covers its mouth)
FINGERTIP_DROP = 0.018  # metres the closed fingertips reach below the TCP (the Robotiq's swing)
SLANT_TOL = 0.006  # metres the object's middle may shift across the pads' width
PAD_SPAN = 0.006  # metres either side of the pads' centre line that the object must fill
GRIP_TURN_MAX = math.radians(
    8
)  # an object the closing fingers turn by more than this is not grasped there
CENTRING_TOL = 0.012  # metres: how far the two fingers' distances to the object may differ
PRESS_MAX = 0.006  # metres the closing fingers may press the object down into what it rests on ...
RIM_SHARE = 0.4  # share of grasps on a container (mug, bowl, can) that pinch its wall at the rim
RIM_WALL = 0.004  # metres: a container's wall thickness, taken as its catalogue's typical
RIM_DEPTH = (0.008, 0.02)  # metres below the rim, along its axis, that the pads pinch the wall
RIM_UPRIGHT = 0.9  # a container whose opening's axis points this far up (cosine) stands upright
RIM_CLEARANCE = 0.012  # metres between each pre-shaped pad and the wall it straddles
CLEAR_TRIES = 20  # grasps the sampler draws until one whose open hand clears the object itself ...
CUT_DEPTH = 0.002  # ... by this many metres of overlap (as the simulated check: "the open fingers cut into it")
PRESS_SHARE = (
    2.0  # ... and at most this many times the thickness of a thin support (4 mm for a 2 mm mat)
)


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

    def sample(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        rng: np.random.Generator,
        step: StepContext | None = None,
    ) -> dict:
        """One grasp of args[0] (params: yaw, tilt rad; axis; offset m, world frame, from its centre; preshape;
        for a rim grasp an opening m). A grasp generator: of up to CLEAR_TRIES draws, the first whose open
        hand clears the object itself (`_hand_clears`: the object's own shape, nothing else — a mug lying
        or upside down fits between the 85 mm fingers only where its handle and wall let it); the arm's
        reach, the table and the other objects are judged per sample by `simulate`. `step.next_op`:
        a pour of the same object next makes grasps from the side likelier."""
        next_op = context(step).next_op
        for _ in range(CLEAR_TRIES):
            params = self._draw(model, args, rng, next_op)
            if _hand_clears(model, args[0], params):
                break
        return params

    def _draw(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        rng: np.random.Generator,
        nxt: GroundOp | None = None,
    ) -> dict:
        obj = model.state().get(args[0])
        yaw = rng.uniform(-math.pi, math.pi)
        u = rng.random()
        tilt = 0.0 if u < 0.65 else rng.uniform(-0.35, 0.35) if u < 0.85 else rng.uniform(-0.9, 0.9)
        axis = "across" if rng.random() < 0.5 else "about"  # tilt across or about the closing axis
        long_axis, along = _long_axis(obj), False
        lying = (
            long_axis is not None and abs(long_axis[2]) < 0.8
        )  # an elongated thing, not standing up
        if lying and rng.random() < 0.5:
            # an elongated thing (a fork) lying flat, on its edge or leaning on something: close across
            # it, as people do, the pads turned along its slope
            across = math.atan2(long_axis[1], long_axis[0]) + math.pi / 2
            yaw = across + rng.uniform(-0.15, 0.15) + (math.pi if rng.random() < 0.5 else 0.0)
            slope = math.asin(max(-1.0, min(1.0, long_axis[2])))
            if abs(slope) > 0.1:
                tilt, axis = (
                    (slope if rng.random() < 0.5 else -slope) + rng.uniform(-0.1, 0.1),
                    "about",
                )
            # not lying flat (on its edge, leaning): held somewhere along its axis, the TCP at or just
            # above it (its box's own z axis is no longer up)
            along = abs(obj.pose.roll) > 0.3 or abs(obj.pose.pitch) > 0.3
        lo, hi = obj.aabb()
        # To be poured next, a can, a bottle or a mug is held from the side: from above the palm covers the
        # mouth (no rim grasps then), and draws from above are refused for the pour: most draws come
        # from the side.
        poured = nxt is not None and nxt.name == "pour" and nxt.args[:1] == args[:1]
        side_share = POUR_SIDE_SHARE if poured else SIDE_SHARE
        # (a fork leaning up high is no bottle: never from the side)
        side = hi[2] - lo[2] > SIDE_MIN_HEIGHT and not lying and rng.random() < side_share
        if side:
            # from the side, the hand level with the table and the fingers either side (a can to pour
            # from: from above the palm would sit over its mouth)
            tilt, axis = (
                (math.pi / 2 if rng.random() < 0.5 else -math.pi / 2) + rng.uniform(-0.2, 0.2),
                "about",
            )
        hx, hy, hz = (s / 2 for s in obj.size)
        short = min(hx, hy, hz)
        # Heights from the middle up: a tall object is held where the palm clears its top. From the side, a container too is held
        # near its middle: held by the edge of its wall it holds in plans, not on the arm.
        if side or obj.category not in CONTAINER_CATEGORIES or rng.random() < 0.7:
            # near the middle: up to 40 % of an elongated half-size, 25 % otherwise
            local = tuple(
                rng.uniform(-1, 1) * h * (0.4 if h > 1.5 * short else 0.25) for h in (hx, hy)
            )
            if (
                obj.shape == "sphere"
            ):  # the closing pads centre a ball: held off its middle, it is only pushed
                # (an orange gripped 7 mm off centre is pushed sideways, into whatever is beside it)
                local = tuple(rng.uniform(-BALL_OFFSET, BALL_OFFSET) for _ in range(2))
            # A thin object (a fork flat on the table) is pinched by the fingertips, which swing down to
            # 1.8 cm below the TCP as they close: hold the TCP just high enough for them to clear the table.
            lift = FINGERTIP_DROP + 0.002 - hz
            up = BALL_HEIGHT if obj.shape == "sphere" else 0.4
            local += (rng.uniform(lift, lift + 0.008) if lift > 0 else rng.uniform(0.0, up * hz),)
        else:  # a container also anywhere in its box: by the rim, one finger inside
            local = (rng.uniform(-hx, hx), rng.uniform(-hy, hy), rng.uniform(0.0, 0.8) * hz)
        if side and poured:  # high enough that the wrist, level behind, clears the table
            local = (*local[:2], rng.uniform(0.3, 0.7) * hz)
        rimmed = (
            not (side or poured) and model.opening(args[0]) is not None
        )  # (poured: the palm would cover the mouth)
        rim = _rim_grasp(model, args[0], rng) if rimmed and rng.random() < RIM_SHARE else None
        if rim is not None:  # by the wall at its rim, one pad inside, however the container lies
            return rim
        rot = (
            p.getMatrixFromQuaternion(to_bullet(obj.pose)[1])
            if obj.shape != "sphere"
            else (1, 0, 0, 0, 1, 0, 0, 0, 1)
        )
        offset = tuple(sum(rot[3 * i + j] * local[j] for j in range(3)) for i in range(3))
        # at or above the centre, so that the finger pads clear what the object stands on
        offset = (offset[0], offset[1], abs(offset[2]))
        mouth = model.opening(args[0]) if side else None
        if (
            mouth is not None and mouth[1][2] >= RIM_UPRIGHT
        ):  # round an upright container's axis, not its box's middle
            offset = (
                offset[0] + mouth[0][0] - obj.pose.x,
                offset[1] + mouth[0][1] - obj.pose.y,
                offset[2],
            )  # (a handle)
        if along:
            t = rng.uniform(-0.4, 0.4) * max(obj.size) / 2
            offset = (
                long_axis[0] * t,
                long_axis[1] * t,
                long_axis[2] * t + rng.uniform(0.0, 0.012),
            )
        # pre-shape: open only a little wider than the object before the approach (as people do with
        # a fork flat on the table), so the pads meet it low and the closing swing is small
        return {
            "yaw": yaw,
            "tilt": tilt,
            "axis": axis,
            "offset": offset,
            "preshape": bool(rng.random() < 0.6),
        }

    def simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        step: StepContext | None = None,
    ) -> Outcome:
        o = args[0]
        if model.held is not None:
            return Outcome.fail(f"hand is not empty (holding {model.held})", model.held)
        obj = model.state().get(o)
        target = _grasp_target(obj, params)
        q0 = model.robot.arm_q()
        q_grasp = reach(model, target, seed=q0)
        if q_grasp is None:
            return Outcome.fail(f"no inverse-kinematics solution for the grasp on {o}", o)
        hit = model.in_collision(q_grasp, ignore=(o,))
        if hit:
            return Outcome.fail(f"the grasp on {o} collides with {hit}", hit)
        preshape = params.get("opening") or (
            _preshape_width(model, obj) if params.get("preshape") else None
        )
        angle = model.robot.angle_for_opening(preshape) if preshape is not None else 0.0
        fit, width = _fit_between_pads(model, o, q_grasp, angle)
        if fit:
            return Outcome.fail(fit, o)
        # The Robotiq's fingertips swing down as they close: closed on o, they must clear its support.
        model.robot.reset_fingers(model.robot.angle_for_opening(width))
        supports = [s for s in touching_now(model, o) if s != o]
        scrape = next(
            (
                s
                for s in supports
                if p.getClosestPoints(
                    model.robot.body, model.bodies[s], SUPPORT_CLEARANCE, physicsClientId=model.cid
                )
            ),
            None,
        )
        walled = next(
            (s for s in supports if not model.objects[s].fixed and _near_wall(model, o, s)), None
        )
        model.robot.reset_fingers(0.0)
        if scrape is not None:
            return Outcome.fail(f"the closing fingers would dig into {scrape} under {o}", o)
        if walled is not None:
            return Outcome.fail(
                f"the closed fingers would come within {WALL_CLEARANCE * 100:.0f} cm of {walled}'s "
                f"rim or wall beside {o} and could take it along",
                o,
            )
        # from above for a hand pointing down; a hand held sideways comes in along its fingers
        q_pre = reach(
            model,
            raised(target, APPROACH) if pointing_down(target) else backed(target, APPROACH),
            seed=q_grasp,
        )
        if q_pre is None:
            return Outcome.fail(f"no inverse-kinematics solution above {o}", o)
        path = transit(
            model, q0, q_pre
        )  # with the hand open, as every release and let-go leaves it
        if path is None:
            return Outcome.fail(f"no collision-free motion to above {o}", o)
        # Pre-shaped above the object, not before the transit: closing, the fingertips swing down
        # 1-2 cm, and a hand shaped beside a tall neighbour would knock it over on the way (one the
        # open hand clears). The approach is checked with the fingers as they will be.
        model.robot.reset_fingers(angle)
        shaped = model.in_collision(q_pre, ignore=(o,)) if angle else None
        approach = None if shaped else straight(model, q_pre, q_grasp, ignore=(o,))
        model.robot.reset_fingers(0.0)
        if approach is None or cuts_into(model, o, approach, angle):
            return Outcome.fail(f"the approach to {o} is blocked", o)
        if covered := mouth_covered_before_grip(
            model, o, q_grasp, angle, context(step).next_op
        ):  # cheap before dear: a ray, not a grip
            return Outcome.fail(covered, o)
        # The fingers close under physics, as the arm's do: o slides onto the middle of the hand and
        # turns between the pads, and the plan goes on from the grasp it really ends up in.
        before = model.pose(o)
        press = min([PRESS_MAX] + [model.state().get(s).size[2] * PRESS_SHARE for s in supports])
        held = model.grip(o, q_grasp, angle)
        if o not in held:
            return Outcome.fail(f"the closing fingers would push {o} away instead of holding it", o)
        caught = [b for b in model.finger_contacts() if b != o]
        if caught:  # the arm would drag it along, or take it instead of o
            return Outcome.fail(
                f"the fingers would catch {caught[0]} as they close on {o}", caught[0]
            )
        turn = _turn(before, model.pose(o))
        if (
            turn > GRIP_TURN_MAX and obj.shape != "sphere"
        ):  # a pinch that twists the object: where it ends up is chance, not plan
            return Outcome.fail(
                f"the closing fingers would turn {o} by over {math.degrees(GRIP_TURN_MAX):.0f}°", o
            )
        if before.z - model.pose(o).z > press:
            # The knuckles close over its rim and press it into its support (a tall can sinks 5-11 mm
            # into a 2 mm mat): on the arm it then sticks there as it is lifted, and is yanked free
            # with a kick that throws out what is inside it.
            return Outcome.fail(f"the closing fingers would press {o} down onto its support", o)
        # Slid into the hand as the fingers closed, o may sit so deep in it (a lying mug's handle in the palm) that
        # the hand, opened again, still overlaps it: no place could then let go of it and back out, and
        # each placement would be refused for the grasp, never for where it went.
        sunk, link = sunk_into(model, o)
        model.robot.reset_fingers(model.grip_angle)
        if sunk > RELEASE_PRESS:
            return Outcome.fail(
                f"at this grasp {o} would sit {sunk * 1000:.0f} mm into the {link.replace('_', ' ')}: "
                "the opened hand could not let go of it",
                o,
            )
        supports = touching_now(
            model, o
        )  # what it rests on once gripped (it may have settled onto it)
        q_lift = reach(model, raised(target, LIFT), seed=q_grasp)
        if q_lift is None:
            return Outcome.fail(f"cannot lift {o} straight up", o)
        lift = straight(model, q_grasp, q_lift, ignore=supports)
        if lift is None:
            return Outcome.fail(f"lifting {o} is blocked", o)
        model.set_arm(q_lift)
        shape = [Grip("open", width=preshape)] if preshape is not None else []
        return Outcome(
            ok=True,
            commands=[Move(path), *shape, Move(approach), Grip("close", expect=o), Move(lift)],
            expected={o: model.pose(o)},
        )


def _grasp_target(obj, params: dict) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The TCP pose (position m, quaternion xyzw; world frame) of pick params on obj: the TCP z axis
    points down (roll = π), turned by yaw and tilted about (or across) the closing axis."""
    if params.get("axis") == "about":
        quat = p.getQuaternionFromEuler((math.pi + params["tilt"], 0.0, params["yaw"]))
    else:
        quat = p.getQuaternionFromEuler((math.pi, params["tilt"], params["yaw"]))
    return tuple(c + d for c, d in zip(obj.pose.position, params["offset"], strict=True)), quat


def _hand_clears(model: PlanningModel, o: str, params: dict) -> bool:
    """Does the open (or pre-shaped) hand at the grasp `params` clear o itself (by CUT_DEPTH), and will its
    fingers close squarely on o (`_between_pads`: on it, across the pads' width, not at a slant, near the
    middle)? Judged without the arm's inverse kinematics: the arm, as it is, is moved bodily (its base) so that its TCP
    sits at the grasp, and only the gripper's links are tested against o; then all is put back."""
    robot, cid = model.robot, model.cid
    obj = model.state().get(o)
    base = p.getBasePositionAndOrientation(robot.body, physicsClientId=cid)
    fingers = robot.finger_joints()
    tcp_inv = p.invertTransform(*robot.tcp_pose())
    moved = p.multiplyTransforms(
        *_grasp_target(obj, params), *p.multiplyTransforms(*tcp_inv, *base)
    )
    try:
        p.resetBasePositionAndOrientation(robot.body, *moved, physicsClientId=cid)
        width = params.get("opening") or (
            _preshape_width(model, obj) if params.get("preshape") else None
        )
        angle = robot.angle_for_opening(width) if width is not None else 0.0
        robot.reset_fingers(angle)
        return (
            not robot.gripper_inside(model.bodies[o], CUT_DEPTH)
            and _between_pads(model, o, angle)[0] is None
        )
    finally:
        p.resetBasePositionAndOrientation(robot.body, *base, physicsClientId=cid)
        robot.reset_fingers(fingers)


def _near_wall(model: PlanningModel, o: str, s: str) -> bool:
    """Are the fingers, as the arm and fingers are now set, within WALL_CLEARANCE of a part of movable
    support s that rises beside o (more than 5 mm above o's lowest point, world frame: a mug's rim
    around the orange in its mouth), rather than lying under it (a plate under a strawberry)? Only for
    an s that reaches lower than o (o rests on or in it): not the ball inside a mug being picked."""
    low = model.lowest_point(o)[2]
    if (
        model.lowest_point(s)[2] > low - 0.005
    ):  # not under o: something o touches beside it, or its contents
        return False
    return any(
        c[6][2] > low + 0.005
        for c in p.getClosestPoints(
            model.robot.body, model.bodies[s], WALL_CLEARANCE, physicsClientId=model.cid
        )
    )


def _rim_grasp(model: PlanningModel, o: str, rng: np.random.Generator) -> dict | None:
    """Pick parameters that pinch upright container o's wall at its rim from above, the hand
    pre-shaped, the fingers closing across the wall (radially), one pad inside, RIM_DEPTH below the
    rim, anywhere round it. None when o has no opening or does not stand upright (lying, the inner
    finger would have to come down through its wall; upside down, the rim is on the table)."""
    rim = model.opening(o)
    if rim is None:
        return None
    centre, axis, radius = np.asarray(rim[0]), np.asarray(rim[1]), rim[2]
    if axis[2] < RIM_UPRIGHT:  # lying, the inner finger would have to come down through its wall
        return None
    a = rng.uniform(-math.pi, math.pi)
    u = np.array([math.cos(a), math.sin(a), 0.0])  # radial: the fingers close across the wall
    point = centre + (radius + RIM_WALL / 2) * u - rng.uniform(*RIM_DEPTH) * axis
    obj = model.state().get(o)
    offset = tuple(float(v) for v in point - np.asarray(obj.pose.position))
    # pre-shaped to a little more than the wall: fully open (85 mm), the inner finger would be in the far wall
    return {
        "yaw": math.atan2(u[1], u[0]) + rng.uniform(-0.1, 0.1),
        "tilt": 0.0,
        "axis": "about",
        "offset": offset,
        "preshape": True,
        "opening": RIM_WALL + 2 * RIM_CLEARANCE,
    }


def _long_axis(obj) -> tuple[float, float, float] | None:
    """Unit vector (world frame) of an elongated object's long box axis (one clearly longer than
    the others, like a fork's or a knife's), or None."""
    k = max(range(3), key=lambda i: obj.size[i])
    if any(obj.size[k] < 1.5 * obj.size[i] for i in range(3) if i != k):
        return None
    rot = p.getMatrixFromQuaternion(to_bullet(obj.pose)[1])
    return (rot[k], rot[3 + k], rot[6 + k])


def _preshape_width(model: PlanningModel, obj) -> float | None:
    """The pads' opening (metres) for a pre-shaped approach: the object's box measured along the
    closing axis (the TCP's x axis, after IK) plus 3 cm; None when that is nearly fully open anyway."""
    _, quat = model.robot.tcp_pose()
    m = p.getMatrixFromQuaternion(quat)
    closing = (m[0], m[3], m[6])
    r = p.getMatrixFromQuaternion(to_bullet(obj.pose)[1])
    half = [s / 2 for s in obj.size]
    extent = 2 * sum(
        abs(sum(closing[i] * r[3 * i + j] for i in range(3))) * half[j] for j in range(3)
    )
    return extent + 0.03 if extent + 0.03 < MAX_OPENING - 0.015 else None


def _fit_between_pads(
    model: PlanningModel, o: str, q: tuple[float, ...], angle: float = 0.0
) -> tuple[str | None, float]:
    """(None, width in metres) when the open fingers at q straddle o and will close on it; else (the reason, 0).
    Rays cast between the open finger pads (at three heights along the approach axis) must hit o
    from both sides, the width they measure must fit the opening with 6 mm to spare, and the open
    fingers must not already cut into o (its real shape — a mug's handle, a rim — not its box)."""
    model.set_arm(q)
    model.robot.reset_fingers(angle)
    if any(
        c[8] < -CUT_DEPTH
        for c in p.getClosestPoints(
            model.robot.body, model.bodies[o], 0.0, physicsClientId=model.cid
        )
    ):
        return f"the open fingers cut into {o} at this grasp", 0.0
    return _between_pads(model, o, angle)


def _between_pads(model: PlanningModel, o: str, angle: float) -> tuple[str | None, float]:
    """_fit_between_pads's test of the fingers as they are now (the hand wherever the arm or its moved base
    put it), opened to `angle`: (None, width m) when they will close squarely on o, else (the reason, 0)."""
    cid, body, target = model.cid, model.robot.body, model.bodies[o]
    model.robot.reset_fingers(0.0)
    open_pads = [p.getLinkState(body, link, physicsClientId=cid)[4] for link in model.robot.pads]
    model.robot.reset_fingers(angle)
    tcp, tquat = model.robot.tcp_pose()  # midway between the open pads; its x axis closes them
    rot = p.getMatrixFromQuaternion(tquat)
    closing, lateral, approach = (
        (rot[0], rot[3], rot[6]),
        (rot[1], rot[4], rot[7]),
        (rot[2], rot[5], rot[8]),
    )
    # a pre-shaped hand's pads sit lower (along the approach) by as much as their link origins moved
    pads = [p.getLinkState(body, link, physicsClientId=cid)[4] for link in model.robot.pads]
    along = sum(
        (pads[0][i] + pads[1][i] - open_pads[0][i] - open_pads[1][i]) / 2 * approach[i]
        for i in range(3)
    )
    tpos = tuple(tcp[i] + approach[i] * along for i in range(3))
    opening = model.robot.opening() - PAD_ORIGIN_OFFSET
    half = opening / 2 - 0.006  # start just inside the pads, or the rays hit the pads first
    starts, ends = [], []
    for dy in (-PAD_SPAN, 0.0, PAD_SPAN):  # across the pads' width ...
        for dz in (-0.01, 0.0, 0.01):  # ... and along their length
            c = tuple(tpos[i] + lateral[i] * dy + approach[i] * dz for i in range(3))
            pa = tuple(c[i] + closing[i] * half for i in range(3))
            pb = tuple(c[i] - closing[i] * half for i in range(3))
            starts += [pa, pb]
            ends += [pb, pa]
    p.performCollisionDetection(
        physicsClientId=cid
    )  # ray tests read the broadphase: refresh it after resets
    hits = p.rayTestBatch(starts, ends, physicsClientId=cid)
    pairs = [
        (ha, hb)
        for ha, hb in zip(hits[0::2], hits[1::2], strict=True)
        if ha[0] == target and hb[0] == target
    ]
    lines = [
        any(
            ha[0] == target and hb[0] == target
            for ha, hb in zip(hits[k : k + 6 : 2], hits[k + 1 : k + 6 : 2], strict=True)
        )
        for k in (0, 6, 12)
    ]
    if not pairs:
        return f"the fingers would close beside {o}, not on it", 0.0
    if not all(lines):  # the object must span the pads' width, or it slips out sideways
        return f"the fingers would close on the edge of {o} only", 0.0
    # Where each line across the pads finds the object's middle (along the closing axis): a bar held
    # at a slant has it drift from line to line, and the parallel pads would twist it out.
    middles = []
    for k in (0, 6, 12):
        line = [
            (ha, hb)
            for ha, hb in zip(hits[k : k + 6 : 2], hits[k + 1 : k + 6 : 2], strict=True)
            if ha[0] == target and hb[0] == target
        ]
        middles.append(sum((ha[2] - hb[2]) for ha, hb in line) / len(line) * half)
    if max(middles) - min(middles) > SLANT_TOL:
        return f"the fingers would meet {o} at a slant", 0.0
    widths = [math.dist(ha[3], hb[3]) for ha, hb in pairs]
    if max(widths) > opening - 0.006:
        return f"{o} is too wide for the gripper at this grasp", 0.0
    # The fingers close symmetrically: an object far off the middle would be shoved, not gripped.
    skew = [abs(ha[2] - hb[2]) * 2 * half for ha, hb in pairs]
    if min(skew) > CENTRING_TOL:
        return f"{o} sits {min(skew) * 100:.0f} cm off the middle of the fingers at this grasp", 0.0
    return None, min(widths)


def _turn(a: Pose, b: Pose) -> float:
    """The angle (radians) between two orientations."""
    qa, qb = to_bullet(a)[1], to_bullet(b)[1]
    return 2.0 * math.acos(min(1.0, abs(sum(x * y for x, y in zip(qa, qb, strict=True)))))
