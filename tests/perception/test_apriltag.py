"""perception.apriltag on rendered tags: the library's own bits decode, one tag's pose and
several tags' joint fit against the simulated camera's true pose, and a mis-stated tag pose shows
in the reprojection error."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perception.apriltag import FACE_UP, find_tags, solve_camera, tag_image
from sim.frames import pose_matrix

LAYOUT = {
    0: (0.40, 0.25, 0.0005, 0.0, 0.0, 0.0),
    1: (0.40, -0.25, 0.0005, 0.0, 0.0, 0.5),
    2: (0.72, 0.25, 0.0005, 0.0, 0.0, 1.0),
    3: (0.72, -0.25, 0.0005, 0.0, 0.0, -0.4),
}
SIZE = 0.08


@pytest.fixture(scope="module")
def rendered():
    from perception.camera import OPENGL_TO_OPTICAL
    from perception.sim_tag import add_tag
    from sim.camera import render_head
    from sim.world import SimWorld

    world = SimWorld()
    try:
        poses = {i: add_tag(world.cid, SIZE, p, i)[1] for i, p in LAYOUT.items()}
        f = render_head(world.cid)
    finally:
        world.close()
    return f, poses, np.asarray(f.extrinsics) @ OPENGL_TO_OPTICAL


def _errors(est: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    r = est[:3, :3].T @ truth[:3, :3]
    deg = math.degrees(math.acos(float(np.clip((np.trace(r) - 1) / 2, -1, 1))))
    return float(np.linalg.norm(est[:3, 3] - truth[:3, 3])), deg


def test_printed_tag_decodes() -> None:
    from pupil_apriltags import Detector

    img = np.pad(tag_image(5, cell_px=20), 40, constant_values=255)
    found = Detector(families="tag36h11").detect(img)
    assert [(d.tag_id, d.hamming) for d in found] == [(5, 0)]


def test_tags_give_the_cameras_pose(rendered) -> None:
    f, poses, truth = rendered
    sightings = find_tags(f.rgb, f.intrinsics, SIZE)
    assert sorted(s.id for s in sightings) == [0, 1, 2, 3]
    for s in sightings:  # the stated pose is what the tag's sighting implies
        assert np.allclose(poses[s.id], pose_matrix(LAYOUT[s.id]) @ FACE_UP)
    one = poses[0] @ np.linalg.inv(sightings[0].camera_from_tag)
    mm, deg = _errors(one, truth)
    assert mm < 0.04 and deg < 2.0  # one small tag: centimetres
    est, rms, used = solve_camera(sightings, poses, SIZE, f.intrinsics)
    mm, deg = _errors(est, truth)
    assert used == 4 and rms < 0.5
    assert mm < 0.01 and deg < 0.5


def test_a_misstated_pose_shows(rendered) -> None:
    f, poses, _ = rendered
    wrong = dict(poses)
    wrong[2] = pose_matrix((0.75, 0.25, 0.0005, 0.0, 0.0, 1.0)) @ FACE_UP  # 3 cm off
    _, rms, _ = solve_camera(find_tags(f.rgb, f.intrinsics, SIZE), wrong, SIZE, f.intrinsics)
    assert rms > 2.0
    with pytest.raises(ValueError, match="no tag of known pose"):
        solve_camera(find_tags(f.rgb, f.intrinsics, SIZE), {9: poses[0]}, SIZE, f.intrinsics)
