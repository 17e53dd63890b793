"""A printed AprilTag lying in the simulated scene, for `owl-bt calibrate` on rendered images.

`add_tag` places a thin textured square (a mesh with explicit texture coordinates, so that the
printed image is neither mirrored nor turned) and returns the tag's frame in the world as the
detector defines it (`perception.apriltag`: x right and y down as printed, z into the tag).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pybullet as p

from perception.apriltag import FACE_UP, margin_ratio, tag_image
from sim.quiet import quiet


def add_tag(cid: int, tag_size: float, pose, tag_id: int = 0) -> tuple[int, np.ndarray]:
    """Lay tag `tag_id` (black square `tag_size` m) with its centre and turn at `pose`
    (x, y, z m; roll, pitch, yaw rad; world frame), printed face up (+z of the pose). Returns
    (body id, 4×4 world←tag)."""
    from sim.frames import pose_matrix

    folder = tempfile.mkdtemp(prefix="owl-bt-tag-")
    png = os.path.join(folder, f"tag36h11_{tag_id}.png")
    from PIL import Image

    Image.fromarray(tag_image(tag_id, cell_px=16)).convert("RGB").save(png)
    half = tag_size * margin_ratio() / 2
    obj = os.path.join(folder, "tag.obj")
    with open(obj, "w") as f:
        f.write(
            f"v {-half} {half} 0\nv {half} {half} 0\nv {half} {-half} 0\nv {-half} {-half} 0\n"
            "vt 0 1\nvt 1 1\nvt 1 0\nvt 0 0\nvn 0 0 1\n"
            "f 1/1/1 4/4/1 3/3/1\nf 1/1/1 3/3/1 2/2/1\n"
        )
    world_from_local = pose_matrix(pose)
    quat = _quaternion(world_from_local[:3, :3])
    with quiet():
        shape = p.createVisualShape(p.GEOM_MESH, fileName=obj, physicsClientId=cid)
        body = p.createMultiBody(
            0,
            -1,
            shape,
            basePosition=world_from_local[:3, 3].tolist(),
            baseOrientation=quat,
            physicsClientId=cid,
        )
        tex = p.loadTexture(png, physicsClientId=cid)
    p.changeVisualShape(body, -1, textureUniqueId=tex, rgbaColor=(1, 1, 1, 1), physicsClientId=cid)
    return body, world_from_local @ FACE_UP


def _quaternion(r: np.ndarray) -> tuple[float, float, float, float]:
    from scipy.spatial.transform import Rotation

    x, y, z, w = Rotation.from_matrix(r).as_quat()
    return float(x), float(y), float(z), float(w)
