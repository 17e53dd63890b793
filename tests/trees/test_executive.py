"""The executive at py_trees 2.6 practice: its shape (data gathering, a safety EternalGuard that
pre-empts everything, a guarded task branch; only py_trees' own composites), one writer per
blackboard key under /owl, work in a worker while the tree ticks at ≥ 10 Hz, Ctrl-C stopping the arm
first, a person's feedback at the replan prompt, and no stale text in the final tree."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import numpy as np
import py_trees
import pytest

from owl_bt.faults import seed_for
from owl_bt.state import RobotState, WorldState
from tests.support.cli import interrupted
from trees.builder import create_root
from trees.runner import run_tree
from trees.services import Services
from trees.worker import WorkerBehaviour

BERRY = "put the strawberry onto the light-grey region at the center of the table"


def test_the_tree_has_gathering_a_safety_guard_and_a_guarded_task_of_py_trees_composites():
    root = create_root()
    assert isinstance(root, py_trees.composites.Sequence) and not root.memory
    gather, tasks = root.children
    assert gather.name == "gather" and [c.name for c in gather.children] == ["arm-status"]
    assert isinstance(tasks, py_trees.composites.Selector)
    safety, task = tasks.children
    assert isinstance(safety, py_trees.decorators.EternalGuard) and safety.name == "safety"
    assert isinstance(task, py_trees.decorators.EternalGuard) and task.name == "task"
    names = [b.name for b in root.iterate()]
    for stage in (
        "ready",
        "perceive",
        "generate-constraints",
        "plan",
        "execute",
        "replan",
        "stop-arm",
        "clear-fault",
    ):
        assert names.count(stage) == 1, stage
    own = ("py_trees.composites", "py_trees.decorators")
    for b in root.iterate():
        if b.children:  # no composite or decorator of our own
            assert type(b).__module__ in own, type(b)
    for b in (
        root.iterate()
    ):  # long work is in workers; plain behaviours only read and write the blackboard
        if b.name in ("perceive", "generate-constraints", "plan", "execute", "clear-fault"):
            assert isinstance(b, WorkerBehaviour)


def test_each_blackboard_key_has_one_writer_under_one_namespace():
    root = create_root()
    writers: dict[str, list[str]] = {}
    for b in root.iterate():
        for client in (getattr(b, "bb", None), getattr(b, "blackboard", None)):
            if client is None:
                continue
            for key in client.write:
                writers.setdefault(key, []).append(b.name)
            for key in client.read | client.write:
                assert key.startswith("/owl/"), key
    assert writers and all(len(w) == 1 for w in writers.values()), writers
    assert writers["/owl/arm"] == ["arm-status"] and writers["/owl/interruption"] == ["clear-fault"]
    assert writers["/owl/instruction"] == ["replan"] and writers["/owl/step"] == ["execute"]


class _Arm:
    """A fake arm: records when it was told to stop."""

    def __init__(self) -> None:
        self.stopped_at: float | None = None
        self.held = None

    def state(self) -> RobotState:
        return RobotState(joints=(0.0,) * 6)

    def stop(self) -> None:
        self.stopped_at = self.stopped_at or time.monotonic()


class _SlowCamera:
    """A perception source whose look takes long (it sleeps, releasing the interpreter) until the arm stops."""

    name = "slow"

    def __init__(self, arm: _Arm) -> None:
        self.arm = arm

    def observe(self):
        end = time.monotonic() + 30
        while self.arm.stopped_at is None and time.monotonic() < end:
            time.sleep(0.01)
        return SimpleNamespace(world=WorldState({}, None, "slow"), image_png=b"")


def test_ctrl_c_stops_the_arm_first_then_the_tree_while_it_ticks_at_10_hz():
    # signals are delivered to the main thread only: pytest (and each xdist worker) runs tests there
    assert threading.current_thread() is threading.main_thread()
    arm = _Arm()
    events: list[tuple[str, float]] = []
    services = Services(
        backend=arm,
        perception=_SlowCamera(arm),
        vlm=None,
        skills={},
        rng=np.random.default_rng(0),
        log=lambda event, **kw: events.append((event, time.monotonic())),
    )
    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        result = run_tree(services, "do something")
    finally:
        timer.cancel()
    assert result.interrupted and result.status == py_trees.common.Status.FAILURE
    stop_event = next(
        t for e, t in events if e == "stop"
    )  # the tree's stop-arm, after the signal stopped the arm
    assert arm.stopped_at is not None and arm.stopped_at <= stop_event
    assert result.tick.busy_ticks >= 15 and result.tick.busy_hz >= 10.0, (
        result.tick
    )  # ticking while perceive worked
    assert "perceive" in result.tree_text and "stop-arm [✕] -- stop requested" in result.tree_text


@pytest.mark.slow
def test_ctrl_c_on_a_real_run_stops_the_arm_and_writes_the_whole_folder(tmp_path):
    out = tmp_path / "r"
    # the arm is moving (a step takes about half a second)
    code, stdout, stderr = interrupted(
        "run",
        BERRY,
        "--task",
        "berry1",
        "--vlm",
        "oracle",
        "--perception",
        "sim-state",
        "--out",
        str(out),
        after="execute running",
        pauses=(0.05,),
    )
    assert code == 130, stderr
    assert (
        "stopped by Ctrl-C (SIGINT); the arm was stopped first" in stderr
        and "Traceback" not in stderr
    )
    # the progress lines do not call the stop a failure ("stop-arm failure — … the arm was stopped")
    lines = [" ".join(line.split()) for line in stderr.splitlines()]
    assert "stop-arm done — stop requested: the arm was stopped" in lines, stderr
    assert not [
        line for line in lines if line.startswith(("stop-arm failure", "clear-fault failure"))
    ], stderr
    assert out.is_dir() and not out.with_name("r.partial").exists()
    plan = json.loads((out / "plan.json").read_text())
    assert plan["result"]["interrupted"] is True and plan["result"]["success"] is False
    events = [json.loads(line)["event"] for line in (out / "events.jsonl").read_text().splitlines()]
    assert "stop" in events and events[-1] == "end" and (out / "report.md").is_file()


@pytest.mark.slow
def test_interactive_feedback_at_the_replan_prompt_goes_into_the_instruction(tmp_path):
    out = tmp_path / "r"
    # one replan: the placed strawberry knocked away
    seed = seed_for("knock", 0.5, [None, True, False, False, False, False], start=10)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            BERRY,
            "--task",
            "berry1",
            "--vlm",
            "oracle",
            "--perception",
            "sim-state",
            "--faults",
            "knock=0.5",
            "--fault-seed",
            str(seed),
            "--interactive",
            "--out",
            str(out),
        ],
        input="set it down gently in the middle\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "add one line of feedback for attempt 2" in proc.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    feedback = [e for e in events if e["event"] == "feedback"]
    assert feedback and feedback[0]["text"] == "set it down gently in the middle"
    assert (
        "feedback after attempt 1: set it down gently in the middle" in proc.stdout
    )  # the replanning lines
    prompts = json.dumps(json.loads((out / "transcript.json").read_text())[-1])
    assert (
        "set it down gently in the middle" in prompts
    )  # the model's prompt in attempt 2 carries it


def test_what_stands_in_a_container_the_plan_moved_went_with_it_and_was_not_knocked():
    # Gen3 Mug3 seed 1: the fork stood in the mug; picking the mug up carried the fork along, and the
    # monitor failed the pick as "fork was moved during pick(mug) (pushed or knocked)". A knife lying
    # beside the mug and moved as far still counts as knocked.
    from types import SimpleNamespace

    from owl_bt.state import ObjectState, Pose, WorldState
    from owl_bt.tamp.operators import GroundOp
    from trees.execute import Execute

    def scene(dx: float) -> WorldState:
        return WorldState(
            {
                "mug": ObjectState("mug", "mug", Pose(0.5 + dx, 0.0, 0.05), (0.1, 0.1, 0.1)),
                "fork": ObjectState("fork", "fork", Pose(0.5 + dx, 0.0, 0.07), (0.02, 0.02, 0.18)),
                "knife": ObjectState(
                    "knife", "knife", Pose(0.5 + dx, 0.15, 0.01), (0.2, 0.02, 0.02)
                ),
            }
        )

    before, after = scene(0.0), scene(0.12)
    pick = SimpleNamespace(op=GroundOp("pick", ("mug",)), expected={"mug": after.get("mug").pose})
    judge = SimpleNamespace(_world=before, _robot_hidden=set())
    assert Execute._moved_later(judge, pick, after, {"fork"}, [pick]) is None
    knocked = Execute._moved_later(judge, pick, after, {"fork", "knife"}, [pick])
    assert (
        knocked is not None
        and knocked.offending_objects == ("knife",)
        and "pushed or knocked" in knocked.reason
    )
    # seen partly behind the arm, its fit is no evidence of a push (BerryCook seed 0: the skillet under the
    # lifted strawberry was fitted 6 cm and 66° off): judged again by a later look
    judge._robot_hidden = {"knife"}
    assert Execute._moved_later(judge, pick, after, {"fork", "knife"}, [pick]) is None


@pytest.mark.slow
def test_a_second_ctrl_c_while_the_planner_winds_down_keeps_the_run_folder(tmp_path):
    # A second Ctrl-C soon after the first removed the whole run folder ("stopped … before the run
    # finished setting up"): it came while the tree waited for the planning worker to return
    out = tmp_path / "r"
    code, stdout, stderr = interrupted(
        "run",
        "",
        "--task",
        "souppour",
        "--vlm",
        "oracle",
        "--perception",
        "sim-state",
        "--out",
        str(out),
        after="plan running",
        pauses=(1.0, 0.1),
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr and "was removed" not in stderr, stderr
    assert out.is_dir() and not out.with_name("r.partial").exists()
    assert json.loads((out / "plan.json").read_text())["result"]["interrupted"] is True
