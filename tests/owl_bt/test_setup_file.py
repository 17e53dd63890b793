"""owl_bt.setup_file: [robot] and [camera] read and checked (one line naming file, table and key),
the table→world transform through base_pose, and calibrate's rewrite of [camera]."""

from __future__ import annotations

import math

import numpy as np
import pytest

from owl_bt.errors import UsageError
from owl_bt.setup_file import (
    load_setup,
    pose_matrix,
    world_from_table,
    write_camera,
)

GOOD = """
[vlm]
model = "qwen"

[robot]
model = "kinova-gen3"
ip = "192.168.1.10"
username = "operator"
base_pose = [0.5, 0.0, 0.0, 0.0, 0.0, 3.141592653589793]
speed_scaling = 0.3

[camera]
source = "realsense"
table_height = 0.02
"""


def test_reads_robot_and_camera(tmp_path) -> None:
    f = tmp_path / "owl-bt.toml"
    f.write_text(GOOD)
    s = load_setup(f)
    assert s.robot.model == "kinova-gen3" and s.robot.backend == "kortex"
    assert s.robot.username == "operator"
    assert s.robot.password({"OWL_BT_ARM_PASSWORD": "s3cret"}) == "s3cret"
    assert s.robot.password({}) == "admin"
    assert s.camera.source == "realsense" and np.array_equal(s.camera.matrix(), np.eye(4))
    assert load_setup(tmp_path / "none.toml").robot is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("kinova-gen3", "ur10"), "[robot] model: must be one of ur5e, ur5, kinova-gen3"),
        (('"192.168.1.10"', '"192.168.1.300"'), "[robot] ip: '192.168.1.300' is not an IPv4"),
        (("speed_scaling = 0.3", "speed_scaling = 2.0"), "[robot] speed_scaling: input should be"),
        (("speed_scaling = 0.3", "speed = 0.3"), "[robot] speed: not a setting"),
        (('username = "operator"', 'password = "x"'), "put the arm's password in"),
        (("0.0, 0.0, 3.14", "0.0, 3.14"), "[robot] base_pose"),
        (('source = "realsense"', 'source = "kinect"'), "[camera] source: unknown camera"),
        (('source = "realsense"', "extrinsics = [[1, 0], [0, 1]]"), "[camera] extrinsics: must be"),
        (('model = "kinova-gen3"', "model = 3"), "[robot] model:"),
        (("[camera]", "[camera"), "is not valid TOML"),
        (("0.0, 0.0, 3.14", "0.0, 3.14"), "[robot] base_pose: must have 6 numbers"),
        (
            ('source = "realsense"', "extrinsics = [[1,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]"),
            "[camera] extrinsics: must be a 4×4 matrix",
        ),
        (
            ('source = "realsense"', "extrinsics = [[1,0,0,1e300],[0,1,0,0],[0,0,1,0],[0,0,0,1]]"),
            "[camera] extrinsics: its translation must be within",
        ),
    ],
)
def test_bad_files_are_one_line(tmp_path, change, words) -> None:
    f = tmp_path / "owl-bt.toml"
    f.write_text(GOOD.replace(*change))
    with pytest.raises(UsageError) as info:
        load_setup(f)
    assert words in info.value.reason and "\n" not in info.value.reason
    assert str(f) in info.value.reason


def test_a_tilted_matrix_is_not_extrinsics(tmp_path) -> None:
    f = tmp_path / "owl-bt.toml"
    rows = "[[2,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]"
    f.write_text(GOOD.replace('source = "realsense"', f"extrinsics = {rows}"))
    with pytest.raises(UsageError, match="must be a rotation"):
        load_setup(f)


def test_world_from_table_puts_the_base_on_the_mount() -> None:
    base = (0.5, 0.2, 0.01, 0.0, 0.0, math.pi / 2)
    mount = (0.14, 0.0, 0.0)
    w = world_from_table(base, mount)
    origin_of_base_in_table = pose_matrix(base)[:, 3]
    assert np.allclose(w @ origin_of_base_in_table, (*mount, 1.0))
    ahead = pose_matrix(base) @ np.array([1.0, 0, 0, 1])  # a point 1 m ahead of the base
    assert np.allclose(w @ ahead, (mount[0] + 1, 0, 0, 1))


