"""Is a kept object's place seen empty? The camera can look *through* where an unseen object was.

The tracker keeps an object it no longer sees at its last pose (it may be hidden by the arm or by
another object). That is right for an occluded object and wrong for one that is gone: a mustard
bottle the gripper knocked off the table was kept standing where it had been, and a goal checker
passed on it. The depth image tells the two apart. Rays through the inside of the object's box (its
central half, so a pose a little off still counts) find their reading either in front of the sample
point (the object's own surface, or something hiding it: keep) or well behind it (the table, the
floor: the ray passed where the object should be). When nearly all of them pass, the place is seen
empty. A flat object (a plate) is judged by its top face: seen there, or the table under it.

Frames: world (m) for poses and boxes; the frame's intrinsics and camera→world extrinsics (optical
convention) for projection; depth in metres along the optical axis, 0 or NaN for no reading.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from owl_bt.state import ObjectState, rotation_matrix
from perception.camera import RGBDFrame

GRID = 5  # sample points per box axis (GRID³ points before projection)
INNER = 0.5  # share of the box's extents the sample points span (its central half)
THROUGH = 0.015  # m: a reading this far beyond (or in front of) a sample point decides that ray
MIN_RAYS = 8  # fewer usable rays than this: the place is not judged (kept)
EMPTY_SHARE = 0.8  # this share of usable rays passing through: the place is seen empty
FILLED_SHARE = 0.5  # this share of the pixels over a box read inside it: something is there
FLAT = 0.03  # m: an object lying flat and less tall than this is judged by its top face
FLAT_MARGIN = 0.004  # m: under this, the top face and what it lies on are too close to tell apart
NEARER = (
    0.006,
    0.04,
)  # m: depth come this much nearer where something came to rest (the arm above: more)
ARRIVED_PIXELS = 12  # pixels come nearer so for something to have come (a 2.4 cm ball at 1 m: ~150)
FLOOR_SHARE = 0.6  # of a container's half-width: the disc of its floor watched for arrivals
HIDDEN_SHARE = (
    0.05  # of that disc's pixels hidden by something held above it: what is under it is not seen
)
ROLL = 0.08  # m: how far from the spot under a mouth a thing poured onto a flat surface may roll (a ball: 5 cm seen)
ROLL_STEP = 0.01  # m: spacing of the spots judged within that reach


def seen_empty(state: ObjectState, frame: RGBDFrame) -> bool:
    """True when `state`'s place (its box at its pose, world frame) is seen empty in `frame`: at least
    `MIN_RAYS` rays through the box's central half decide (`ray_verdicts`) and `EMPTY_SHARE` of those
    passed the object's place. Occluded, out-of-image, unread or too flat places give False."""
    verdicts = ray_verdicts(state, frame)
    usable = verdicts[verdicts != 0]
    return usable.size >= MIN_RAYS and float(np.mean(usable == 1)) >= EMPTY_SHARE


def filled_share(state: ObjectState, frame: RGBDFrame) -> tuple[float, int, np.ndarray]:
    """What of `state`'s upright box (its pose's yaw ignored; world frame, m) the camera sees filled:
    over the pixels its central half projects to, the share whose depth reading, taken back into
    the world, lies inside the box grown by THROUGH (up and across, not down: the rim or plate it
    stands on is not it); how many pixels had a reading; and the readings inside ((k, 3) world
    points, m; k = 0 when none is). A reading in front of the box (something hiding it) or beyond
    it (the table) is not filled."""
    centre = np.asarray(state.pose.position, dtype=float)
    half = np.asarray(state.size, dtype=float) / 2.0
    axis = np.linspace(-INNER, INNER, GRID)
    grid = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
    u, v, _, ok = project(frame, centre + grid * half)
    pixels = np.unique(np.stack([v[ok], u[ok]], axis=1), axis=0)
    none = np.zeros((0, 3))
    if not len(pixels):
        return 0.0, 0, none
    depth = np.asarray(frame.depth, dtype=float)[pixels[:, 0], pixels[:, 1]]
    read = np.isfinite(depth) & (depth > 0.0)
    if not read.any():
        return 0.0, 0, none
    k = np.asarray(frame.intrinsics, dtype=float)
    d, rows, cols = depth[read], pixels[read, 0], pixels[read, 1]
    cam = np.stack([(cols - k[0, 2]) * d / k[0, 0], (rows - k[1, 2]) * d / k[1, 1], d], axis=1)
    pose = np.asarray(frame.extrinsics, dtype=float)
    world = cam @ pose[:3, :3].T + pose[:3, 3]
    off = world - centre
    grown = half + THROUGH
    inside = np.all(np.abs(off[:, :2]) <= grown[:2], axis=1) & (off[:, 2] <= grown[2])
    inside &= off[:, 2] >= -half[2]  # not grown downwards: what it stands on is not it
    return float(np.mean(inside)), int(read.sum()), world[inside]


