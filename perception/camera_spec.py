"""Which camera perception reads, by configuration: `sim`, `realsense` or `recorded:<folder>`.

- `sim`: the simulator's head camera (RGB-D with depth noise; its instance masks and labels are
  used only by `--perception camera`);
- `realsense`: an Intel RealSense through pyrealsense2 (`perception.realsense`), with the
  camera→world extrinsics of the setup file's `[camera]`;
- `recorded:<folder>`: frames written by `owl-bt record` (`perception.recorded`), replayed in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from owl_bt.errors import UsageError

KINDS = ("sim", "realsense", "recorded")
SPEC_HELP = "sim, realsense or recorded:<folder>"


@dataclass(frozen=True)
class CameraSpec:
    """kind: one of KINDS; folder: the recorded folder (kind 'recorded' only)."""

    kind: str
    folder: Path | None = None

    def __str__(self) -> str:
        return f"recorded:{self.folder}" if self.kind == "recorded" else self.kind


def parse_camera(text: str) -> CameraSpec:
    """`text` as a CameraSpec; UsageError (one line) for anything else."""
    t = (text or "").strip()
    kind, sep, rest = t.partition(":")
    kind = kind.strip().lower()
    if kind == "recorded":
        if not sep or not rest.strip():
            raise UsageError(f"camera 'recorded' needs its folder: recorded:<folder> ({SPEC_HELP})")
        return CameraSpec("recorded", Path(rest.strip()).expanduser())
    if kind in ("sim", "realsense") and not sep:
        return CameraSpec(kind)
    raise UsageError(f"unknown camera {t!r}: say {SPEC_HELP}")


def open_camera(
    spec: CameraSpec,
    sim: Callable[[], object] | None = None,
    extrinsics: np.ndarray | None = None,
):
    """The camera `spec` names. sim: makes the simulated camera (needed for kind 'sim');
    extrinsics: 4×4 camera→world for a RealSense (identity when None). Raises OSError (a subclass)
    with a one-line reason when the device or folder cannot be opened."""
    if spec.kind == "sim":
        if sim is None:
            raise UsageError("camera 'sim' needs a simulated scene")
        return sim()
    if spec.kind == "realsense":
        from perception.realsense import RealSenseCamera

        return RealSenseCamera(np.eye(4) if extrinsics is None else extrinsics)
    from perception.recorded import RecordedCamera

    return RecordedCamera(spec.folder)