def test_write_camera_keeps_the_rest(tmp_path) -> None:
    f = tmp_path / "owl-bt.toml"
    f.write_text(GOOD)
    t = pose_matrix((1.0, 0.0, 1.3, math.pi, 0.3, 0.1))
    write_camera(f, t, 0.4321, None)
    s = load_setup(f)
    assert np.allclose(s.camera.matrix(), t, atol=1e-8)
    assert s.camera.reprojection_error_px == pytest.approx(0.4321)
    assert s.camera.table_height == pytest.approx(0.02) and s.camera.source == "realsense"
    assert s.robot.username == "operator" and 'model = "qwen"' in f.read_text()
    write_camera(tmp_path / "new.toml", t, 0.5, "sim")
    assert load_setup(tmp_path / "new.toml").camera.source == "sim"


@pytest.mark.parametrize("inline", ['camera = { source = "sim" }', 'camera.source = "sim"'])
def test_write_camera_refuses_a_camera_it_cannot_replace(tmp_path, inline) -> None:
    f = tmp_path / "owl-bt.toml"
    f.write_text(f"{inline}\n")
    with pytest.raises(UsageError, match="a table of their own") as info:
        write_camera(f, np.eye(4), 0.3, None)
    assert "\n" not in info.value.reason
    assert f.read_text() == f"{inline}\n" and load_setup(f).camera.source == "sim"


def test_write_camera_through_a_link_writes_the_file_it_names(tmp_path) -> None:
    """Before: the new file was renamed onto the link, replacing it; the file it named kept the
    old settings."""
    real = tmp_path / "real.toml"
    real.write_text(GOOD)
    link = tmp_path / "owl-bt.toml"
    link.symlink_to(real)
    write_camera(link, np.eye(4), 0.25, None)
    assert link.is_symlink() and load_setup(real).camera.reprojection_error_px == 0.25
    assert sorted(p.name for p in tmp_path.iterdir()) == ["owl-bt.toml", "real.toml"]


@pytest.mark.parametrize("where", ["dangling", "loop", "no folder", "under a file"])
def test_write_camera_where_it_cannot_write_is_one_line(tmp_path, where) -> None:
    """Before: a traceback (FileNotFoundError writing the temporary file), or a link to nothing
    replaced by a file."""
    f = tmp_path / "owl-bt.toml"
    if where == "dangling":
        f.symlink_to(tmp_path / "nothing")
    elif where == "loop":
        f.symlink_to(tmp_path / "other")
        (tmp_path / "other").symlink_to(f)
    elif where == "no folder":
        f = tmp_path / "none" / "owl-bt.toml"
    else:
        (tmp_path / "file").write_text("x")
        f = tmp_path / "file" / "owl-bt.toml"
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(UsageError, match="symbolic link to nothing|cannot write the setup file"):
        write_camera(f, np.eye(4), 0.3, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_run_takes_the_setup_and_refuses_a_mismatch(tmp_path) -> None:
    from tests.support.cli import owl

    f = tmp_path / "owl-bt.toml"
    f.write_text(GOOD)
    res = owl("run", "--task", "berry1", "--backend", "rtde", env={"OWL_BT_CONFIG": str(f)})
    assert res.returncode == 2
    assert res.stderr.strip().splitlines()[-1] == (
        f"owl-bt: setup file {f}: [robot] model kinova-gen3 is driven by --backend kortex, not rtde"
    )
    f.write_text(GOOD.replace("ur5e", "x").replace('"192.168.1.10"', '"192.168.1.300"'))
    res = owl("run", "--task", "berry1", "--backend", "kortex", env={"OWL_BT_CONFIG": str(f)})
    assert res.returncode == 2 and "[robot] ip:" in res.stderr.strip().splitlines()[-1]