def seen_filled(state: ObjectState, frame: RGBDFrame) -> bool:
    """True when the camera sees something in `state`'s upright box (`filled_share`): at least
    `MIN_RAYS` pixels read and FILLED_SHARE of them inside it. Positive evidence that it is there,
    where `seen_empty` is evidence that it is not; a place hidden or unread is neither."""
    share, read, _ = filled_share(state, frame)
    return read >= MIN_RAYS and share >= FILLED_SHARE


def ray_verdicts(state: ObjectState, frame: RGBDFrame) -> np.ndarray:
    """Per sample point of `state`'s box: 1 when the camera's reading along the ray through it lies
    beyond it by more than the threshold (the ray passed where the object should be), −1 when in
    front by more (the object's own surface, or something hiding it), 0 unusable (ambiguous, no
    reading, outside the image, behind the camera). Shape (k,), one point per pixel.

    Points: the box's central half, threshold `THROUGH`; for a flat object (under `FLAT` tall: a
    plate) points on its top face, the threshold half the depth between that face and what it lies
    on along the ray (the ray then meets the table under it, not the plate)."""
    centre = np.asarray(state.pose.position, dtype=float)
    rot = np.asarray(rotation_matrix(*state.pose.euler), dtype=float)
    half = np.asarray(state.size, dtype=float) / 2.0
    axis = np.linspace(-INNER, INNER, GRID)
    flat = state.size[2] < FLAT and abs(rot[2, 2]) > 0.9
    if flat:  # its top face (central half of it)
        grid = np.stack(np.meshgrid(axis, axis, [1.0], indexing="ij"), -1).reshape(-1, 3)
    else:
        grid = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
    world = centre + (grid * half) @ rot.T
    u, v, z, ok = project(frame, world)
    u, v, z, world = u[ok], v[ok], z[ok], world[ok]
    order = np.argsort(z)  # one point per pixel: the nearest
    _, first = np.unique((v * frame.shape[1] + u)[order], return_index=True)
    pick = order[first]
    depth = np.asarray(frame.depth, dtype=float)[v[pick], u[pick]]
    z, world = z[pick], world[pick]
    if flat:  # half the way from the top face to where the ray meets the plane it lies on
        eye = np.asarray(frame.extrinsics, dtype=float)[:3, 3]
        bottom = centre[2] - half[2]
        under = (
            z * (eye[2] - bottom) / np.maximum(eye[2] - world[:, 2], 1e-6)
        )  # similar triangles along the ray
        margin = np.maximum((under - z) / 2.0, 0.0)
    else:
        margin = np.full(len(z), THROUGH)
    out = np.zeros(len(pick), dtype=int)
    read = np.isfinite(depth) & (depth > 0.0)
    out[read & (depth > z + margin) & (margin >= FLAT_MARGIN)] = 1
    out[read & (depth < z - margin)] = -1
    return out


def seen_past(frame: RGBDFrame, state: ObjectState, margin: float = 0.005) -> bool:
    """Does `frame` see something more than `margin` m beyond `state`'s centre (world frame) on the ray
    to it, so that it cannot be there (its near side would be seen about its radius before its
    centre)? The median of a 5×5 pixel patch, so one noisy reading does not decide. False when the
    centre is outside the image (2 px in), behind the camera or has no depth. For a small object
    taken to have fallen somewhere (a golf ball, the soup); `ray_verdicts` judges a whole box."""
    u, v, z, ok = project(frame, np.asarray([state.pose.position], dtype=float), border=2)
    if not ok[0]:
        return False
    i, j = int(v[0]), int(u[0])
    patch = np.asarray(frame.depth, dtype=float)[i - 2 : i + 3, j - 2 : j + 3]
    depth = patch[np.isfinite(patch) & (patch > 0)]
    return depth.size > 0 and float(np.median(depth)) > z[0] + margin


