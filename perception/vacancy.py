"""Is a kept object's place seen empty? The camera can look *through* where an unseen object was.

The tracker keeps an object it no longer sees at its last pose (it may be hidden by the arm or by
another object). That is right for an occluded object and wrong for one that is gone: a mustard
bottle the gripper knocked off the table was kept standing where it had been, and a goal checker
passed on it. The depth image tells the two apart. Rays through the inside of the object's box (its
central half, so a pose a little off still counts) find their reading either in front of the sample
point (the object's own surface, or something hiding it: keep) or well behind it (the table, the
floor: the ray passed where the object should be). When nearly all of them pass, the place is seen
empty. Objects under about 3 cm tall are not judged (the table lies too close behind their points).

Frames: world (m) for poses and boxes; the frame's intrinsics and camera→world extrinsics (optical
convention) for projection; depth in metres along the optical axis, 0 or NaN for no reading.
"""

from __future__ import annotations

import numpy as np

from owl_bt.state import ObjectState, rotation_matrix
from perception.camera import RGBDFrame

GRID = 5  # sample points per box axis (GRID³ points before projection)
INNER = 0.5  # share of the box's extents the sample points span (its central half)
THROUGH = 0.015  # m: a reading this far beyond (or in front of) a sample point decides that ray
MIN_RAYS = 8  # fewer usable rays than this: the place is not judged (kept)
EMPTY_SHARE = 0.8  # this share of usable rays passing through: the place is seen empty


def seen_empty(state: ObjectState, frame: RGBDFrame) -> bool:
    """True when `state`'s place (its box at its pose, world frame) is seen empty in `frame`: at least
    `MIN_RAYS` rays through the box's central half decide (`ray_verdicts`) and `EMPTY_SHARE` of those
    passed the object's place. Occluded, out-of-image, unread or too flat places give False."""
    verdicts = ray_verdicts(state, frame)
    usable = verdicts[verdicts != 0]
    return usable.size >= MIN_RAYS and float(np.mean(usable == 1)) >= EMPTY_SHARE


def ray_verdicts(state: ObjectState, frame: RGBDFrame) -> np.ndarray:
    """Per sample point inside `state`'s box (its central half): 1 when the camera's reading along the
    ray through it lies more than `THROUGH` beyond the point (the ray passed where the object should
    be), −1 when it lies more than `THROUGH` in front (the object's own surface, or something hiding
    it), 0 unusable (ambiguous, no reading, outside the image, behind the camera). Shape (k,),
    k ≤ GRID³ (one point per pixel)."""
    centre = np.asarray(state.pose.position, dtype=float)
    rot = np.asarray(rotation_matrix(*state.pose.euler), dtype=float)
    half = np.asarray(state.size, dtype=float) / 2.0
    axis = np.linspace(-INNER, INNER, GRID)
    grid = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
    world = centre + (grid * half) @ rot.T
    world_to_cam = np.linalg.inv(np.asarray(frame.extrinsics, dtype=float))
    cam = world @ world_to_cam[:3, :3].T + world_to_cam[:3, 3]
    cam = cam[cam[:, 2] > 1e-3]
    k = np.asarray(frame.intrinsics, dtype=float)
    h, w = frame.shape
    u = np.round(k[0, 0] * cam[:, 0] / cam[:, 2] + k[0, 2]).astype(int)
    v = np.round(k[1, 1] * cam[:, 1] / cam[:, 2] + k[1, 2]).astype(int)
    ok = (u >= 0) & (u < w) & (v >= 0) & (v < h)
    u, v, z = u[ok], v[ok], cam[ok, 2]
    order = np.argsort(z)  # one point per pixel: the nearest
    _, first = np.unique((v * w + u)[order], return_index=True)
    pick = order[first]
    depth = np.asarray(frame.depth, dtype=float)[v[pick], u[pick]]
    z = z[pick]
    out = np.zeros(len(pick), dtype=int)
    read = np.isfinite(depth) & (depth > 0.0)
    out[read & (depth > z + THROUGH)] = 1
    out[read & (depth < z - THROUGH)] = -1
    return out
