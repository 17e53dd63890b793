"""Frames: a pose (x, y, z m; roll, pitch, yaw rad) as a 4×4 homogeneous transform."""

from __future__ import annotations

import math

import numpy as np


def pose_matrix(pose) -> np.ndarray:
    """4×4 of (x, y, z, roll, pitch, yaw): translation, then R = Rz(yaw) Ry(pitch) Rx(roll)."""
    x, y, z, roll, pitch, yaw = (float(v) for v in pose)
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll),
        math.sin(roll),
        math.cos(pitch),
        math.sin(pitch),
        math.cos(yaw),
        math.sin(yaw),
    )
    t = np.eye(4)
    t[:3, :3] = [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
    t[:3, 3] = (x, y, z)
    return t