def seen_past_around(frame: RGBDFrame, state: ObjectState, reach: float = ROLL) -> bool:
    """`seen_past` at `state`'s centre and at every spot of a grid (ROLL_STEP apart) within `reach` m
    of it across, at the same height (world frame): True only when the camera sees past all of them,
    so that a thing poured onto a flat surface, which rolls off the spot under the mouth, lies
    nowhere near it. One spot hidden (by the container held above, say), out of the image or unread
    gives False. (A golf ball poured out can roll 5 cm from the spot, behind the upside-down mug
    from the camera: the spot itself seen empty says nothing of where it lies.)"""
    step = np.arange(-reach, reach + 1e-9, ROLL_STEP)
    gx, gy = np.meshgrid(step, step, indexing="ij")
    disc = np.hypot(gx, gy) <= reach
    x, y = state.pose.x, state.pose.y
    return all(
        seen_past(frame, replace(state, pose=replace(state.pose, x=x + float(dx), y=y + float(dy))))
        for dx, dy in zip(gx[disc], gy[disc], strict=True)
    )


def project(frame: RGBDFrame, world: np.ndarray, border: int = 0) -> tuple[np.ndarray, ...]:
    """Pixels of world points (n, 3) (m, world frame) in `frame`: (u, v) integer columns and rows,
    z (m along the optical axis) and a mask of the points in front of the camera and at least
    `border` pixels inside the image; each (n,)."""
    cam_to_world = np.asarray(frame.extrinsics, dtype=float)
    world_to_cam = np.linalg.inv(cam_to_world)
    cam = world @ world_to_cam[:3, :3].T + world_to_cam[:3, 3]
    z = cam[:, 2]
    front = z > 1e-3
    safe = np.where(front, z, 1.0)
    k = np.asarray(frame.intrinsics, dtype=float)
    u = np.round(k[0, 0] * cam[:, 0] / safe + k[0, 2]).astype(int)
    v = np.round(k[1, 1] * cam[:, 1] / safe + k[1, 2]).astype(int)
    h, w = frame.shape
    ok = front & (u >= border) & (u < w - border) & (v >= border) & (v < h - border)
    return u, v, z, ok


def floor_verdict(before: RGBDFrame, now: RGBDFrame, container: ObjectState, z: float) -> str:
    """What became of the floor of `container` between `before` and `now` (frames of one fixed
    camera), judged on the pixels of a disc around its axis (FLOOR_SHARE of its half-width, at
    height `z`: where a thing poured into it would lie; world frame, m):
    'arrived' when at least ARRIVED_PIXELS came nearer by NEARER (something came to rest on it: a
    small red soup in a red bowl is not told apart by colour, by depth it is); else 'hidden' when
    more than HIDDEN_SHARE came nearer by more (a can or a hand held above it: what lies under
    them is not seen); else 'empty' (nothing came, and it is in view). 'hidden' too when the two
    frames are not of one camera, or the disc is out of the image."""
    if not np.allclose(before.extrinsics, now.extrinsics) or before.shape != now.shape:
        return "hidden"
    r = FLOOR_SHARE * min(container.size[:2]) / 2
    step = np.arange(-r, r + 1e-9, 0.004)
    gx, gy = np.meshgrid(step, step, indexing="ij")
    disc = np.hypot(gx, gy) <= r
    pts = np.stack(
        [container.pose.x + gx[disc], container.pose.y + gy[disc], np.full(int(disc.sum()), z)], -1
    )
    u, v, _, ok = project(now, pts)
    pix = np.unique(np.stack([v[ok], u[ok]], -1), axis=0)
    if not len(pix):
        return "hidden"
    a = np.asarray(before.depth, dtype=float)[pix[:, 0], pix[:, 1]]
    b = np.asarray(now.depth, dtype=float)[pix[:, 0], pix[:, 1]]
    valid = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    if int(((a - b > NEARER[0]) & (a - b < NEARER[1]) & valid).sum()) >= ARRIVED_PIXELS:
        return "arrived"
    return "hidden" if float(np.mean((a - b >= NEARER[1]) & valid)) > HIDDEN_SHARE else "empty"
