"""RGB-D cameras behind one protocol: the simulated head camera here, an Intel RealSense in
`perception.realsense`, a recorded folder in `perception.recorded` (chosen by `perception.sources`).

Every camera returns an `RGBDFrame`: rgb H×W×3 uint8; depth H×W float32 in metres along the optical
axis (0 or NaN where the sensor saw nothing); intrinsics 3×3 (pixels, OpenCV convention: x right,
y down, z forward); extrinsics 4×4 camera→world (same optical convention). A simulated frame also
carries `seg` (H×W int32 instance ids, −1 background) and `labels` (instance id → (name, kind)),
what the simulator's instance segmentation gives a detector. A frame replayed from a recording may
carry `robot`: the arm's measured state when it was taken (its body is masked out where those
joints put it, not where the live arm is now).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from owl_bt.state import RobotState


@dataclass
class RGBDFrame:
    """One capture (see the module docstring for shapes, units and frames)."""

    rgb: np.ndarray
    depth: np.ndarray
    intrinsics: np.ndarray
    extrinsics: np.ndarray
    seg: np.ndarray | None = None
    labels: dict[int, tuple[str, str]] = field(default_factory=dict)
    robot: RobotState | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.depth.shape[0], self.depth.shape[1]

    @property
    def eye(self) -> np.ndarray:
        """The camera's optical centre in the world, m."""
        return self.extrinsics[:3, 3].copy()


class Camera(Protocol):
    def capture(self) -> RGBDFrame:
        """A fresh RGB-D frame; raises OSError (or a subclass) when the device fails."""
        ...


@dataclass(frozen=True)
class DepthNoise:
    """A structured-light / stereo depth noise model: Gaussian noise with σ = sigma_z2 · z² (m, z in m),
    depth quantised to `step` m, and a fraction `dropout` of pixels with no reading (0)."""

    sigma_z2: float = 0.001
    step: float = 0.001
    dropout: float = 0.01

    def apply(self, depth: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        d = depth.astype(np.float64)
        d = d + rng.normal(0.0, 1.0, d.shape) * self.sigma_z2 * d * d
        if self.step > 0:
            d = np.round(d / self.step) * self.step
        d[rng.random(d.shape) < self.dropout] = 0.0
        return d.astype(np.float32)


OPENGL_TO_OPTICAL = np.diag(
    [1.0, -1.0, -1.0, 1.0]
)  # OpenGL camera axes (y up, looking down −z) → optical


class SimCamera:
    """A simulated RGB-D camera. `render()` returns a frame-like object with rgb, depth (m, inf where
    nothing), seg, intrinsics and extrinsics (camera→world, OpenGL axes: y up, looking down −z), as
    `sim.camera.render` does; `labels()` maps instance ids to (name, kind). Depth without a reading
    becomes 0; `noise` (None: perfect depth) is applied with a generator seeded by `seed`."""

    def __init__(
        self, render, labels, noise: DepthNoise | None = DepthNoise(), seed: int = 0
    ) -> None:
        self._render, self._labels = render, labels
        self.noise = noise
        self.rng = np.random.default_rng(seed)

    def capture(self) -> RGBDFrame:
        f = self._render()
        depth = np.where(np.isfinite(f.depth), f.depth, 0.0).astype(np.float32)
        if self.noise is not None:
            depth = np.where(depth > 0, self.noise.apply(depth, self.rng), 0.0).astype(np.float32)
        extr = np.asarray(f.extrinsics, dtype=np.float64) @ OPENGL_TO_OPTICAL
        return RGBDFrame(
            np.asarray(f.rgb),
            depth,
            np.asarray(f.intrinsics, dtype=np.float64),
            extr,
            np.asarray(f.seg),
            dict(self._labels()),
        )


def look_at(eye: tuple[float, float, float], target: tuple[float, float, float]) -> np.ndarray:
    """Camera→world 4×4 (optical frame: z forward, x right, y down) for a camera at `eye` looking at
    `target` with world z up (m)."""
    z = np.asarray(target, float) - np.asarray(eye, float)
    z /= np.linalg.norm(z)
    x = np.cross(z, (0.0, 0.0, 1.0))
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-9 else np.array([1.0, 0.0, 0.0])
    y = np.cross(z, x)
    t = np.eye(4)
    t[:3, 0], t[:3, 1], t[:3, 2], t[:3, 3] = x, y, z, eye
    return t


def intrinsics_for(width: int, height: int, fov_deg: float) -> np.ndarray:
    """A pinhole 3×3 for a vertical field of view `fov_deg` and square pixels."""
    f = height / (2 * math.tan(math.radians(fov_deg) / 2))
    return np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], dtype=np.float64)


class Unlabelled:
    """A camera's frames without segmentation or labels (what a real RGB-D camera gives):
    `--perception camera-unlabelled` over the simulated head camera."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera

    def capture(self) -> RGBDFrame:
        f = self.camera.capture()
        return RGBDFrame(f.rgb, f.depth, f.intrinsics, f.extrinsics)

    def close(self) -> None:
        close = getattr(self.camera, "close", None)
        if close is not None:
            close()
