"""Primitives for things of no catalogue kind: a box, an upright cylinder or a sphere fitted to a
cluster's points, whichever lies closest to them.

A camera sees one side of a thing, so each shape is fitted to a partial surface: the box is the
smallest rectangle around the points' footprint (turned to it) from the support up to their top.
A footprint that is round — near-square, and its convex hull filling clearly less of that
rectangle than a rectangle would (a disc fills π/4) — is a cylinder or a sphere: the cylinder's
circle is fitted to the hull's corners (algebraic least squares) and stands from the support up;
the sphere is fitted to the points (linear least squares), as tall as it is wide, resting on the
support. The one whose surface lies closer to the points (RMS, m) is taken. Shapes are in the
world frame (z up); the support is at height `floor`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ROUND_FILL = 0.88  # a footprint's hull filling less of its rectangle than this is round
SQUARE = 1.25  # ... and its rectangle no longer than this times its width
HEIGHT_SLACK = 0.25  # a sphere's diameter may differ from its standing height by this share
MIN_SIZE = 0.005  # m: the smallest extent a primitive gets


@dataclass(frozen=True)
class Primitive:
    """shape: 'box', 'cylinder' or 'sphere'; centre (x, y, z) of its box (world, m); size (m) of
    its box (x, y, z in its own frame); yaw (rad) about z; rms (m) of the points to its surface."""

    shape: str
    centre: tuple[float, float, float]
    size: tuple[float, float, float]
    yaw: float
    rms: float


def fit_primitive(points: np.ndarray, floor: float) -> Primitive:
    """The box, upright cylinder or sphere for N×3 world `points` (m) of one thing resting on a
    surface at height `floor` (m). Fewer than 10 points, or a footprint that is not round: the
    box."""
    box = _box(points, floor)
    corners = _hull(points[:, :2])
    lx, ly = sorted(box.size[:2], reverse=True)
    if corners is None or lx > SQUARE * ly:
        return box
    from scipy.spatial import ConvexHull

    if ConvexHull(corners).volume > ROUND_FILL * lx * ly:
        return box
    fits = [f for f in (_cylinder(points, corners, floor), _sphere(points, floor)) if f]
    return min(fits, key=lambda f: f.rms) if fits else box


def _hull(xy: np.ndarray) -> np.ndarray | None:
    """The corners (K×2) of the points' convex hull, or None for fewer than 10 points or a
    degenerate footprint."""
    from scipy.spatial import ConvexHull, QhullError

    if len(xy) < 10:
        return None
    try:
        return xy[ConvexHull(xy).vertices]
    except QhullError:
        return None


def _box(points: np.ndarray, floor: float) -> Primitive:
    (cx, cy), (lx, ly), yaw = min_area_rect(points[:, :2])
    top = float(np.percentile(points[:, 2], 99))
    hz = max(top - floor, MIN_SIZE)
    size = (max(lx, MIN_SIZE), max(ly, MIN_SIZE), hz)
    centre = (cx, cy, floor + hz / 2)
    return Primitive("box", centre, size, yaw, _box_rms(points, centre, size, yaw))


def _cylinder(points: np.ndarray, corners: np.ndarray, floor: float) -> Primitive | None:
    """An upright cylinder: a circle through the footprint's hull `corners` (K×2), from the
    floor to the points' top."""
    circle = _circle(corners)
    if circle is None:
        return None
    cx, cy, r = circle
    top = float(np.percentile(points[:, 2], 99))
    h = top - floor
    spread = points[:, :2].max(axis=0) - points[:, :2].min(axis=0)
    if h < MIN_SIZE or r < MIN_SIZE or 2 * r > 1.5 * float(spread.max()) + 0.01:
        return None  # an arc too flat to say its radius
    radial = np.hypot(points[:, 0] - cx, points[:, 1] - cy)
    side = np.abs(radial - r)
    cap = np.where(
        radial <= r, np.abs(points[:, 2] - top), np.hypot(radial - r, points[:, 2] - top)
    )
    rms = float(np.sqrt(np.mean(np.minimum(side, cap) ** 2)))
    return Primitive("cylinder", (cx, cy, floor + h / 2), (2 * r, 2 * r, h), 0.0, rms)


def _sphere(points: np.ndarray, floor: float) -> Primitive | None:
    """A sphere fitted to the points (linear least squares), resting on the floor."""
    a = np.hstack([2 * points, np.ones((len(points), 1))])
    b = np.sum(points**2, axis=1)
    try:
        sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    except np.linalg.LinAlgError:
        return None
    c = sol[:3]
    r2 = float(sol[3] + c @ c)
    if not r2 > 0:
        return None
    r = math.sqrt(r2)
    stands = float(np.percentile(points[:, 2], 99)) - floor
    if r < MIN_SIZE or abs(2 * r - stands) > HEIGHT_SLACK * stands:
        return None
    rms = float(np.sqrt(np.mean((np.linalg.norm(points - c, axis=1) - r) ** 2)))
    centre = (float(c[0]), float(c[1]), floor + r)
    return Primitive("sphere", centre, (2 * r, 2 * r, 2 * r), 0.0, rms)


def _circle(xy: np.ndarray) -> tuple[float, float, float] | None:
    """(cx, cy, r) of the circle through N×2 points by algebraic least squares (Kåsa), or None."""
    a = np.hstack([2 * xy, np.ones((len(xy), 1))])
    b = np.sum(xy**2, axis=1)
    try:
        sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    except np.linalg.LinAlgError:
        return None
    r2 = float(sol[2] + sol[0] ** 2 + sol[1] ** 2)
    return (float(sol[0]), float(sol[1]), math.sqrt(r2)) if r2 > 0 else None


def _box_rms(points: np.ndarray, centre, size, yaw: float) -> float:
    """RMS distance (m) of the points to the surface of a box turned by `yaw` about z."""
    c, s = math.cos(yaw), math.sin(yaw)
    d = points - np.asarray(centre)
    local = np.stack([c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1], d[:, 2]], axis=1)
    half = np.asarray(size) / 2
    out = np.abs(local) - half
    outside = np.linalg.norm(np.maximum(out, 0.0), axis=1)
    inside = np.minimum(np.max(out, axis=1), 0.0)
    return float(np.sqrt(np.mean((outside + np.abs(inside)) ** 2)))


def min_area_rect(xy: np.ndarray) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The smallest rectangle around 2-D points (robust to 1 % outliers): centre, (length along its
    yaw, width), yaw in [0, π/2) (rad)."""
    best = None
    c0 = xy.mean(axis=0)
    for deg in range(0, 90, 2):
        th = math.radians(deg)
        rot = np.array([[math.cos(th), math.sin(th)], [-math.sin(th), math.cos(th)]])
        q = (xy - c0) @ rot.T
        lo, hi = np.percentile(q, 0.5, axis=0), np.percentile(q, 99.5, axis=0)
        area = float(np.prod(hi - lo))
        if best is None or area < best[0]:
            best = (area, th, lo, hi)
    _, th, lo, hi = best
    mid = (lo + hi) / 2
    rot = np.array([[math.cos(th), math.sin(th)], [-math.sin(th), math.cos(th)]])
    centre = c0 + mid @ rot
    return (float(centre[0]), float(centre[1])), (float(hi[0] - lo[0]), float(hi[1] - lo[1])), th
