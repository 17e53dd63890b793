"""Camera rendering with pybullet's CPU renderer: RGB, metric depth and instance segmentation.

`render` returns images plus the intrinsics (3×3, pixels) and extrinsics (4×4, camera→world) a
real RGB-D camera would give, so the perception pipeline can treat both alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pybullet as p

DEFAULT_EYE = (
    1.25,
    0.0,
    0.75,
)  # metres, world frame: in front of the table, looking back at the arm
DEFAULT_TARGET = (0.5, 0.0, 0.0)
# The perception head camera: above the far edge of the table looking steeply down at its middle, so
# that it sees into mugs, cans and bowls (m, world frame; vertical field of view in degrees).
HEAD_EYE = (1.0, 0.0, 1.3)
HEAD_TARGET = (0.52, 0.0, 0.0)
HEAD_FOV_DEG = 42.0


@dataclass
class Frame:
    """One capture. rgb: H×W×3 uint8; depth: H×W float32 metres (inf where nothing);
    seg: H×W int32 body ids (−1 background); intrinsics 3×3; extrinsics 4×4 camera→world."""

    rgb: np.ndarray
    depth: np.ndarray
    seg: np.ndarray
    intrinsics: np.ndarray
    extrinsics: np.ndarray


def render(
    cid: int,
    width: int = 640,
    height: int = 480,
    eye: tuple[float, float, float] = DEFAULT_EYE,
    target: tuple[float, float, float] = DEFAULT_TARGET,
    fov_deg: float = 55.0,
    near: float = 0.05,
    far: float = 5.0,
) -> Frame:
    """Render the scene of client `cid` from `eye` looking at `target` (metres, world frame)."""
    view = p.computeViewMatrix(eye, target, (0, 0, 1), physicsClientId=cid)
    proj = p.computeProjectionMatrixFOV(fov_deg, width / height, near, far, physicsClientId=cid)
    _, _, rgba, zbuf, seg = p.getCameraImage(
        width, height, view, proj, renderer=p.ER_TINY_RENDERER, physicsClientId=cid
    )
    rgba = np.asarray(rgba, dtype=np.uint8).reshape(height, width, 4)
    zbuf = np.asarray(zbuf, dtype=np.float32).reshape(height, width)
    depth = far * near / (far - (far - near) * zbuf)
    depth[zbuf >= 1.0] = np.inf
    seg = np.asarray(seg, dtype=np.int32).reshape(height, width)
    seg = np.where(seg >= 0, seg & ((1 << 24) - 1), -1)
    fy = height / (2 * math.tan(math.radians(fov_deg) / 2))
    k = np.array([[fy, 0, width / 2], [0, fy, height / 2], [0, 0, 1]], dtype=np.float64)
    view_m = np.asarray(view, dtype=np.float64).reshape(4, 4).T  # world→camera (OpenGL)
    cam_to_world = np.linalg.inv(view_m)
    return Frame(
        rgba[:, :, :3].copy(), depth.astype(np.float32), seg.astype(np.int32), k, cam_to_world
    )


def render_head(cid: int, width: int = 640, height: int = 480) -> Frame:
    """A frame from the perception head camera (HEAD_EYE looking at HEAD_TARGET)."""
    return render(cid, width, height, HEAD_EYE, HEAD_TARGET, HEAD_FOV_DEG)


def save_png(rgb: np.ndarray, path: str) -> None:
    """Write an H×W×3 uint8 image as PNG."""
    from PIL import Image

    Image.fromarray(rgb).save(path)
