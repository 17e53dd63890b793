"""AprilTags for camera calibration, through `pupil_apriltags` (imported when used).

A tag's frame is the library's: origin at the tag's centre, x to the right and y down as the tag
is printed, z into the tag (away from a camera that faces it). `tag_size` is the edge of the black
square in metres (the printed tag's white margin excluded). The camera→world extrinsics follow
from one sighting of a tag whose world pose is known: world←camera = world←tag · (camera←tag)⁻¹.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

FAMILY = "tag36h11"
# A tag lying printed face up at a pose (x, y, z, roll, pitch, yaw): from that pose's frame (z up,
# the print's top edge towards +y) to the tag frame (y down the print, z into the tag).
FACE_UP = np.diag([1.0, -1.0, -1.0, 1.0])


@dataclass
class TagSighting:
    """id; corners: 4×2 pixel corners as the detector orders them; camera_from_tag: 4×4 (m);
    decision_margin: the detector's confidence in the decoding."""

    id: int
    corners: np.ndarray
    camera_from_tag: np.ndarray
    decision_margin: float


def _detector():
    from pupil_apriltags import Detector

    return Detector(families=FAMILY, quad_decimate=1.0, refine_edges=True)


def tag_image(tag_id: int = 0, cell_px: int = 10) -> np.ndarray:
    """The tag `tag_id` of tag36h11 as printed: H×W uint8 (0 black, 255 white), its white margin
    included, `cell_px` pixels a cell. The bits are the library's own code table."""
    from pupil_apriltags.bindings import _ApriltagFamily

    lib = _detector().libc
    lib.tag36h11_create.restype = ctypes.POINTER(_ApriltagFamily)
    fam = lib.tag36h11_create().contents
    if not 0 <= tag_id < fam.ncodes:
        raise ValueError(f"tag36h11 has tags 0 to {fam.ncodes - 1}, not {tag_id}")
    n, total, inner = fam.nbits, fam.total_width, fam.width_at_border
    start = (total - inner) // 2
    img = np.full((total, total), 255, dtype=np.uint8)
    img[start : start + inner, start : start + inner] = 0
    code = int(fam.codes[tag_id])
    for i in range(n):
        if (code >> (n - 1 - i)) & 1:
            img[start + fam.bit_y[i], start + fam.bit_x[i]] = 255
    return np.kron(img, np.ones((cell_px, cell_px), dtype=np.uint8))


def margin_ratio() -> float:
    """The printed tag's full width over its black square's (10 / 8 for tag36h11)."""
    return 10 / 8


def find_tags(rgb: np.ndarray, intrinsics: np.ndarray, tag_size: float) -> list[TagSighting]:
    """Every tag36h11 tag in `rgb` (H×W×3 uint8) with its pose in the camera's optical frame."""
    grey = np.ascontiguousarray(
        (0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]).astype(np.uint8)
    )
    k = np.asarray(intrinsics, dtype=float)
    params = (k[0, 0], k[1, 1], k[0, 2] - 0.5, k[1, 2] - 0.5)  # pixel centres at u + 0.5
    out = []
    for d in _detector().detect(grey, True, params, tag_size):
        t = np.eye(4)
        t[:3, :3], t[:3, 3] = np.asarray(d.pose_R), np.asarray(d.pose_t).ravel()
        out.append(TagSighting(int(d.tag_id), np.asarray(d.corners), t, float(d.decision_margin)))
    return out


def tag_corners(tag_size: float) -> np.ndarray:
    """The black square's corners in the tag frame (4×3, m), in the detector's corner order."""
    h = tag_size / 2
    return np.array([[-h, h, 0.0], [h, h, 0.0], [h, -h, 0.0], [-h, -h, 0.0]])


def reprojection_error(
    world_from_camera: np.ndarray,
    world_from_tag: np.ndarray,
    tag_size: float,
    intrinsics: np.ndarray,
    corners: np.ndarray,
) -> float:
    """RMS pixel distance between the detected `corners` and the tag's corners projected through
    `world_from_camera` (4×4 camera→world, optical frame)."""
    pts = np.c_[tag_corners(tag_size), np.ones(4)] @ world_from_tag.T
    cam = pts @ np.linalg.inv(world_from_camera).T
    k = np.asarray(intrinsics, dtype=float)
    uv = cam[:, :2] / cam[:, 2:3] * (k[0, 0], k[1, 1]) + (k[0, 2] - 0.5, k[1, 2] - 0.5)
    return float(np.sqrt(np.mean(np.sum((uv - corners) ** 2, axis=1))))


def solve_camera(
    sightings: list[TagSighting],
    frame_from_tags: dict[int, np.ndarray],
    tag_size: float,
    intrinsics: np.ndarray,
) -> tuple[np.ndarray, float, int]:
    """The camera→frame 4×4 (optical frame, m) that best reprojects every sighted tag of known
    pose (`frame_from_tags`: tag id → 4×4 frame←tag) onto its detected corners: started from the
    most confident sighting's own pose, refined over all corners by least squares (scipy).
    Returns (camera→frame, RMS reprojection error in pixels over all corners, tags used).
    Raises ValueError when no sighted tag has a known pose."""
    from scipy.optimize import least_squares
    from scipy.spatial.transform import Rotation

    known = [s for s in sightings if s.id in frame_from_tags]
    if not known:
        raise ValueError("no tag of known pose in view")
    best = max(known, key=lambda s: s.decision_margin)
    start = frame_from_tags[best.id] @ np.linalg.inv(best.camera_from_tag)
    k = np.asarray(intrinsics, dtype=float)
    world = np.concatenate(
        [(np.c_[tag_corners(tag_size), np.ones(4)] @ frame_from_tags[s.id].T)[:, :3] for s in known]
    )
    seen = np.concatenate([s.corners for s in known])

    def matrix(x: np.ndarray) -> np.ndarray:
        t = np.eye(4)
        t[:3, :3], t[:3, 3] = Rotation.from_rotvec(x[:3]).as_matrix(), x[3:]
        return t

    def residual(x: np.ndarray) -> np.ndarray:
        cam = np.c_[world, np.ones(len(world))] @ np.linalg.inv(matrix(x)).T
        uv = cam[:, :2] / cam[:, 2:3] * (k[0, 0], k[1, 1]) + (k[0, 2] - 0.5, k[1, 2] - 0.5)
        return (uv - seen).ravel()

    x0 = np.r_[Rotation.from_matrix(start[:3, :3]).as_rotvec(), start[:3, 3]]
    fit = least_squares(residual, x0, method="lm")
    rms = float(np.sqrt(np.mean(fit.fun.reshape(-1, 2) ** 2) * 2))
    return matrix(fit.x), rms, len(known)
