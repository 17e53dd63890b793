"""Recorded RGB-D frames on disk: the folder `owl-bt record` writes and `recorded:<folder>` replays.

One frame `i` is three files named by its six-digit index:

- `frame_000000_rgb.png`: H×W RGB, 8 bits a channel;
- `frame_000000_depth.png`: H×W, 16-bit unsigned, depth along the optical axis in millimetres
  (0: no reading; readings beyond 65.535 m are stored as 0);
- `frame_000000.json`: `{"format": "owl-bt-frame/1", "width", "height", "depth_unit_m": 0.001,
  "intrinsics": 3×3 (pixels, OpenCV convention), "extrinsics": 4×4 camera→world (optical frame:
  x right, y down, z forward; metres)}`, and, when the arm's state was known as the frame was
  taken, `"robot": {"arm", "joints" (rad), "gripper_width" (m)}`: replayed, the arm is masked
  out where those joints put it (the live arm may be elsewhere).

No segmentation and no labels are stored: a recording holds what a real camera gives.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from owl_bt.state import RobotState
from perception.camera import RGBDFrame

FORMAT = "owl-bt-frame/1"
DEPTH_UNIT_M = 0.001  # one step of the 16-bit depth image: a millimetre
_JSON = re.compile(r"frame_(\d{6})\.json")


class RecordingError(OSError):
    """A recorded folder that cannot be read (one-line reason naming the file)."""


def frame_paths(folder: Path, index: int) -> tuple[Path, Path, Path]:
    """(rgb PNG, depth PNG, JSON) of frame `index` in `folder`."""
    stem = folder / f"frame_{index:06d}"
    return Path(f"{stem}_rgb.png"), Path(f"{stem}_depth.png"), Path(f"{stem}.json")


def write_frame(
    folder: Path, index: int, frame: RGBDFrame, robot: RobotState | None = None
) -> None:
    """Write `frame` as frame `index` of `folder` (which must exist), with the arm's measured state
    `robot` (else the frame's own `robot`, if any). Depth is rounded to the millimetre; no
    reading (0, NaN, ±inf) and readings beyond the 16-bit range become 0."""
    from PIL import Image

    rgb_path, depth_path, json_path = frame_paths(folder, index)
    rgb = np.ascontiguousarray(np.asarray(frame.rgb, dtype=np.uint8)[:, :, :3])
    Image.fromarray(rgb).save(rgb_path)
    Image.fromarray(depth_to_mm(frame.depth)).save(depth_path)
    h, w = frame.shape
    meta = {
        "format": FORMAT,
        "width": int(w),
        "height": int(h),
        "depth_unit_m": DEPTH_UNIT_M,
        "intrinsics": np.asarray(frame.intrinsics, dtype=float).tolist(),
        "extrinsics": np.asarray(frame.extrinsics, dtype=float).tolist(),
    }
    arm = robot if robot is not None else frame.robot
    if arm is not None:
        meta["robot"] = {
            "arm": arm.arm,
            "joints": [float(q) for q in arm.joints],
            "gripper_width": float(arm.gripper_width),
        }
    json_path.write_text(json.dumps(meta, indent=1) + "\n")


def depth_to_mm(depth: np.ndarray) -> np.ndarray:
    """H×W metres → H×W uint16 millimetres (0 where there is no reading or it does not fit)."""
    d = np.asarray(depth, dtype=np.float64)
    mm = np.where(np.isfinite(d) & (d > 0), np.round(d / DEPTH_UNIT_M), 0.0)
    mm[mm > np.iinfo(np.uint16).max] = 0.0
    return mm.astype(np.uint16)


def frame_indices(folder: Path) -> list[int]:
    """The indices of the frames in `folder`, in order (by their JSON files)."""
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := _JSON.fullmatch(p.name)))


def read_frame(folder: Path, index: int) -> RGBDFrame:
    """Frame `index` of `folder`; raises RecordingError naming the file that is missing or wrong."""
    from PIL import Image, UnidentifiedImageError

    rgb_path, depth_path, json_path = frame_paths(folder, index)
    try:
        meta = json.loads(json_path.read_text())
    except (OSError, ValueError) as exc:
        raise RecordingError(f"{json_path}: cannot be read ({_why(exc)})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise RecordingError(f"{json_path}: not an owl-bt frame (format is not {FORMAT!r})")
    try:
        k = np.asarray(meta["intrinsics"], dtype=np.float64)
        t = np.asarray(meta["extrinsics"], dtype=np.float64)
        unit = float(meta.get("depth_unit_m", DEPTH_UNIT_M))
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordingError(f"{json_path}: bad intrinsics or extrinsics ({_why(exc)})") from None
    if (
        k.shape != (3, 3)
        or t.shape != (4, 4)
        or not (np.isfinite(k).all() and np.isfinite(t).all())
    ):
        raise RecordingError(f"{json_path}: intrinsics must be 3×3 and extrinsics 4×4, finite")
    if k[0, 0] <= 0 or k[1, 1] <= 0 or not np.allclose(k[2], (0, 0, 1)):
        raise RecordingError(
            f"{json_path}: intrinsics must have positive focal lengths, last row 0 0 1"
        )
    if not (math.isfinite(unit) and 0 < unit <= 1):
        raise RecordingError(f"{json_path}: depth_unit_m must be in (0, 1] metres, got {unit}")
    reading = rgb_path  # the image being read, named when it cannot be
    try:
        with Image.open(rgb_path) as im:
            rgb = np.asarray(im.convert("RGB"), dtype=np.uint8)
        reading = depth_path
        with Image.open(depth_path) as im:
            if im.mode not in ("I;16", "I;16B", "I"):
                raise RecordingError(f"{depth_path}: not a 16-bit depth image (mode {im.mode})")
            raw = np.asarray(im).astype(np.float32)
    except (OSError, UnidentifiedImageError) as exc:
        if isinstance(exc, RecordingError):
            raise
        why = _why(exc)
        raise RecordingError(why if str(reading) in why else f"{reading}: {why}") from None
    if raw.shape != rgb.shape[:2]:
        raise RecordingError(
            f"{depth_path}: depth is {raw.shape[1]}×{raw.shape[0]}, "
            f"the RGB image {rgb.shape[1]}×{rgb.shape[0]}"
        )
    size = (meta.get("width", rgb.shape[1]), meta.get("height", rgb.shape[0]))
    if size != (rgb.shape[1], rgb.shape[0]):
        raise RecordingError(
            f"{json_path}: says {size[0]}×{size[1]}, the images are {rgb.shape[1]}×{rgb.shape[0]}"
        )
    return RGBDFrame(rgb, raw * np.float32(unit), k, t, robot=_robot(meta, json_path))


def _robot(meta: dict, json_path: Path) -> RobotState | None:
    """The arm's state stored with a frame, or None when the frame has none."""
    arm = meta.get("robot")
    if arm is None:
        return None
    try:
        joints = tuple(float(q) for q in arm["joints"])
        width = float(arm.get("gripper_width", 0.085))
        name = str(arm["arm"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RecordingError(f"{json_path}: bad robot state ({_why(exc)})") from None
    if not joints or not all(math.isfinite(q) for q in (*joints, width)):
        raise RecordingError(f"{json_path}: the robot's joints must be finite numbers")
    return RobotState(joints, width, None, name)


class RecordedCamera:
    """A `perception.camera.Camera` that replays a recorded folder: each capture returns the next
    frame; after the last, the last again (a scene held still). Raises RecordingError at
    construction when the folder is missing or holds no frames."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise RecordingError(f"no recorded folder at {self.folder}")
        self.indices = frame_indices(self.folder)
        if not self.indices:
            raise RecordingError(f"{self.folder} holds no recorded frames (frame_000000.json …)")
        self.served = 0  # captures answered so far

    def capture(self) -> RGBDFrame:
        index = self.indices[min(self.served, len(self.indices) - 1)]
        self.served += 1
        return read_frame(self.folder, index)

    def close(self) -> None:
        """Nothing to release (the Camera protocol's close)."""


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return str(exc) or type(exc).__name__


class RecordingCamera:
    """A camera whose every frame is also written, as frame 0, 1, … of `folder` (made if
    missing), without segmentation or labels, with the arm's state `robot()` returns as it was
    taken (None: not written): a run's own looks, to replay with `recorded:<folder>`."""

    def __init__(
        self,
        camera,
        folder: str | Path,
        robot: Callable[[], RobotState | None] | None = None,
    ) -> None:
        self.camera, self.folder, self.robot = camera, Path(folder), robot
        self.folder.mkdir(parents=True, exist_ok=True)
        self.written = 0

    def capture(self) -> RGBDFrame:
        f = self.camera.capture()
        arm = self.robot() if self.robot is not None else None
        write_frame(
            self.folder, self.written, RGBDFrame(f.rgb, f.depth, f.intrinsics, f.extrinsics), arm
        )
        self.written += 1
        return f

    def close(self) -> None:
        close = getattr(self.camera, "close", None)
        if close is not None:
            close()
