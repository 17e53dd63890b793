"""Labelling: detectors name what the camera sees .

A `Detector` returns `Detection`s: a name, a kind (a catalogue kind, '' when unknown) and a pixel
mask. In simulation `SegmentationDetector` reads the rendered instance segmentation with its labels,
as a trained instance-segmentation model would give masks and class labels on hardware; the pipeline
associates the masks with point clusters. `name_by_colour` is the fallback for clusters no detector
labelled (colour and size class), and `VLMCropNamer` asks a vision-language model to name a crop.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from perception.camera import RGBDFrame

ROBOT = "robot"  # the kind a detector gives the robot's own body (removed before clustering)
HIDDEN_FLAG = "partly hidden behind "  # an observation's flag, + what hides it (ROBOT, an object's name, "something")

# Basic colour words with a typical rgb in [0, 1] (the fallback's vocabulary; a catalogue may pass its own).
BASIC_COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.1, 0.1),
    "green": (0.2, 0.65, 0.2),
    "blue": (0.15, 0.3, 0.75),
    "yellow": (0.95, 0.85, 0.15),
    "orange": (0.98, 0.55, 0.1),
    "purple": (0.45, 0.15, 0.45),
    "pink": (0.98, 0.62, 0.5),
    "white": (0.95, 0.95, 0.95),
    "light_grey": (0.78, 0.78, 0.78),
    "grey": (0.5, 0.5, 0.52),
    "black": (0.08, 0.08, 0.08),
    "brown": (0.55, 0.4, 0.25),
}


@dataclass
class Detection:
    """name: unique in the frame; kind: catalogue kind or ''; mask: H×W bool; source: which detector."""

    name: str
    kind: str
    mask: np.ndarray
    source: str = "segmentation"


class Detector(Protocol):
    def detect(self, frame: RGBDFrame) -> list[Detection]:
        """Named masks of what is in the frame (the robot's own body with kind ROBOT)."""
        ...


class SegmentationDetector:
    """Masks and labels from the simulator's instance segmentation (`frame.seg`, `frame.labels`)."""

    def detect(self, frame: RGBDFrame) -> list[Detection]:
        if frame.seg is None:
            return []
        out = []
        present = set(np.unique(frame.seg).tolist())
        for inst, (name, kind) in sorted(frame.labels.items()):
            if inst in present:
                out.append(Detection(name, kind, frame.seg == inst, "segmentation"))
        return out


def dominant_colour(rgb: np.ndarray) -> np.ndarray:
    """The colour (rgb in [0, 1]) of the better-lit half of the pixels (N×3 in [0, 1]): the median of
    those at or above the median brightness, so shading and shadows count less."""
    if len(rgb) == 0:
        return np.array([0.5, 0.5, 0.5])
    bright = rgb.max(axis=1)
    return np.median(rgb[bright >= np.median(bright)], axis=0)


def colour_name(rgb: np.ndarray, palette: dict[str, tuple[float, ...]] | None = None) -> str:
    """The palette word nearest to `rgb` after matching brightness (lighting scales all channels)."""
    palette = palette or BASIC_COLOURS
    c = np.asarray(rgb[:3], dtype=float)
    best, best_d = "", float("inf")
    for word, ref in palette.items():
        r = np.asarray(ref[:3], dtype=float)
        k = float(
            np.clip(c.max() / max(r.max(), 1e-6), 0.5, 1.5)
        )  # lighting: up to ±50 % brightness
        d = float(np.linalg.norm(c - k * r)) + 0.3 * abs(1 - k)
        if d < best_d:
            best, best_d = word, d
    return best


def size_class(extent: float) -> str:
    """'small' (< 6 cm), 'medium' (< 15 cm) or 'large', from the largest extent (m)."""
    return "small" if extent < 0.06 else "medium" if extent < 0.15 else "large"


def name_by_colour(rgb: np.ndarray, extent: float, taken: set[str]) -> str:
    """A fresh name such as 'red_small_object' (then '_2', '_3' …) not in `taken`."""
    base = f"{colour_name(rgb)}_{size_class(extent)}_object"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


class VLMCropNamer:
    """Asks a vision-language model (anything with `complete(messages, images) -> str`, the VLM
    protocol of owl_bt.language) to name the object in a crop with one of `kinds`; returns '' when
    the answer names none of them."""

    def __init__(self, vlm, kinds: list[str]) -> None:
        self.vlm, self.kinds = vlm, sorted(kinds)

    def name(self, rgb: np.ndarray, mask: np.ndarray, margin: int = 8) -> str:
        from PIL import Image

        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        if len(rows) == 0:
            return ""
        r0, r1 = max(0, rows[0] - margin), min(mask.shape[0], rows[-1] + margin + 1)
        c0, c1 = max(0, cols[0] - margin), min(mask.shape[1], cols[-1] + margin + 1)
        buf = io.BytesIO()
        Image.fromarray(rgb[r0:r1, c0:c1]).save(buf, format="PNG")
        prompt = (
            "What is the object in the middle of this image? Answer with exactly one word from this list: "
            + ", ".join(self.kinds)
            + "."
        )
        answer = self.vlm.complete([{"role": "user", "content": prompt}], [buf.getvalue()])
        words = re.findall(r"[a-z_]+", answer.lower())
        for w in words:
            if w in self.kinds:
                return w
        return ""
