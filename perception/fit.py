"""Geometry estimation: fit a kind's shape model to an object's points (pose and per-axis size).

Robust point-to-plane Gauss–Newton ICP on 6 pose parameters plus 3 per-axis scales (a weak prior
holds the scales near the catalogue size where the view says little), started from orientation
hypotheses (each of the model's six axes up × eight yaws about the points' principal direction) and
judged by the fit and by free space: a pose that puts model surface where the camera sees *through*
(its depth reading lies behind the model) is penalised. That settles the yaw of a mug's handle and
whether a mug lies on its side or stands upside down.

Frames: model points in the body frame (box centre); poses are body→world (R 3×3, t 3); metres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from perception.camera import RGBDFrame
from perception.shapes import ShapeModel

HUBER = 0.004  # m: residuals beyond this count linearly
MAX_CORR = 0.03  # m: farther correspondences are ignored
SCALE_PRIOR = 0.1  # weight of the prior that holds the scales at 1 (see `refine`)
SEE_THROUGH = 0.008  # m: observed depth this far behind a model surface point is free-space evidence against it
COARSE_POINTS, FINE_POINTS = 100, 300
YAWS = 6  # yaw hypotheses per up axis
SLIDE = 0.02  # m: a long model this much longer than its points' spread is also started slid to its ends (`_slid`)


@dataclass
class Fit:
    """R (3×3), t (3,) body→world; scale (3,) multiplying the model's size; cost (m, lower is better);
    rmse (m) of inlier residuals; see_through: share of the model's camera-facing points the camera
    sees through; inliers: share of points within 5 mm of the surface."""

    R: np.ndarray
    t: np.ndarray
    scale: np.ndarray
    cost: float
    rmse: float
    see_through: float
    inliers: float


def _rodrigues(w: np.ndarray) -> np.ndarray:
    th = float(np.linalg.norm(w))
    if th < 1e-12:
        return np.eye(3)
    k = w / th
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * kx + (1 - math.cos(th)) * kx @ kx


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross product of (…, 3) arrays (np.cross is slow on small arrays)."""
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


def _rows_norm(a: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("...i,...i->...", a, a))


def _rot(axis: int, angle: float) -> np.ndarray:
    w = np.zeros(3)
    w[axis] = angle
    return _rodrigues(w)


# Orientations that bring each of the model's axes (±x, ±y, ±z) to world up.
UPS = (
    np.eye(3),
    _rot(0, math.pi),
    _rot(0, math.pi / 2),
    _rot(0, -math.pi / 2),
    _rot(1, math.pi / 2),
    _rot(1, -math.pi / 2),
)


