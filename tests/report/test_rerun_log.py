"""owl_bt.report.rerun_log: `run --rerun` writes the run's 3D log (run.rrd) with the camera's point
cloud, the perceived boxes, planned and executed tool paths and the tree; read back with rerun's own
`rerun rrd print`."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import py_trees

from owl_bt.episode import make_perception
from owl_bt.report.rerun_log import RerunLog
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
