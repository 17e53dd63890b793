"""A UR `moveJ` path from timed joint waypoints: one `[q1..q6, speed, acceleration, blend]` entry per
waypoint (rad, rad/s, rad/s², m), as `RTDEControlInterface.moveJ(path, asynchronous)` takes it.

A UR moves the leading joint of each entry with a trapezoidal speed profile and comes to rest at
every waypoint whose blend radius is 0; a waypoint with a blend radius is passed at speed, the tool
rounding the corner within that radius. So a path of many short segments sent with blend 0 takes far
longer than it was planned to (each segment ramps up from rest and back down), and a controller
refuses overlapping blends: here every waypoint but the last gets a radius of at most `BLEND_MAX_M`
and at most `BLEND_SHARE` of the tool's distance to either neighbour, and `expected_duration` is the
arm's own time for the path, ramps included, which the backend waits for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

ACCELERATION = 1.4  # rad/s²: the leading joint's acceleration (ur_rtde's moveJ default)
BLEND_MAX_M = (
    0.02  # m: the largest blend radius; beyond it the rounded corner leaves the planned path
)
BLEND_SHARE = (
    0.45  # of the tool's distance to the nearer neighbour (a UR refuses blends that overlap)
)
MIN_SPEED = 1e-3  # rad/s


def leading(a: Sequence[float], b: Sequence[float]) -> float:
    """The largest joint change between two waypoints (rad): the leading joint's distance."""
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def blend_radii(tools: Sequence[Sequence[float]], max_m: float = BLEND_MAX_M) -> list[float]:
    """One blend radius (m) per waypoint given the tool positions of the start and every waypoint
    (`tools[0]` the start; m): the last waypoint 0 (the arm stops there), every other one at most
    `max_m` and `BLEND_SHARE` of its distance to either neighbour."""
    radii = []
    for k in range(1, len(tools)):
        if k == len(tools) - 1:
            radii.append(0.0)
            continue
        near = min(math.dist(tools[k - 1], tools[k]), math.dist(tools[k], tools[k + 1]))
        radii.append(min(max_m, BLEND_SHARE * near))
    return radii


def path_entries(
    start: Sequence[float],
    pts: Sequence[Sequence[float]],
    durations: Sequence[float],
    radii: Sequence[float],
    acceleration: float = ACCELERATION,
) -> list[list[float]]:
    """The moveJ path: each waypoint (rad) with the speed that covers its leading joint's distance in
    its duration (s), `acceleration` and its blend radius (m)."""
    path, prev = [], tuple(start)
    for q, d, r in zip(pts, durations, radii, strict=True):
        speed = max(MIN_SPEED, leading(q, prev) / d)
        path.append([*q, speed, acceleration, r])
        prev = tuple(q)
    return path


def expected_duration(start: Sequence[float], path: Sequence[Sequence[float]]) -> float:
    """The arm's time (s) for a moveJ path, as a UR runs it: the waypoints between two stops (a blend
    radius of 0, and the end) form one run that ramps up from rest at its first entry's acceleration
    and down to rest at its last's; a run of one segment too short to reach its speed is a triangle."""
    total, prev, run = 0.0, tuple(start), []
    for entry in path:
        q = tuple(entry[:6])
        run.append((leading(q, prev), entry[6], entry[7]))
        prev = q
        if entry[8] <= 0.0 or entry is path[-1]:
            total += _run_time(run)
            run = []
    return total


def _run_time(run: list[tuple[float, float, float]]) -> float:
    (length, speed, acc) = run[0]
    if len(run) == 1:
        if length >= speed * speed / acc:
            return length / speed + speed / acc
        return 2.0 * math.sqrt(length / acc)
    cruise = sum(seg / v for seg, v, _ in run)
    return cruise + speed / (2 * acc) + run[-1][1] / (2 * run[-1][2])
