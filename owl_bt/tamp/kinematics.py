"""Inverse kinematics with pybullet, checked by forward kinematics (Kin(q, o, g, p), SPEC §2.1).

pybullet's damped-least-squares IK can return a configuration that does not reach the target; every
answer here is verified: the TCP must land within 5 mm and 0.05 rad of the target, inside the
planning joint limits.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.tamp.planning_model import PlanningModel, Transform

POS_TOL = 0.005  # metres
ANG_TOL = 0.05  # radians


def solve_ik(
    model: PlanningModel,
    target: Transform,
    seed: tuple[float, ...] | None = None,
    attempts: int = 3,
    rng: np.random.Generator | None = None,
) -> tuple[float, ...] | None:
    """Arm joints (radians) that put the TCP at target (position, quaternion xyzw; world frame),
    or None when no verified solution is found. Leaves the arm at the solution (or at seed)."""
    robot = model.robot
    start = tuple(seed) if seed is not None else robot.arm_q()
    rng = rng or np.random.default_rng(0)
    lows = [lo for lo, _ in model.limits]
    highs = [hi for _, hi in model.limits]
    ranges = [hi - lo for lo, hi in model.limits]
    for attempt in range(attempts):
        init = start if attempt == 0 else tuple(
            s + rng.uniform(-0.6, 0.6) for s in start
        )
        robot.reset_arm(init)
        q = init
        for _ in range(4):  # refine: pybullet IK converges better when re-seeded from its own answer
            sol = p.calculateInverseKinematics(
                robot.body, robot.tcp, target[0], target[1],
                lowerLimits=lows + [0.0] * 6, upperLimits=highs + [0.8] * 6,
                jointRanges=ranges + [0.8] * 6, restPoses=list(init) + [0.0] * 6,
                maxNumIterations=200, residualThreshold=1e-5, physicsClientId=model.cid,
            )
            q = tuple(_wrap_into(v, lo, hi) for v, (lo, hi) in zip(sol[:len(model.limits)], model.limits, strict=True))
            robot.reset_arm(q)
            if reaches(model, target):
                break
        if model.within_limits(q) and reaches(model, target):
            model.set_arm(q)
            return q
    model.set_arm(start)
    return None


def reaches(model: PlanningModel, target: Transform) -> bool:
    """Does the TCP at the arm's current joints lie within tolerance of target?"""
    pos, quat = model.robot.tcp_pose()
    if math.dist(pos, target[0]) > POS_TOL:
        return False
    dot = abs(sum(a * b for a, b in zip(quat, target[1], strict=True)))
    return 2 * math.acos(min(1.0, dot)) <= ANG_TOL


def _wrap_into(v: float, lo: float, hi: float) -> float:
    while v > hi:
        v -= 2 * math.pi
    while v < lo:
        v += 2 * math.pi
    return v
