"""What a grasp lets a pour do (skills/pour.py): the pose of the held object tilted, how the hand
swings round it, whether the hand covers its mouth or a finger sits inside it, and whether it can be
tipped far enough at all. Looked at by the pour's sampler and by the pick before a pour
(`PourSkill.grasp_fits`), so that no grasp is kept that no pour can use.

Frames: world (m, rad); grasps as the planning model keeps them (object pose in the TCP frame).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from sim.bullet import to_bullet

MIN_MOUTH_DOWN = (
    0.17  # the emptied object's axis ends at least this far (cosine) below horizontal (~100° tilt)
)
TRAP_SHARE = (
    0.7  # contents wider than this share of the room the pads leave in a cavity catch on them
)
HAND_LENGTH = 0.25  # m back from the TCP along the fingers that the hand and wrist take up
MAX_FINGERS_UP = (
    0.3  # the fingers of a pouring hand point up at most this much (cosine with the vertical)
)
TIP_MARGIN = 0.17  # rad: a grasp for a pour must be able to tip its object this far past the least that empties it
MOUTH_GRID = 0.003  # m between the rays up through a mouth that find the way out the hand leaves
MOUTH_REACH = (
    0.06  # m above the rim within which the hand is in the way of what leaves by the mouth
)
PASS_SHARE = 1.1  # the way out must be this many times as wide as the widest of the contents


def tilted(pose, dyaw: float, tilt: float) -> tuple[float, ...]:
    """The quaternion of an object at `pose` (Pose) turned by dyaw (radians) about the vertical, then
    tilted by `tilt` (radians) about the horizontal axis across that pour direction."""
    quat0 = p.multiplyTransforms(
        (0, 0, 0), p.getQuaternionFromEuler((0, 0, dyaw)), (0, 0, 0), to_bullet(pose)[1]
    )[1]
    turn = p.getQuaternionFromAxisAngle((-math.sin(dyaw), math.cos(dyaw), 0.0), tilt)
    return p.multiplyTransforms((0, 0, 0), turn, (0, 0, 0), quat0)[1]


def hand_sweep(model: PlanningModel, o: str, dyaw: float, tilt: float) -> tuple[float, float]:
    """(lowest height (m) relative to the held o's centre that the TCP or the hand HAND_LENGTH behind it
    reaches, most the fingers point up (cosine of the tool axis with the vertical)) as o, turned by `dyaw`
    about the vertical, is tilted by `tilt` (radians) about its fixed centre (9 stages of the tilt);
    (0, -1) without a grasp."""
    if model.grasp is None:
        return 0.0, -1.0
    pose = model.state().get(o).pose
    inv = p.invertTransform(*model.grasp)
    lowest, up = math.inf, -1.0
    for k in range(9):
        tcp, quat = p.multiplyTransforms(
            (0, 0, 0), tilted(pose, dyaw, tilt * k / 8), inv[0], inv[1]
        )
        axis = p.getMatrixFromQuaternion(quat)[
            8
        ]  # the tool z axis points from the wrist to the fingers
        lowest, up = min(lowest, tcp[2], tcp[2] - axis * HAND_LENGTH), max(up, axis)
    return lowest, up


def can_tip(model: PlanningModel, o: str) -> bool:
    """Can the held o, upright now, be tipped TIP_MARGIN past the least tilt that empties it (its axis
    MIN_MOUTH_DOWN below the horizon) without the fingers pointing up more than MAX_FINGERS_UP on the way,
    one way round or the other? Not from a grasp from above: its fingers point up past 107° of tilt, and
    a container so held and tipped keeps its contents in on the arm. True for an o not upright now (a
    pour has tipped it already)."""
    if p.getMatrixFromQuaternion(to_bullet(model.state().get(o).pose)[1])[8] < 0.5:
        return True
    least = math.acos(-MIN_MOUTH_DOWN) + TIP_MARGIN
    return any(
        hand_sweep(model, o, 0.0, sign * tilt)[1] <= MAX_FINGERS_UP
        for tilt in np.linspace(least, math.pi, 6)
        for sign in (1.0, -1.0)
    )


MOUTH_COVERED = (
    "the hand would cover the mouth of {} for the pour"  # the pour's refusal of such a grasp
)
SHUT_MARGIN = 0.01  # m round the middle of a mouth that the hand must cover too, to refuse a grasp before its grip


def mouth_covered_before_grip(
    model: PlanningModel, o: str, q: tuple[float, ...], angle: float, nxt: GroundOp | None
) -> str | None:
    """For a pick of o that the skeleton's next step (`nxt`) pours out: the pour's refusal of
    the grasp (`MOUTH_COVERED`), judged before the grip is simulated, with o taken into the hand where
    it stands (arm at q, radians; fingers at driver angle `angle`, radians). A palm over the whole
    middle of the mouth is not something the grip's few millimetres and degrees change, and a grip
    is 192 physics steps, this check nine rays (`hand_over_mouth` with SHUT_MARGIN: one ray up the
    axis alone would pass a grasp from above on the side that the grip then slides over the middle
    of the mouth). None when the pour has no objection so far, or no pour comes next; the model is
    left with nothing held."""
    if nxt is None or nxt.name != "pour" or tuple(nxt.args[:1]) != (o,):
        return None
    model.set_arm(q)
    model.attach(o, angle=angle)
    try:
        covered = bool(model.carried) and hand_over_mouth(
            model, o, SHUT_MARGIN
        )  # carried: what is inside o, to pour out
    finally:
        model.detach()
    return MOUTH_COVERED.format(o) if covered else None


def hand_over_mouth(model: PlanningModel, o: str, margin: float = 0.0) -> bool:
    """Does the hand sit over the held container's opening (a grasp from above on its body puts the
    palm over a mug's mouth, and what is poured lands in it)? A ray up the container's axis from just
    under its rim; with `margin` (m), 8 more round it at that distance (at most half the inner radius),
    all of which must meet the hand too. False when o has no known opening or is not upright now."""
    cavity = model.cavity(o)
    if cavity is None:
        return False
    (x, y, z), radius, depth = cavity
    r = min(margin, radius / 2)
    spots = [(x, y)] + (
        [
            (x + r * math.cos(a), y + r * math.sin(a))
            for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
        ]
        if r > 0
        else []
    )
    # from just under the rim: the contents are below
    hits = p.rayTestBatch(
        [(u, v, z + depth - 0.005) for u, v in spots],
        [(u, v, z + depth + 0.15) for u, v in spots],
        physicsClientId=model.cid,
    )
    return all(h[0] == model.robot.body for h in hits)


def finger_inside(model: PlanningModel, o: str) -> bool:
    """Does the hand narrow the held container's cavity enough to trap what is to be poured out?
    Rays up the cavity at its axis and at half and 0.8 of its inner radius, from just over the floor
    to the rim. A ray that meets one finger only is a finger inside (a grasp by the rim: a golf ball
    wedges between it and the wall). Rays that meet both fingers are the pads of a grasp from outside
    pressed into a thin wall: that traps only contents wider than TRAP_SHARE of the room left between
    them (a golf ball catches on them; a can's soup passes). False when o has no known opening
    or is not upright now."""
    cavity = model.cavity(o)
    if cavity is None:
        return False
    (fx, fy, fz), radius, depth = cavity
    rings = [(0.0, fx, fy)] + [
        (k, fx + k * radius * math.cos(a), fy + k * radius * math.sin(a))
        for k in (0.5, 0.8)
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
    ]
    hits = p.rayTestBatch(
        [(x, y, fz + 0.005) for _, x, y in rings],
        [(x, y, fz + depth) for _, x, y in rings],
        physicsClientId=model.cid,
    )
    met = [(k, h[1]) for (k, _, _), h in zip(rings, hits, strict=True) if h[0] == model.robot.body]
    if not met:
        return False
    left, right = model.robot.finger_links()
    links = {link for _, link in met}
    if not (links & left and links & right):
        return True
    room = 2 * radius * min(k for k, _ in met)
    state = model.state()
    widest = max(
        (min(state.get(c).size) for c in (list(model.carried) or model.contents(o))), default=0.0
    )
    return widest > TRAP_SHARE * room


def mouth_passage(model: PlanningModel, o: str) -> float:
    """Width (m) of the widest clear way out of the held container's mouth: the diameter of the
    largest circle inside the rim through which rays up from just under the rim to MOUTH_REACH above
    it (MOUTH_GRID apart) meet no part of the robot. The whole mouth's width when nothing is over it;
    inf when o has no known opening. (A palm over two thirds of the mouth but clear of its middle
    passes `hand_over_mouth`, and blocks the way out all the same.) Assumes o upright, as before a
    pour."""
    cavity = model.cavity(o)
    if cavity is None:
        return math.inf
    (fx, fy, fz), radius, depth = cavity
    step = np.arange(-radius, radius + 1e-9, MOUTH_GRID)
    gx, gy = (g.ravel() for g in np.meshgrid(step, step, indexing="ij"))
    keep = np.hypot(gx, gy) <= radius
    gx, gy = gx[keep], gy[keep]
    rim = fz + depth
    hits = p.rayTestBatch(
        [(fx + x, fy + y, rim - 0.005) for x, y in zip(gx, gy, strict=True)],
        [(fx + x, fy + y, rim + MOUTH_REACH) for x, y in zip(gx, gy, strict=True)],
        physicsClientId=model.cid,
    )
    blocked = np.array([h[0] == model.robot.body for h in hits])
    if not blocked.any():
        return 2 * radius
    if blocked.all():
        return 0.0
    free = np.stack([gx[~blocked], gy[~blocked]], 1)
    walls = np.stack([gx[blocked], gy[blocked]], 1)
    to_hand = (
        np.min(np.linalg.norm(free[:, None, :] - walls[None, :, :], axis=2), axis=1)
        - MOUTH_GRID / 2
    )
    to_rim = radius - np.linalg.norm(free, axis=1)
    return float(2 * max(0.0, np.max(np.minimum(to_hand, to_rim))))
