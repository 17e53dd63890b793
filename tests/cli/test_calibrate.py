"""`owl-bt calibrate` from the simulated camera: [camera] extrinsics written beside the rest of
the setup file, near the true pose; bad requests refused with one line."""

from __future__ import annotations

import math

import numpy as np
import pytest

from owl_bt.setup_file import load_setup
from tests.support.cli import owl


@pytest.mark.slow
def test_sim_calibration_writes_the_setup_file(tmp_path) -> None:
    from perception.camera import OPENGL_TO_OPTICAL
    from sim.camera import render_head
    from sim.world import SimWorld

    f = tmp_path / "owl-bt.toml"
    f.write_text('[vlm]\nmodel = "x"\n\n[camera]\ntable_height = 0.01\n')
    res = owl("calibrate", "--setup", str(f))
    assert res.returncode == 0, res.stderr
    assert "calibrated from 5 tags: reprojection error" in res.stdout
    s = load_setup(f)
    world = SimWorld()
    try:
        truth = np.asarray(render_head(world.cid).extrinsics) @ OPENGL_TO_OPTICAL
    finally:
        world.close()
    est = s.camera.matrix()
    assert np.linalg.norm(est[:3, 3] - truth[:3, 3]) < 0.01
    r = est[:3, :3].T @ truth[:3, :3]
    assert math.degrees(math.acos(np.clip((np.trace(r) - 1) / 2, -1, 1))) < 0.5
    assert 0 < s.camera.reprojection_error_px < 0.5
    assert s.camera.table_height == 0.01 and 'model = "x"' in f.read_text()


@pytest.mark.slow
def test_refusals(tmp_path) -> None:
    f = tmp_path / "owl-bt.toml"
    for args, code, words in (
        (["--tag", "0=1,2,3"], 2, "give ID=X,Y,Z,ROLL,PITCH,YAW"),
        (["--tag-size", "5"], 2, "--tag-size must be from 0.01 to 1 m"),
        (["--tag", "7=0.5,0,0,0,0,0"], 1, "no tag of the given poses is in view"),
        (["--camera", "realsense"], 2, "say where the tags lie"),
    ):
        res = owl("calibrate", "--setup", str(f), *args)
        assert res.returncode == code, (args, res.stderr)
        assert words in res.stderr.strip().splitlines()[-1]
    assert not f.exists()


def test_a_setup_file_that_cannot_be_written_is_refused_before_capturing(tmp_path) -> None:
    """Before: the tags were found, then writing raised FileNotFoundError with a traceback."""
    f = tmp_path / "none" / "owl-bt.toml"
    res = owl("calibrate", "--setup", str(f))
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == [
        f"owl-bt: cannot write the setup file {f}: no folder {f.parent}"
    ]
    assert list(tmp_path.iterdir()) == []