class ModelFitter:
    """Fits one shape model; keeps its k-d tree."""

    def __init__(self, model: ShapeModel) -> None:
        self.model = model
        self.tree = cKDTree(model.points)

    def refine(
        self,
        pts: np.ndarray,
        R: np.ndarray,
        t: np.ndarray,
        scale: np.ndarray,
        iters: int,
        with_scale: bool,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Gauss–Newton point-to-plane steps; returns R, t, scale and the final residuals (m)."""
        m, nrm = self.model.points, self.model.normals
        res = np.zeros(len(pts))
        for _ in range(iters):
            q = ((pts - t) @ R) / scale
            _, j = self.tree.query(q, k=1, workers=1)
            x = (m[j] * scale) @ R.T + t
            nw = (nrm[j] / scale) @ R.T
            nw /= np.maximum(_rows_norm(nw), 1e-12)[:, None]
            diff = x - pts
            res = np.einsum("ij,ij->i", nw, diff)
            ok = _rows_norm(diff) < MAX_CORR
            if ok.sum() < 6:
                break
            a = np.abs(res)
            w = np.where(a <= HUBER, 1.0, HUBER / np.maximum(a, 1e-12)) * ok
            cols = [_cross(x - t, nw), nw]
            if with_scale:
                cols.append((nw @ R) * (m[j] * scale))
            jac = np.concatenate(cols, axis=1)
            jw = jac * w[:, None]
            h = jac.T @ jw + 1e-9 * np.eye(jac.shape[1])
            g = -(jw.T @ res)
            if with_scale:
                lam = (
                    SCALE_PRIOR * ok.sum() * (HUBER / 0.1) ** 2
                )  # a 10 % size change costs SCALE_PRIOR·N·HUBER²
                h[6:, 6:] += lam * np.diag(scale**2)
                g[6:] -= lam * scale * (scale - 1.0)
            dx = np.linalg.solve(h, g)
            R = _rodrigues(dx[:3]) @ R
            t = t + dx[3:6]
            if with_scale:
                scale = np.clip(scale * (1 + dx[6:9]), 0.6, 1.6)
            if np.linalg.norm(dx[:6]) < 1e-5:
                break
        return R, t, scale, res

    def see_through(
        self, frame: RGBDFrame, R: np.ndarray, t: np.ndarray, scale: np.ndarray, stride: int = 1
    ) -> float:
        """Share of the model's camera-facing surface points (inside the image, with a reading) behind
        which the camera reads a depth more than SEE_THROUGH farther: free space where the model says
        there is surface."""
        x = (self.model.points[::stride] * scale) @ R.T + t
        nw = (self.model.normals[::stride] / scale) @ R.T
        eye = frame.eye
        view = eye - x
        facing = np.einsum("ij,ij->i", nw, view) > 0.3 * _rows_norm(view) * _rows_norm(nw)
        x = x[facing]
        if len(x) == 0:
            return 0.0
        world_to_cam = np.linalg.inv(frame.extrinsics)
        c = x @ world_to_cam[:3, :3].T + world_to_cam[:3, 3]
        front = c[:, 2] > 0.05
        c = c[front]
        k = frame.intrinsics
        u = np.floor(k[0, 0] * c[:, 0] / c[:, 2] + k[0, 2]).astype(int)
        v = np.floor(k[1, 1] * c[:, 1] / c[:, 2] + k[1, 2]).astype(int)
        h, w = frame.shape
        inside = (u >= 0) & (u < w) & (v >= 0) & (v < h)
        if inside.sum() == 0:
            return 0.0
        d = near_depth(frame)[v[inside], u[inside]]
        have = np.isfinite(d)
        if have.sum() == 0:
            return 0.0
        return float(np.mean(d[have] > c[inside, 2][have] + SEE_THROUGH))

    def score(self, res: np.ndarray, see: float) -> tuple[float, float, float]:
        a = np.abs(res)
        cost = float(np.mean(np.minimum(a, 0.015))) + 0.02 * see
        inl = a < 0.005
        rmse = float(np.sqrt(np.mean(a[inl] ** 2))) if inl.any() else float("inf")
        return cost, rmse, float(inl.mean()) if len(a) else 0.0

    def coarse(
        self, pts: np.ndarray, R: np.ndarray, t: np.ndarray, iters: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rigid point-to-plane steps for H hypotheses at once: R (H×3×3), t (H×3) → refined R, t and
        the residuals (H×N, m)."""
        m, nrm = self.model.points, self.model.normals
        hn = len(R)
        res = np.zeros((hn, len(pts)))
        for _ in range(iters):
            q = np.einsum("hni,hik->hnk", pts[None] - t[:, None], R)
            _, j = self.tree.query(q.reshape(-1, 3), k=1, workers=1)
            j = j.reshape(hn, -1)
            x = np.einsum("hik,hnk->hni", R, m[j]) + t[:, None]
            nw = np.einsum("hik,hnk->hni", R, nrm[j])
            diff = x - pts[None]
            res = np.einsum("hni,hni->hn", nw, diff)
            a = np.abs(res)
            w = np.where(a <= HUBER, 1.0, HUBER / np.maximum(a, 1e-12)) * (
                _rows_norm(diff) < MAX_CORR
            )
            jac = np.concatenate([_cross(x - t[:, None], nw), nw], axis=2)
            hm = np.einsum("hna,hn,hnb->hab", jac, w, jac) + 1e-9 * np.eye(6)
            g = -np.einsum("hna,hn,hn->ha", jac, w, res)
            dx = np.linalg.solve(hm, g[..., None])[..., 0]
            R = np.stack([_rodrigues(d) for d in dx[:, :3]]) @ R
            t = t + dx[:, 3:]
        return R, t, res

    def fit(
        self,
        pts: np.ndarray,
        frame: RGBDFrame,
        table_z: float,
        rng: np.random.Generator,
        yaw0: float = 0.0,
        with_scale: bool = True,
        slide: bool = False,
    ) -> Fit:
        """The best pose (and scale) of the model for `pts` (N×3 world points of the object); `slide`: also
        from starts slid along a long model (`_slid`: for what the hand holds)."""
        size = np.asarray(self.model.size)
        heights = pts[:, 2] - table_z
        top, bottom = float(np.percentile(heights, 99)), float(np.percentile(heights, 1))
        on_table = bottom < 0.02
        centre_xy = (pts[:, :2].min(axis=0) + pts[:, :2].max(axis=0)) / 2
        coarse = pts[
            np.linspace(0, len(pts) - 1, min(len(pts), COARSE_POINTS)).astype(int)
        ]  # evenly, reproducibly
        fine = pts[np.linspace(0, len(pts) - 1, min(len(pts), FINE_POINTS)).astype(int)]
        starts = []
        for strict in (True, False):
            seen: list[tuple[float, float, float]] = []
            for ui, up in enumerate(UPS):
                ext = np.abs(up) @ size  # world extents of the model turned by `up`
                if strict and ext[2] < (top - bottom) - 0.012:
                    continue  # the points rise higher than the model could
                if strict and on_table and abs(ext[2] - top) > 0.015 + 0.15 * ext[2]:
                    continue
                key = tuple(np.round(ext, 3))
                if ui >= 2 and key in seen:
                    continue  # a side the model shows alike to one already tried (round things)
                seen.append(key)
                z = table_z + ext[2] / 2 if on_table else table_z + top - ext[2] / 2
                round_ = abs(ext[0] - ext[1]) < 0.08 * max(ext[0], ext[1])
                n = 2 if round_ else YAWS
                for k in range(n):
                    starts.append(
                        (ui, _rot(2, yaw0 + 2 * k * math.pi / n) @ up, np.array([*centre_xy, z]))
                    )
            if starts:
                break
        if slide:
            starts += _slid(starts, pts, centre_xy, yaw0, size)
        R, t, res = self.coarse(
            coarse, np.stack([s[1] for s in starts]), np.stack([s[2] for s in starts]), 6
        )
        order = np.argsort(
            [
                self.score(res[h], self.see_through(frame, R[h], t[h], np.ones(3), 3))[0]
                + _tilt_cost(R[h])
                for h in range(len(starts))
            ]
        )
        best = None
        for h in order[:2]:
            Rh, th, s, res_h = self.refine(fine, R[h], t[h], np.ones(3), 6, False)
            cost = self.score(res_h, self.see_through(frame, Rh, th, s, 2))[0] + _tilt_cost(Rh)
            if best is None or cost < best[0]:
                best = (cost, Rh, th)
        _, Rh, th = best
        s = np.ones(3)
        if with_scale:
            Rh, th, s, _ = self.refine(fine, Rh, th, s, 8, True)
        Rh, th, s, res_h = self.refine(pts, Rh, th, s, 2, False)
        return self._judged(frame, Rh, th, s, res_h)

    def refit(
        self, pts: np.ndarray, frame: RGBDFrame, previous: Fit, with_scale: bool = True
    ) -> Fit:
        """The fit of `pts` (N×3 world points, m) started from `previous` (this object's fit in an earlier
        frame) alone: no hypotheses, a few refining steps; about a third of `fit`'s cost (12 against 38 ms
        an object). Meant for an object whose points have not moved since (`perception.refit`); the caller
        judges its cost."""
        fine = pts[np.linspace(0, len(pts) - 1, min(len(pts), FINE_POINTS)).astype(int)]
        R, t, s, _ = self.refine(
            fine,
            previous.R,
            previous.t,
            previous.scale if with_scale else np.ones(3),
            4,
            with_scale,
        )
        R, t, s, res = self.refine(pts, R, t, s, 2, False)
        return self._judged(frame, R, t, s, res)

    def _judged(
        self, frame: RGBDFrame, R: np.ndarray, t: np.ndarray, s: np.ndarray, res: np.ndarray
    ) -> Fit:
        see = self.see_through(frame, R, t, s)
        cost, rmse, inl = self.score(res, see)
        return Fit(R, t, s, cost + _tilt_cost(R), rmse, see, inl)


def _slid(
    starts: list, pts: np.ndarray, centre_xy: np.ndarray, yaw0: float, size: np.ndarray
) -> list:
    """More starts for a long model whose points span SLIDE less than its length along their principal
    direction (`yaw0`, rad): each start lying along that direction, slid to either end. The rest is
    hidden (a fork's handle between the fingers): started only at the centre of what is seen, the
    fit stays there, as the handle matches wherever along it, and a fork 5 cm off and on its edge can
    fit better than that. Only for what the hand holds: for every long object (a fork in the mug, a
    knife on the table) the extra starts change fits that are right as they are."""
    long = int(np.argmax(size))
    if size[long] < 1.5 * sorted(size)[1]:
        return []
    d = np.array([math.cos(yaw0), math.sin(yaw0)])
    along = (pts[:, :2] - centre_xy) @ d
    gap = float(size[long] - (along.max() - along.min()))
    if gap < SLIDE:
        return []
    out = []
    for ui, R, t in starts:
        ax = R[:2, long]
        if np.linalg.norm(ax) < 0.87 or abs(ax @ d) < 0.87 * np.linalg.norm(ax):
            continue  # standing up, or lying across the points' direction
        for sign in (1.0, -1.0):
            c = t.copy()
            c[:2] += sign * gap / 2 * ax / np.linalg.norm(ax)
            out.append((ui, R, c))
    return out


def near_depth(frame: RGBDFrame) -> np.ndarray:
    """The nearest depth reading in each pixel's 3×3 neighbourhood (inf where none), cached on the
    frame: a model point at a silhouette is judged against the object, not the table beside it."""
    cached = getattr(frame, "_near_depth", None)
    if cached is None:
        from scipy.ndimage import minimum_filter

        d = np.where(np.isfinite(frame.depth) & (frame.depth > 0), frame.depth, np.inf)
        cached = minimum_filter(d, size=3, mode="nearest")
        frame._near_depth = cached
    return cached


def _tilt_cost(R: np.ndarray) -> float:
    """A small preference (≤ 1 mm of fit) for the model's own up staying up: among poses that fit
    the points equally well (a round fruit turned over), the one an object usually rests in."""
    return 0.0005 * (1.0 - float(R[2, 2]))


def euler(R: np.ndarray) -> tuple[float, float, float]:
    """(roll, pitch, yaw) of R = Rz(yaw) Ry(pitch) Rx(roll) (pybullet's convention), radians."""
    pitch = -math.asin(max(-1.0, min(1.0, float(R[2, 0]))))
    roll = math.atan2(float(R[2, 1]), float(R[2, 2]))
    yaw = math.atan2(float(R[1, 0]), float(R[0, 0]))
    return roll, pitch, yaw


def principal_yaw(pts: np.ndarray) -> float:
    """Direction (rad) of the largest horizontal spread of the points (PCA of x, y)."""
    xy = pts[:, :2] - pts[:, :2].mean(axis=0)
    if len(xy) < 3:
        return 0.0
    w, v = np.linalg.eigh(xy.T @ xy)
    return float(math.atan2(v[1, 1], v[0, 1]))
