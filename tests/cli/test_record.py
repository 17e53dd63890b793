"""`owl-bt record`: sim frames written without labels and replayed; bad requests refused with one
line and exit 2, leaving no folder behind."""

from __future__ import annotations

import numpy as np
import pytest

from perception.camera import OPENGL_TO_OPTICAL
from perception.recorded import RecordedCamera, frame_indices
from tests.support.cli import owl


def test_records_the_sim_head_camera(tmp_path) -> None:
    from sim import tasks
    from sim.camera import render_head
    from sim.world import SimWorld

    dest = tmp_path / "berry"
    res = owl("record", str(dest), "--frames", "2", "--task", "berry1", "--seed", "3")
    assert res.returncode == 0, res.stderr
    assert frame_indices(dest) == [0, 1]
    assert not list(tmp_path.glob(".*partial*"))
    assert sorted(p.name for p in dest.iterdir() if "json" not in p.name) == [
        "frame_000000_depth.png",
        "frame_000000_rgb.png",
        "frame_000001_depth.png",
        "frame_000001_rgb.png",
    ]
    f = RecordedCamera(dest).capture()
    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 3)
        world.settle(0.3)
        truth = render_head(world.cid)
    finally:
        world.close()
    assert np.allclose(f.extrinsics, truth.extrinsics @ OPENGL_TO_OPTICAL)
    assert np.allclose(f.intrinsics, truth.intrinsics)
    seen = (f.depth > 0) & np.isfinite(truth.depth)
    assert seen.sum() > 0.95 * np.isfinite(truth.depth).sum()  # 1 % dropout
    err = np.abs(f.depth[seen] - truth.depth[seen])
    assert np.median(err) < 0.003  # depth noise and millimetre steps, not another scene
    assert np.mean(np.abs(f.rgb.astype(int) - truth.rgb.astype(int))) < 2


@pytest.mark.slow
def test_refusals_leave_nothing(tmp_path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "x").write_text("x")
    cases = [
        (["record", str(taken)], "exists and is not an empty folder"),
        (["record", str(tmp_path / "a"), "--camera", "kinect"], "unknown camera 'kinect'"),
        (["record", str(tmp_path / "b"), "--frames", "0"], "--frames must be from 1"),
        (
            ["record", str(tmp_path / "c"), "--camera", "recorded:/nonexistent"],
            "no recorded folder",
        ),
        (["record", str(tmp_path / "d"), "--task", "nosuch"], "nosuch"),
    ]
    for args, words in cases:
        res = owl(*args)
        assert res.returncode == 2, (args, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, res.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_a_link_to_nothing_is_refused_before_capturing(tmp_path, link_to_nothing) -> None:
    """Before: the frames were captured, then renaming the folder onto the link raised
    NotADirectoryError with a traceback."""
    dest = link_to_nothing
    res = owl("record", str(dest), timeout=60)
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == [
        f"owl-bt: {dest} is a symbolic link to nothing; give a new folder"
    ]
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name]


def test_a_link_to_an_empty_folder_is_filled_and_kept(tmp_path) -> None:
    """Before: renaming the frames onto the link failed (a traceback), after capturing."""
    empty = tmp_path / "empty"
    empty.mkdir()
    link = tmp_path / "frames"
    link.symlink_to(empty)
    res = owl("record", str(link), timeout=120)
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and frame_indices(empty) == [0]
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name]


@pytest.mark.slow
def test_run_refuses_a_camera_it_cannot_read(tmp_path) -> None:
    (tmp_path / "a_file").write_text("")
    for args, words in (
        (["--camera", f"recorded:{tmp_path / 'none'}"], "no such folder"),
        (["--camera", f"recorded:{tmp_path / 'a_file'}"], "a file, not a folder"),
        (["--camera", "recorded:x", "--perception", "sim-state"], "reads the simulator"),
        (["--camera", "kinect"], "unknown camera"),
    ):
        res = owl("run", "--task", "berry1", "--out", str(tmp_path / "run"), *args)
        assert res.returncode == 2, res.stderr
        assert words in res.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "run").exists()
