"""Motion pieces shared by skills: IK to a TCP target, free motion, and straight approach/retreat.

All in the planning model; joint values in radians, distances in metres, world frame.
"""

from __future__ import annotations

import math

import pybullet as p

from owl_bt.tamp.kinematics import solve_ik
from owl_bt.tamp.motion import densify, plan_motion, segment_free
from owl_bt.tamp.planning_model import PlanningModel, Transform

APPROACH = 0.10  # metres: pre-grasp / pre-place stand-off along world z


def raised(target: Transform, dz: float) -> Transform:
    return ((target[0][0], target[0][1], target[0][2] + dz), target[1])


def backed(target: Transform, d: float) -> Transform:
    """The TCP target moved d metres back along its own z axis (out of a grasp, the way the fingers
    point from); for a hand pointing straight down, d metres up."""
    m = p.getMatrixFromQuaternion(target[1])
    z = (m[2], m[5], m[8])
    return (tuple(c - d * a for c, a in zip(target[0], z, strict=True)), target[1])


def pointing_down(target: Transform, within: float = 0.8) -> bool:
    """Is the TCP's z axis within `within` radians of straight down?"""
    m = p.getMatrixFromQuaternion(target[1])
    return -m[8] > math.cos(within)


def reach(
    model: PlanningModel, target: Transform, seed: tuple[float, ...] | None = None
) -> tuple[float, ...] | None:
    return solve_ik(model, target, seed=seed)


def transit(
    model: PlanningModel,
    q_from: tuple[float, ...],
    q_to: tuple[float, ...],
    ignore: tuple[str, ...] = (),
):
    """Densified collision-free waypoints q_from → q_to, or None."""
    path = plan_motion(model, q_from, q_to, ignore=ignore)
    return None if path is None else tuple(densify(path))


CARTESIAN_STEP = 0.02  # metres between the IK points of a straight TCP line


def straight(
    model: PlanningModel,
    q_from: tuple[float, ...],
    q_to: tuple[float, ...],
    ignore: tuple[str, ...] = (),
):
    """Joint-interpolated short segment (approach/retreat), or None when it collides."""
    if not segment_free(model, q_from, q_to, ignore):
        return None
    return tuple(densify([q_from, q_to], 0.02))


def cartesian(
    model: PlanningModel,
    q_from: tuple[float, ...],
    start: Transform,
    end: Transform,
    ignore: tuple[str, ...] = (),
    step: float = CARTESIAN_STEP,
):
    """Waypoints moving the TCP in a straight line from `start` (where q_from puts it) to `end`, same
    orientation (world frame, m): IK every `step` metres, each seeded from the last, so the arm keeps its
    branch; each segment collision free. None when a point has no IK or a segment collides. (A joint-space
    segment to the far end may swing a level wrist held low through the table.)"""
    n = max(1, math.ceil(math.dist(start[0], end[0]) / step))
    qs = [tuple(q_from)]
    for k in range(1, n + 1):
        point = tuple(a + (b - a) * k / n for a, b in zip(start[0], end[0], strict=True))
        q = reach(model, (point, end[1]), seed=qs[-1])
        if q is None or not segment_free(model, qs[-1], q, ignore):
            model.set_arm(q_from)
            return None
        qs.append(q)
    return tuple(densify(qs, 0.02))


def touching_now(model: PlanningModel, name: str) -> tuple[str, ...]:
    """Names of bodies that `name` touches (within 2 mm) in the planning model."""
    out = []
    for other, bid in model.bodies.items():
        if other != name and p.getClosestPoints(
            model.bodies[name], bid, 0.002, physicsClientId=model.cid
        ):
            out.append(other)
    return tuple(out)


def sunk_into(model: PlanningModel, name: str, angle: float = 0.0) -> tuple[float, str]:
    """How deep (metres, 0 when clear) the hand, as the arm is now with the fingers set to driver angle
    `angle` (radians; 0 = fully open), overlaps `name`, and the arm link that does. The fingers are left
    at `angle`."""
    model.robot.reset_fingers(angle)
    pts = p.getClosestPoints(model.robot.body, model.bodies[name], 0.0, physicsClientId=model.cid)
    if not pts:
        return 0.0, ""
    c = min(pts, key=lambda c: c[8])
    link = (
        p.getJointInfo(model.robot.body, c[3], physicsClientId=model.cid)[12].decode()
        if c[3] >= 0
        else "base"
    )
    return max(0.0, -c[8]), link


RELEASE_PRESS = (
    0.007  # m the opened fingers may overlap a released object that stands, where they let go of it
)


def cuts_into(
    model: PlanningModel, name: str, waypoints, angle: float = 0.0, depth: float = 0.002
) -> bool:
    """Do the open fingers cut into `name` (by over 2 mm) anywhere along these arm waypoints? An
    approach that would shove it, or a retreat that would drag it along (a mug's handle hooked on a
    finger). `angle`: the fingers' joint angle (radians; 0 = fully open, a pre-shaped hand more);
    `depth`: metres of overlap that count."""
    model.robot.reset_fingers(angle)
    for q in waypoints:
        model.set_arm(q)
        if any(
            c[8] < -depth
            for c in p.getClosestPoints(
                model.robot.body, model.bodies[name], 0.0, physicsClientId=model.cid
            )
        ):
            return True
    return False
