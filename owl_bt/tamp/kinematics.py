"""Inverse kinematics, checked by forward kinematics (Kin(q, o, g, p)).

An arm whose spec names a closed-form solver (the UR5e: `ur_analytic_ik`) gets every exact solution
at once and the one nearest the seed; others get pybullet's damped-least-squares IK, which can return
a configuration that does not reach the target. Every answer is verified: the TCP must land within
5 mm and 0.05 rad of the target, inside the planning joint limits.
"""

from __future__ import annotations

import importlib
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
    or None when no verified solution is found. Leaves the arm at the solution (or at seed). The
    answer is the arm's closed-form solution nearest `seed` when its spec names one (`attempts` and
    `rng` unused), else pybullet's IK from `seed`, then from `attempts` - 1 random restarts near it."""
    robot = model.robot
    start = tuple(seed) if seed is not None else robot.arm_q()
    if robot.spec.closed_form_ik is not None:
        return _closed_form(model, target, start)
    rng = rng or np.random.default_rng(0)
    lows = [lo for lo, _ in model.limits]
    highs = [hi for _, hi in model.limits]
    ranges = [hi - lo for lo, hi in model.limits]
    for attempt in range(attempts):
        init = start if attempt == 0 else tuple(s + rng.uniform(-0.6, 0.6) for s in start)
        robot.reset_arm(init)
        q = init
        for _ in range(
            4
        ):  # refine: pybullet IK converges better when re-seeded from its own answer
            sol = p.calculateInverseKinematics(
                robot.body,
                robot.tcp,
                target[0],
                target[1],
                lowerLimits=lows + [0.0] * 6,
                upperLimits=highs + [0.8] * 6,
                jointRanges=ranges + [0.8] * 6,
                restPoses=list(init) + [0.0] * 6,
                maxNumIterations=200,
                residualThreshold=1e-5,
                physicsClientId=model.cid,
            )
            q = tuple(
                _wrap_into(v, lo, hi)
                for v, (lo, hi) in zip(sol[: len(model.limits)], model.limits, strict=True)
            )
            robot.reset_arm(q)
            if reaches(model, target):
                break
        if model.within_limits(q) and reaches(model, target):
            model.set_arm(q)
            return q
    model.set_arm(start)
    return None


def _closed_form(
    model: PlanningModel, target: Transform, start: tuple[float, ...]
) -> tuple[float, ...] | None:
    """The arm's closed-form solution nearest `start` (each joint turned by whole turns to lie nearest
    it, inside the planning limits), verified like pybullet's; None when none is within limits."""
    robot = model.robot
    solver = getattr(importlib.import_module("ur_analytic_ik"), robot.spec.closed_form_ik)
    # The solver's base and flange frames, read off the loaded body at its current joints: the
    # gripper's base link sits on the flange, so world ← solver base and flange → TCP follow.
    flange = _link_matrix(model, robot.gripper_links[0])
    base = flange @ np.linalg.inv(solver.forward_kinematics(*robot.arm_q()))
    tool = np.linalg.inv(flange) @ _link_matrix(model, robot.tcp)
    wanted = np.linalg.inv(base) @ _matrix(*target) @ np.linalg.inv(tool)
    best, best_d = None, math.inf
    for sol in solver.inverse_kinematics(np.ascontiguousarray(wanted)):
        q = tuple(
            _nearest_turn(float(v), s, lo, hi)
            for v, s, (lo, hi) in zip(sol, start, model.limits, strict=True)
        )
        if any(v is None for v in q):
            continue
        d = sum((a - b) ** 2 for a, b in zip(q, start, strict=True))
        if d < best_d:
            best, best_d = q, d
    if best is not None:
        robot.reset_arm(best)
        if reaches(model, target):
            model.set_arm(best)
            return best
    model.set_arm(start)
    return None


def _nearest_turn(v: float, near: float, lo: float, hi: float) -> float | None:
    """v plus the whole number of turns that puts it nearest `near` within [lo, hi], or None."""
    if not math.isfinite(v):
        return None
    k = round((near - v) / (2 * math.pi))
    for c in sorted((v + (k + i) * 2 * math.pi for i in (-1, 0, 1)), key=lambda c: abs(c - near)):
        if lo <= c <= hi:
            return c
    return None


def _link_matrix(model: PlanningModel, link: int) -> np.ndarray:
    s = p.getLinkState(
        model.robot.body, link, computeForwardKinematics=True, physicsClientId=model.cid
    )
    return _matrix(s[4], s[5])


def _matrix(pos: tuple[float, ...], quat: tuple[float, ...]) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = np.array(p.getMatrixFromQuaternion(quat)).reshape(3, 3)
    m[:3, 3] = pos
    return m


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
