"""Collision-free joint motion with OMPL (Motion(q1, τ, q2), SPEC §2.1).

RRT-Connect in the arm's 6-D joint space with the planning model as the validity checker, then
OMPL's path simplification. Straight-line joint paths are tried first: when the direct segment is
free, no sampling planner is needed.
"""

from __future__ import annotations

import math

import numpy as np
from ompl import base as ob
from ompl import geometric as og
from ompl import util as ou

from owl_bt.tamp.planning_model import PlanningModel

ou.setLogLevel(ou.LOG_NONE)
RESOLUTION = 0.04  # radians between collision checks along a segment


def segment_free(model: PlanningModel, q1: tuple[float, ...], q2: tuple[float, ...], ignore: tuple[str, ...] = ()) -> bool:
    """Is the straight joint-space segment q1 → q2 collision free (checked every RESOLUTION rad),
    with a held container that carries something kept upright (nothing spills on the way)?"""
    n = max(1, int(math.ceil(max(abs(a - b) for a, b in zip(q1, q2, strict=True)) / RESOLUTION)))
    for i in range(n + 1):
        q = tuple(a + (b - a) * i / n for a, b in zip(q1, q2, strict=True))
        if model.in_collision(q, ignore) is not None or model.spills():
            return False
    return True


def plan_motion(
    model: PlanningModel,
    q1: tuple[float, ...],
    q2: tuple[float, ...],
    ignore: tuple[str, ...] = (),
    timeout_s: float = 2.0,
) -> list[tuple[float, ...]] | None:
    """Joint waypoints from q1 to q2 (radians) avoiding collisions, or None when none is found in
    timeout_s. The held object (model.held) is carried along and checked too, and when it carries
    something it is kept upright all the way."""
    if model.in_collision(q1, ignore) is not None or model.in_collision(q2, ignore) is not None:
        return None
    if segment_free(model, q1, q2, ignore):
        return [tuple(q1), tuple(q2)]
    dof = len(model.limits)
    space = ob.RealVectorStateSpace(dof)
    bounds = ob.RealVectorBounds(dof)
    for i, (lo, hi) in enumerate(model.limits):
        bounds.setLow(i, lo)
        bounds.setHigh(i, hi)
    space.setBounds(bounds)
    setup = og.SimpleSetup(space)
    setup.setStateValidityChecker(
        lambda s: model.in_collision([s[i] for i in range(dof)], ignore) is None and not model.spills())
    info = setup.getSpaceInformation()
    info.setStateValidityCheckingResolution(RESOLUTION / space.getMaximumExtent())
    start, goal = space.allocState(), space.allocState()
    for i in range(dof):
        start[i], goal[i] = q1[i], q2[i]
    setup.setStartAndGoalStates(start, goal)
    setup.setPlanner(og.RRTConnect(info))
    solved = setup.solve(timeout_s)
    if not solved or not setup.haveExactSolutionPath():
        return None
    setup.simplifySolution(0.5)
    path = setup.getSolutionPath()
    out = [tuple(path.getState(i)[k] for k in range(dof)) for i in range(path.getStateCount())]
    model.set_arm(q1)
    return out


def densify(path: list[tuple[float, ...]], step: float = 0.05) -> list[tuple[float, ...]]:
    """Insert waypoints so that no joint moves more than `step` radians between two of them."""
    out = [path[0]]
    for a, b in zip(path, path[1:], strict=False):
        n = max(1, int(math.ceil(float(np.max(np.abs(np.subtract(b, a)))) / step)))
        out.extend(tuple(x + (y - x) * i / n for x, y in zip(a, b, strict=True)) for i in range(1, n + 1))
    return out
