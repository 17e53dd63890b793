"""Collision-free joint motion with OMPL (Motion(q1, τ, q2)).

RRT-Connect in the arm's joint space with the planning model as the validity checker, then shortened
by OMPL's path simplifier: redundant vertices dropped, then rope shortcutting. Its all-in-one
`simplify` (shortcuts, B-spline smoothing, repeated to a budget) made most of a transit's collision
checks, and 3.5× as many as these two for paths no shorter: over 16 carrying transits of Mug2 and Mug3
(2-7× each), these left 12 shorter in the largest joint's travel, 3 equal and 1 longer by 6 %.
Straight-line joint paths are tried first: when the direct segment is free, no sampling planner is needed.

Deterministic: OMPL's random generator is seeded from the query itself, and the effort is a budget of
collision checks rather than seconds, so the same query gives the same path on a busy machine as on
an idle one (a wall-clock limit made plans, and so CI, depend on load). A generous wall-clock cap stays
as a safety net only.
"""

from __future__ import annotations

import math
import time
import zlib

import numpy as np
from ompl import base as ob
from ompl import geometric as og
from ompl import util as ou

from owl_bt.tamp.planning_model import PlanningModel

ou.setLogLevel(ou.LOG_NONE)
RESOLUTION = 0.04  # radians between collision checks along a segment
CLEARANCE = 0.01  # metres a free motion keeps from movable objects away from its two ends (checks every RESOLUTION
# rad leave a hand 0.8 m out up to 3 cm between looks, and the arm lags its waypoints: a gripper planned
# to pass an object by less can meet it)
NEAR_END = 0.15  # radians (largest joint difference) from either end of a motion within which CLEARANCE is not asked


def _free(model: PlanningModel, q, ignore: tuple[str, ...], ends: tuple = ()) -> bool:
    """Is q collision free, keeping CLEARANCE from movable objects when it is more than NEAR_END from
    each of `ends`, with nothing spilling from a held container?"""
    far = bool(ends) and all(
        max(abs(a - b) for a, b in zip(q, e, strict=True)) > NEAR_END for e in ends
    )
    return (
        model.in_collision(q, ignore, clearance=CLEARANCE if far else 0.0) is None
        and not model.spills()
    )


CHECK_BUDGET = 6000  # validity checks per RRT-Connect query (about 2.5 s on this machine when idle)
WALL_CAP_S = 30.0  # safety net only: never reached on an idle machine


def _query_seed(q1: tuple[float, ...], q2: tuple[float, ...]) -> int:
    """A non-zero 32-bit seed that is a function of the query (joint values to 1e-4 rad)."""
    text = ",".join(f"{v:.4f}" for v in (*q1, *q2))
    return zlib.crc32(text.encode()) or 1


def _budget(counter: list[int], checks: int) -> ob.PlannerTerminationCondition:
    """Stop once `checks` more validity checks have run (counter[0] counts them), or WALL_CAP_S."""
    start, deadline = counter[0], time.monotonic() + WALL_CAP_S
    return ob.PlannerTerminationCondition(
        lambda: counter[0] - start >= checks or time.monotonic() > deadline
    )


def segment_free(
    model: PlanningModel,
    q1: tuple[float, ...],
    q2: tuple[float, ...],
    ignore: tuple[str, ...] = (),
    ends: tuple = (),
) -> bool:
    """Is the straight joint-space segment q1 → q2 collision free (checked every RESOLUTION rad),
    with a held container that carries something kept upright (nothing spills on the way)? With
    `ends` (a free motion's start and goal), CLEARANCE is kept away from them."""
    n = max(1, int(math.ceil(max(abs(a - b) for a, b in zip(q1, q2, strict=True)) / RESOLUTION)))
    for i in range(n + 1):
        q = tuple(a + (b - a) * i / n for a, b in zip(q1, q2, strict=True))
        if not _free(model, q, ignore, ends):
            return False
    return True


def plan_motion(
    model: PlanningModel,
    q1: tuple[float, ...],
    q2: tuple[float, ...],
    ignore: tuple[str, ...] = (),
    budget: int = CHECK_BUDGET,
) -> list[tuple[float, ...]] | None:
    """Joint waypoints from q1 to q2 (radians) avoiding collisions, or None when none is found within
    `budget` collision checks. The held object (model.held) is carried along and checked too, and when
    it carries something it is kept upright all the way. The same query gives the same path."""
    if not _free(model, q1, ignore) or not _free(model, q2, ignore):
        # the validity checker's own test (a held container spilling included): RRT-Connect given a goal it
        # judges invalid waits for a valid one, sleeping, with no validity checks counted against the budget,
        # until WALL_CAP_S (30 s per query)
        return None
    ends = (tuple(q1), tuple(q2))
    if segment_free(model, q1, q2, ignore, ends):
        return [tuple(q1), tuple(q2)]
    dof = len(model.limits)
    space = ob.RealVectorStateSpace(dof)
    bounds = ob.RealVectorBounds(dof)
    for i, (lo, hi) in enumerate(model.limits):
        bounds.setLow(i, lo)
        bounds.setHigh(i, hi)
    space.setBounds(bounds)
    setup = og.SimpleSetup(space)
    checks = [0]

    def valid(s) -> bool:
        checks[0] += 1
        return _free(model, [s[i] for i in range(dof)], ignore, ends)

    setup.setStateValidityChecker(valid)
    info = setup.getSpaceInformation()
    info.setStateValidityCheckingResolution(RESOLUTION / space.getMaximumExtent())
    start, goal = space.allocState(), space.allocState()
    for i in range(dof):
        start[i], goal[i] = q1[i], q2[i]
    setup.setStartAndGoalStates(start, goal)
    ou.RNG.setSeed(_query_seed(tuple(q1), tuple(q2)))  # before the planner makes its generators
    setup.setPlanner(og.RRTConnect(info))
    solved = setup.solve(_budget(checks, budget))
    if not solved or not setup.haveExactSolutionPath():
        return None
    path = setup.getSolutionPath()
    shorten = og.PathSimplifier(info)
    shorten.reduceVertices(path)
    shorten.ropeShortcutPath(path)
    out = [tuple(path.getState(i)[k] for k in range(dof)) for i in range(path.getStateCount())]
    model.set_arm(q1)
    return out


def densify(path: list[tuple[float, ...]], step: float = 0.05) -> list[tuple[float, ...]]:
    """Insert waypoints so that no joint moves more than `step` radians between two of them."""
    out = [path[0]]
    for a, b in zip(path, path[1:], strict=False):
        n = max(1, int(math.ceil(float(np.max(np.abs(np.subtract(b, a)))) / step)))
        out.extend(
            tuple(x + (y - x) * i / n for x, y in zip(a, b, strict=True)) for i in range(1, n + 1)
        )
    return out
