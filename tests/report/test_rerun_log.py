"""owl_bt.report.rerun_log: `run --rerun` writes the run's 3D log (run.rrd) with the camera's point
cloud, the perceived boxes, planned and executed tool paths and the tree; read back with rerun's own
`rerun rrd print`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import py_trees

from owl_bt.episode import make_perception
from owl_bt.report.rerun_log import RerunLog, viewer_url
from sim import tasks
from sim.world import TIME_STEP, SimWorld
from skills.base import Move
from skills.sim_backend import SimArmBackend

RERUN = Path(sys.executable).with_name("rerun")


@dataclass
class _Step:
    op: str
    commands: list


@dataclass
class _Refinement:
    steps: list


@dataclass
class _Plan:
    refinement: _Refinement


def _entities(rrd: Path) -> str:
    proc = subprocess.run(
        [str(RERUN), "rrd", "print", str(rrd)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_log_holds_cloud_boxes_paths_and_tree(tmp_path):
    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 0)
        backend = SimArmBackend(world)
        perception = make_perception("camera", world, backend)
        log = RerunLog(tmp_path / "run.rrd", world)
        log.tap(perception)
        obs = perception.observe()  # a look: the camera frame and the perceived objects
        assert "strawberry" in obs.world.objects
        home = world.robot.arm_q()
        moved = tuple(q + 0.3 for q in home)
        plan = _Plan(_Refinement([_Step("pick(strawberry)", [Move((home, moved))])]))
        root = py_trees.behaviours.Success(name="done")
        py_trees.blackboard.Blackboard.set("/owl/plan", plan)
        try:
            root.tick_once()
            log.on_tick(root)
        finally:
            py_trees.blackboard.Blackboard.unset("/owl/plan")
        with log.executing():
            world.robot.command_arm(moved)
            world.step(round(0.5 / TIME_STEP))
        log.close()
        assert len(log.path) == 10  # a point every 0.05 s
    finally:
        world.close()
    printed = _entities(tmp_path / "run.rrd")
    for entity in (
        "/world/camera/points",
        "/world/objects",
        "/world/plan/1/step1",
        "/world/executed/tool",
        "/world/executed/path",
        "/tree",
    ):
        assert entity in printed, entity


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_viewer_listening_means_the_file_only():
    url = f"rerun+http://127.0.0.1:{_free_port()}/proxy"
    assert viewer_url({"OWL_BT_RERUN_URL": url}) is None


def test_a_listening_viewer_gets_the_log_live(tmp_path):
    """A real rerun process listening for the SDK (`rerun --port P --save got.rrd`, headless) is found
    and sent the same log as run.rrd."""
    port = _free_port()
    url = f"rerun+http://127.0.0.1:{port}/proxy"
    server = subprocess.Popen(
        [str(RERUN), "--port", str(port), "--save", str(tmp_path / "got.rrd")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # `rerun` is a Python wrapper around the viewer binary: end both
    )
    try:
        deadline = time.monotonic() + 30
        while viewer_url({"OWL_BT_RERUN_URL": url}) is None:
            assert time.monotonic() < deadline and server.poll() is None, "rerun did not listen"
            time.sleep(0.2)
        world = SimWorld()
        try:
            tasks.get("berry1").build(world, 0)
            log = RerunLog(tmp_path / "run.rrd", world, viewer=url)
            log.objects(world.ground_truth())
            log.close()
        finally:
            world.close()
        deadline = time.monotonic() + 30
        while "/world/objects" not in _entities_if_any(tmp_path / "got.rrd"):
            assert time.monotonic() < deadline, "the viewer received nothing"
            time.sleep(0.5)
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # the viewer is a tool here, not what is tested
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    assert "/world/objects" in _entities(tmp_path / "run.rrd")


def _entities_if_any(rrd: Path) -> str:
    if not rrd.exists() or rrd.stat().st_size == 0:
        return ""
    proc = subprocess.run(
        [str(RERUN), "rrd", "print", str(rrd)], capture_output=True, text=True, timeout=120
    )
    return proc.stdout
