"""Depth → coloured point cloud → workspace crop → table plane (RANSAC) → clusters (DBSCAN), with open3d.

Every point keeps the index of the pixel it came from (row-major, `v * W + u`), so that detector
masks (pixel sets) and clusters (point sets) can be associated. World frame, metres.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from perception.camera import RGBDFrame

if TYPE_CHECKING:  # open3d (0.6 s to import) is imported where it is used
    import open3d as o3d

# Where objects can be: over the table, up to where the arm lifts them (x, y, z lower and upper, world frame, m).
WORKSPACE = ((0.15, -0.50, -0.05), (0.95, 0.50, 0.9))
MAX_RANGE = 4.0  # m: readings beyond this are treated as no reading
PLANE_DIST = (
    0.006  # m: a point this close to the table plane belongs to it (markers are 2 mm thick)
)
REFINE_ROUNDS = (
    10  # least-squares rounds at most, each over the points within PLANE_DIST of the last plane
)
ABOVE = 0.007  # m: points higher than this above the plane are candidate object points (≈ 3 σ of depth noise)
CLUSTER_EPS = 0.012  # m: DBSCAN neighbourhood
CLUSTER_MIN = 8  # points: DBSCAN core size


class CloudError(Exception):
    """The frame cannot give a usable cloud or table (one-line reason)."""


@dataclass
class SceneCloud:
    """points N×3 (m, world), colours N×3 in [0, 1], pixel N (row-major pixel index), height N (m above
    the table plane), plane (a, b, c, d) with ax + by + cz + d = 0 and (a, b, c) the unit up normal,
    cluster N (DBSCAN label of points above the plane, −1 noise or not above), valid_fraction: share of
    image pixels with a depth reading."""

    points: np.ndarray
    colours: np.ndarray
    pixel: np.ndarray
    height: np.ndarray
    plane: np.ndarray
    cluster: np.ndarray
    valid_fraction: float

    @property
    def above(self) -> np.ndarray:
        return self.height > ABOVE

    @property
    def on_plane(self) -> np.ndarray:
        return np.abs(self.height) <= PLANE_DIST

    @property
    def table_z(self) -> float:
        """Height of the plane under the workspace centre (m)."""
        a, b, c, d = self.plane
        x, y = 0.55, 0.0
        return float(-(a * x + b * y + d) / c)


def backproject(
    frame: RGBDFrame,
    exclude: np.ndarray | None = None,
    full: np.ndarray | None = None,
    stride: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """World points, colours and pixel indices of the pixels with a finite depth reading in range,
    minus those in `exclude` (H×W bool, e.g. the robot's own body); outside `full` (H×W bool, e.g.
    the detected objects) only every `stride`-th row and column. Also the share of valid pixels."""
    h, w = frame.shape
    depth = np.asarray(frame.depth, dtype=np.float64)
    valid = np.isfinite(depth) & (depth > 0) & (depth < MAX_RANGE)
    share = float(valid.mean())
    if exclude is not None:
        valid &= ~exclude
    if stride > 1:
        grid = np.zeros((h, w), dtype=bool)
        grid[::stride, ::stride] = True
        valid &= grid if full is None else (grid | full)
    idx = np.flatnonzero(valid)
    v, u = np.divmod(idx, w)
    z = depth.reshape(-1)[idx]
    k = frame.intrinsics
    rays = np.stack(
        [(u + 0.5 - k[0, 2]) / k[0, 0], (v + 0.5 - k[1, 2]) / k[1, 1], np.ones(len(idx))], axis=1
    )
    world = (rays @ frame.extrinsics[:3, :3].T) * z[:, None] + frame.extrinsics[:3, 3]
    colours = frame.rgb.reshape(-1, 3)[idx].astype(np.float64) / 255.0
    return world, colours, idx, share


def build(
    frame: RGBDFrame,
    exclude: np.ndarray | None = None,
    full: np.ndarray | None = None,
    stride: int = 1,
    workspace=WORKSPACE,
) -> SceneCloud:
    """The scene cloud of `frame` (see `backproject` for `exclude`, `full`, `stride`); raises CloudError
    when too few pixels have depth, nothing is in the workspace, or no horizontal plane (the table) is found."""
    pts, cols, pix, share = backproject(frame, exclude, full, stride)
    if share < 0.2:
        raise CloudError(f"the depth image is mostly empty ({share:.0%} of pixels have a reading)")
    lo, hi = np.asarray(workspace[0]), np.asarray(workspace[1])
    keep = np.all((pts >= lo) & (pts <= hi), axis=1)
    pts, cols, pix = pts[keep], cols[keep], pix[keep]
    if len(pts) < 500:
        raise CloudError(
            f"only {len(pts)} depth points fall in the workspace: the camera does not see the table"
        )
    plane = table_plane(pts)
    height = pts @ plane[:3] + plane[3]
    cluster = np.full(len(pts), -1, dtype=np.int64)
    above = height > ABOVE
    cluster[above] = dbscan(pts[above])
    return SceneCloud(pts, cols, pix, height, plane, cluster, share)


def dbscan(pts: np.ndarray, max_core: int = 4000) -> np.ndarray:
    """DBSCAN labels (−1 noise) of N×3 points with open3d; above `max_core` points, a random subset is
    clustered and every other point takes the label of its nearest clustered neighbour (within eps)."""
    import open3d as o3d
    from scipy.spatial import cKDTree

    labels = np.full(len(pts), -1, dtype=np.int64)
    if len(pts) < CLUSTER_MIN:
        return labels
    if len(pts) <= max_core:
        pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts))
        return np.asarray(
            pc.cluster_dbscan(eps=CLUSTER_EPS, min_points=CLUSTER_MIN), dtype=np.int64
        )
    rng = np.random.default_rng(0)
    core = np.sort(rng.choice(len(pts), max_core, replace=False))
    frac = max_core / len(pts)
    pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts[core]))
    sub = np.asarray(
        pc.cluster_dbscan(
            eps=CLUSTER_EPS / frac ** (1 / 3) * 0.8, min_points=max(4, int(CLUSTER_MIN * frac))
        ),
        dtype=np.int64,
    )
    labels[core] = sub
    rest = np.setdiff1d(np.arange(len(pts)), core)
    dist, j = cKDTree(pts[core]).query(pts[rest], k=1, distance_upper_bound=2 * CLUSTER_EPS)
    ok = np.isfinite(dist)
    labels[rest[ok]] = sub[j[ok]]
    return labels


def table_plane(pts: np.ndarray) -> np.ndarray:
    """The dominant near-horizontal plane of `pts` by RANSAC (open3d `segment_plane` on at most 20,000
    of them, refined by least squares on its inliers until they no longer change, so that the plane does
    not depend on RANSAC's thread timing); (a, b, c, d) with the normal pointing up."""
    import open3d as o3d

    step = max(1, len(pts) // 20000)
    pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts[::step]))
    if len(pc.points) < 50:
        raise CloudError("too few points to find the table")
    o3d.utility.random.seed(0)
    model, inliers = pc.segment_plane(distance_threshold=PLANE_DIST, ransac_n=3, num_iterations=300)
    n = np.asarray(model[:3], dtype=np.float64)
    d = float(model[3])
    norm = np.linalg.norm(n)
    n, d = n / norm, d / norm
    if n[2] < 0:
        n, d = -n, -d
    if n[2] < 0.95 or len(inliers) < 0.2 * len(pc.points):
        raise CloudError("no table plane in view (no large horizontal surface found)")
    return refine_plane(pts[::step], n, d)


