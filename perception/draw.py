"""`perception.png`: the camera image with each object's fitted box drawn and labelled."""

from __future__ import annotations

import io
import itertools

import numpy as np
from PIL import Image, ImageDraw

from owl_bt.state import ObjectState, rotation_matrix
from perception.camera import RGBDFrame

EDGES = [(a, b) for a, b in itertools.combinations(range(8), 2) if bin(a ^ b).count("1") == 1]


def box_corners(obj: ObjectState) -> np.ndarray:
    """The 8 corners (8×3, m, world) of the object's box at its pose (corner k: bit i set → +half along axis i)."""
    half = np.asarray(obj.size) / 2
    signs = np.array([[(k >> i) & 1 for i in range(3)] for k in range(8)]) * 2 - 1
    rot = np.asarray(rotation_matrix(*obj.pose.euler))
    return (signs * half) @ rot.T + np.asarray(obj.pose.position)


def project(frame: RGBDFrame, pts: np.ndarray) -> np.ndarray:
    """Pixel coordinates (N×2, u right, v down) of world points; NaN behind the camera."""
    w2c = np.linalg.inv(frame.extrinsics)
    c = pts @ w2c[:3, :3].T + w2c[:3, 3]
    k = frame.intrinsics
    with np.errstate(divide="ignore", invalid="ignore"):
        uv = np.stack(
            [k[0, 0] * c[:, 0] / c[:, 2] + k[0, 2], k[1, 1] * c[:, 1] / c[:, 2] + k[1, 2]], axis=1
        )
    uv[c[:, 2] <= 0.01] = np.nan
    return uv


def annotate(
    frame: RGBDFrame,
    states: dict[str, ObjectState],
    flags: dict[str, list[str]] | None = None,
    note: str = "",
) -> bytes:
    """PNG bytes: the RGB image, each non-table object's box in green (yellow when flagged) with its
    name, and `note` (e.g. a failure) at the top."""
    img = Image.fromarray(np.asarray(frame.rgb, dtype=np.uint8)).convert("RGB")
    draw = ImageDraw.Draw(img)
    flags = flags or {}
    for name, obj in sorted(states.items()):
        if name == "table":
            continue
        uv = project(frame, box_corners(obj))
        colour = (255, 210, 0) if flags.get(name) else (0, 230, 60)
        for a, b in EDGES:
            if np.isfinite(uv[[a, b]]).all():
                draw.line([tuple(uv[a]), tuple(uv[b])], fill=colour, width=1)
        if np.isfinite(uv).all():
            u, v = uv[:, 0].min(), uv[:, 1].min() - 11
            label = name + (" *" if flags.get(name) else "")
            draw.rectangle([u, v, u + 6 * len(label) + 2, v + 10], fill=(0, 0, 0))
            draw.text((u + 1, v - 1), label, fill=colour)
    if note:
        draw.rectangle([0, 0, img.width, 12], fill=(120, 0, 0))
        draw.text((2, 0), note[:110], fill=(255, 255, 255))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()
