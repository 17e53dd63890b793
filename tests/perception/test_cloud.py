"""The table plane does not depend on which plane RANSAC happened to return (perception.cloud): open3d's
`segment_plane` shares one random stream between threads, so under load it returns slightly different
planes from the same points. Real world, real camera frame, real open3d."""

from __future__ import annotations

import math

import numpy as np

from owl_bt.episode import sim_camera_pipeline
from perception import cloud as cl
from tests.support.worlds import world_with


def _table_points() -> np.ndarray:
    world = world_with(("tomato_soup_can", (0.5, -0.07, 0.06)), ("apple", (0.45, 0.15, 0.04)))
    try:
        camera, _ = sim_camera_pipeline(world, 3)
        frame = camera.capture()
    finally:
        world.close()
    pts, *_ = cl.backproject(frame)
    lo, hi = (np.asarray(b) for b in cl.WORKSPACE)
    return pts[np.all((pts >= lo) & (pts <= hi), axis=1)]


def _tilted(a: float, b: float, dz: float) -> tuple[np.ndarray, float]:
    """The plane z = a·x + b·y + dz as (unit normal up, d)."""
    n = np.array([-a, -b, 1.0])
    s = np.linalg.norm(n)
    return n / s, -dz / s


def test_planes_a_little_apart_refine_to_the_same_plane():
    pts = _table_points()
    plane = cl.table_plane(pts)
    assert plane[2] > 0.9999 and abs(plane[3]) < 0.002  # the table top, z = 0 in the world frame
    step = max(1, len(pts) // 20000)
    starts = [
        _tilted(0.0, 0.0, 0.0),
        _tilted(math.radians(0.2), 0.0, 0.001),
        _tilted(0.0, -math.radians(0.15), -0.0015),
        _tilted(-math.radians(0.1), math.radians(0.1), 0.002),
    ]
    refined = [cl.refine_plane(pts[::step], n, d) for n, d in starts]
    for r in refined:
        assert np.array_equal(r, plane)  # bit for bit: every start ends on the same inliers


def test_one_least_squares_round_alone_would_not_agree():
    """What the rounds are for: a single fit over the first inliers keeps a trace of where it started."""
    pts = _table_points()
    step = max(1, len(pts) // 20000)
    rounds = cl.REFINE_ROUNDS
    try:
        cl.REFINE_ROUNDS = 1
        once = {
            tuple(cl.refine_plane(pts[::step], *_tilted(a, 0.0, dz)))
            for a, dz in ((0.0, 0.0), (math.radians(0.2), 0.001))
        }
    finally:
        cl.REFINE_ROUNDS = rounds
    assert len(once) == 2
