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

from collections.abc import Sequence
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
ALONG_SLACK = 0.005  # m: how far a reading may lie off a thin thing's surface (`filled_along`)
SIDE_GAP = 0.01  # m beyond a thin thing's half-width where `filled_along` looks past it …
SIDE_PAST = 0.015  # m … and by how much farther than the thing the reading there must lie
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


Boxes = Sequence[tuple[Sequence[float], Sequence[float]]]


def filled_along(
    frame: RGBDFrame, low: np.ndarray, high: np.ndarray, radius: float, others: Boxes = ()
) -> tuple[float, int, float | None]:
    """What of a thin thing lying along the segment `low` → `high` (world points, m), `radius` m
    thick about it, the camera sees. Sample points every 5 mm along it are projected; a sample
    point is filled when, of the 3×3 pixels round it (a pose a pixel off still counts), a reading
    taken back into the world lies within 2 × `radius` + ALONG_SLACK of it and within `radius` +
    ALONG_SLACK of the segment's line, no deeper along the ray
    than the point + ALONG_SLACK (the thing's front surface, met by a ray at least 30° off its
    axis) and outside the `others` boxes ((lo, hi) world corners grown by ALONG_SLACK: things
    known to be there); and the camera sees past that reading on both sides across the segment's
    image, `radius` + SIDE_GAP away, by more than SIDE_PAST (or reads nothing there): the thing is
    thin, not a bottle or a wall the line runs along. Returns (the share of the sample points in
    the image that are filled, how many distinct pixels those points fall on, the height (world z,
    m) of the highest filled one, None when none is). A segment seen end-on falls on few pixels."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    span = float(np.linalg.norm(high - low))
    if not span > 1e-6:
        return 0.0, 0, None
    n = max(2, int(span / 0.005) + 1)
    samples = low + np.linspace(0.0, 1.0, n)[:, None] * (high - low)
    u, v, z, ok = project(frame, samples, border=1)
    if not ok.any():
        return 0.0, 0, None
    depth = np.asarray(frame.depth, dtype=float)
    k = np.asarray(frame.intrinsics, dtype=float)
    pose = np.asarray(frame.extrinsics, dtype=float)
    axis = (high - low) / span
    best = np.full(n, np.inf)
    seen = z.copy()  # the depth of the reading that counts
    for dv in (-1, 0, 1):
        for du in (-1, 0, 1):
            rows, cols = v[ok] + dv, u[ok] + du
            d = depth[rows, cols]
            cam = np.stack(
                [(cols - k[0, 2]) * d / k[0, 0], (rows - k[1, 2]) * d / k[1, 1], d], axis=1
            )
            world = cam @ pose[:3, :3].T + pose[:3, 3]
            rel = world - samples[ok]
            off = np.linalg.norm(rel, axis=1)
            across = np.linalg.norm(rel - np.outer(rel @ axis, axis), axis=1)
            usable = np.isfinite(d) & (d > 0.0) & (d <= z[ok] + ALONG_SLACK)
            usable &= across <= radius + ALONG_SLACK  # on its surface, not beside it
            usable &= ~_in_boxes(world, others)
            off = np.where(usable, off, np.inf)
            nearer = off < best[ok]
            best[ok] = np.where(nearer, off, best[ok])
            seen[ok] = np.where(nearer, d, seen[ok])
    filled = ok & (best <= 2 * radius + ALONG_SLACK) & _thin(frame, u, v, seen, radius)
    pixels = len({(int(a), int(b)) for a, b in zip(u[ok], v[ok], strict=True)})
    top = float(samples[filled, 2].max()) if filled.any() else None
    return float(filled.sum() / ok.sum()), pixels, top


def _in_boxes(world: np.ndarray, boxes: Boxes) -> np.ndarray:
    """Per world point ((n, 3), m): whether it lies in any of `boxes` grown by ALONG_SLACK."""
    out = np.zeros(len(world), dtype=bool)
    for lo, hi in boxes:
        grown_lo, grown_hi = np.asarray(lo) - ALONG_SLACK, np.asarray(hi) + ALONG_SLACK
        out |= np.all((world >= grown_lo) & (world <= grown_hi), axis=1)
    return out


def _thin(
    frame: RGBDFrame, u: np.ndarray, v: np.ndarray, d: np.ndarray, radius: float
) -> np.ndarray:
    """Per point of a segment's image (pixels u, v in order along it; d: the depth read there, m):
    whether the camera sees more than SIDE_PAST past d, or nothing, `radius` + SIDE_GAP m to both
    sides across the segment's image."""
    along = np.array([float(u[-1] - u[0]), float(v[-1] - v[0])])
    length = float(np.hypot(*along))
    across = np.array([-along[1], along[0]]) / length if length > 0 else np.array([1.0, 0.0])
    k = np.asarray(frame.intrinsics, dtype=float)
    depth = np.asarray(frame.depth, dtype=float)
    h, w = frame.shape
    reach = (radius + SIDE_GAP) * k[0, 0] / np.maximum(d, 1e-3)
    clear = np.ones(len(u), dtype=bool)
    for sign in (-1.0, 1.0):
        cols = np.round(u + sign * across[0] * reach).astype(int)
        rows = np.round(v + sign * across[1] * reach).astype(int)
        inside = (cols >= 0) & (cols < w) & (rows >= 0) & (rows < h)
        there = np.full(len(u), np.nan)
        there[inside] = depth[rows[inside], cols[inside]]
        clear &= ~(np.isfinite(there) & (there > 0.0) & (there <= d + SIDE_PAST))
    return clear
