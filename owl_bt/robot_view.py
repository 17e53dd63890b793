"""The arm as a camera would see it, from its measured joints and its model: the robot's own body
is removed from a real frame by rendering the arm's URDF (arm + gripper, at the measured joints and
gripper opening) with the camera's intrinsics and extrinsics, in a private pybullet client that
holds nothing else. `perception.label_free` takes the depth this renders.
"""

from __future__ import annotations

import numpy as np
import pybullet as p

from owl_bt.state import RobotState

NEAR, FAR = 0.05, 5.0  # m: the render's clip planes


class RobotView:
    """robot: a name in `sim.robot.ROBOTS`; base: where its base stands in the world (m; default
    the spec's mount). `depth(frame, state)` renders the arm alone."""

    def __init__(self, robot: str, base: tuple[float, float, float] | None = None) -> None:
        from sim.robot import RobotModel

        self.cid = p.connect(p.DIRECT)
        self.model = RobotModel.load(self.cid, base=base, robot=robot)

    def depth(self, intrinsics: np.ndarray, extrinsics: np.ndarray, shape, state: RobotState):
        """H×W depth (m along the optical axis; inf where the arm is not) of the arm at `state`'s
        joints and gripper opening, seen by a camera with `intrinsics` (3×3) and `extrinsics`
        (4×4 camera→world, optical frame) and image `shape` (H, W)."""
        self.model.reset_arm(state.joints)
        self.model.reset_fingers(self.model.angle_for_opening(state.gripper_width))
        h, w = shape
        gl = np.asarray(extrinsics, dtype=float) @ np.diag([1.0, -1.0, -1.0, 1.0])
        view = np.linalg.inv(gl)
        proj = projection(np.asarray(intrinsics, dtype=float), w, h)
        _, _, _, zbuf, _ = p.getCameraImage(
            w,
            h,
            view.T.reshape(-1).tolist(),
            proj.T.reshape(-1).tolist(),
            renderer=p.ER_TINY_RENDERER,
            flags=p.ER_NO_SEGMENTATION_MASK,
            physicsClientId=self.cid,
        )
        z = np.asarray(zbuf, dtype=np.float64).reshape(h, w)
        depth = FAR * NEAR / (FAR - (FAR - NEAR) * z)
        depth[z >= 1.0] = np.inf
        return depth

    def close(self) -> None:
        if self.cid is not None:
            p.disconnect(self.cid)
            self.cid = None


def projection(k: np.ndarray, w: int, h: int) -> np.ndarray:
    """The OpenGL projection matrix (4×4, row-major) of a pinhole camera with intrinsics `k`
    (OpenCV convention, pixel centres at u + 0.5) and image size w × h, rows from the top."""
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    return np.array(
        [
            [2 * fx / w, 0.0, 1 - 2 * cx / w, 0.0],
            [0.0, 2 * fy / h, 2 * cy / h - 1, 0.0],
            [0.0, 0.0, -(FAR + NEAR) / (FAR - NEAR), -2 * FAR * NEAR / (FAR - NEAR)],
            [0.0, 0.0, -1.0, 0.0],
        ]
    )