def refine_plane(pts: np.ndarray, n: np.ndarray, d: float) -> np.ndarray:
    """Least squares (z = αx + βy + γ) over the N×3 `pts` within PLANE_DIST of the plane n·x + d = 0
    (unit normal up, metres), repeated until those inliers stop changing (at most REFINE_ROUNDS);
    (a, b, c, d) with the normal pointing up. Planes a little apart end in the same one: open3d runs
    RANSAC's iterations on several threads that share one random stream, so on a loaded machine it
    returns a slightly different plane from the same points, and the objects' fits on it (a 1° turn
    of a can's yaw) and the plan with them would change from run to run."""
    inside = np.abs(pts @ n + d) < PLANE_DIST
    for _ in range(REFINE_ROUNDS):
        sel = pts[inside]
        if len(sel) <= 50:
            break
        a = np.c_[sel[:, 0], sel[:, 1], np.ones(len(sel))]
        coef, *_ = np.linalg.lstsq(a, sel[:, 2], rcond=None)
        n = np.array([-coef[0], -coef[1], 1.0])
        s = np.linalg.norm(n)
        n, d = n / s, -coef[2] / s
        now = np.abs(pts @ n + d) < PLANE_DIST
        if np.array_equal(now, inside):
            break
        inside = now
    return np.array([*n, d])


def to_o3d(points: np.ndarray, colours: np.ndarray | None = None) -> o3d.geometry.PointCloud:
    """An open3d cloud of N×3 points (and colours in [0, 1])."""
    import open3d as o3d

    pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(np.asarray(points, dtype=np.float64)))
    if colours is not None:
        pc.colors = o3d.utility.Vector3dVector(np.asarray(colours, dtype=np.float64))
    return pc
