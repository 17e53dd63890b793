"""What one run is asked to do (`EpisodeConfig`): kept apart from `owl_bt.episode`, whose imports
(the simulator, the planner, perception) take seconds, so the command line can check and announce a
run before it pays for them; `validate` checks one (a second at most)."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from owl_bt.errors import UsageError
from owl_bt.faults import parse_faults
from owl_bt.language.backends import make_vlm
from owl_bt.language.sandbox import reserved_names
from owl_bt.plain_text import MAX_INSTRUCTION
from perception.camera_spec import parse_camera
from sim import tasks
from sim.robot import robot_spec
from sim.scene_file import Scene, load_scene
from skills.hardware import BACKENDS, ROBOT_OF, ROBOTS_OF

MAX_SEED = 10**12  # the largest scene seed `run` and `bench` accept (episodes.jsonl records it)

ORACLE_CANNOT = (
    "no-disc",
    "direct",
    "cap",
    "cap-sample",
)  # methods whose questions the oracle's answers do not fit
PLAN_TIME = 900.0  # s: a planning round (all its skeletons) longer than this ends the run (rounds take 1-9 min on a busy machine)
PERCEPTION_SOURCES = (
    "camera",
    "camera-unlabelled",
    "sim-state",
)  # camera: the RGB-D pipeline (default); sim-state: ground truth, for debugging


@dataclass
class EpisodeConfig:
    instruction: str
    task: str = "berry1"
    seed: int = 0
    out: Path | None = None
    gui: bool = False
    vlm: str = "offline"
    perception: str = "camera"
    max_attempts: int = 4
    budget: int = 500
    scene: Path | None = None  # a user scene file (sim/scene_file.py) instead of the benchmark task
    skeletons: int = 5  # skeletons tried per planning round
    plan_time: float = PLAN_TIME  # seconds one planning round may take before the run gives up
    robot: str = "ur5e"  # the arm (sim.robot.ROBOTS: ur5e, kinova-gen3; alias ur5)
    speed: float = 1.0  # share of the joints' velocity limits the safety guard allows, (0, 1]
    backend: str = "sim"  # sim, or hardware: kortex (Kinova Gen3), rtde (UR5) — skills/hardware.py
    ip: str | None = None  # the arm's address (hardware backends)
    execute: bool = (
        False  # hardware: really move the arm (default: a dry run that never contacts it)
    )
    clear_faults: bool = (
        False  # hardware --execute: clear a fault / unlock a protective stop at connect
    )
    confirm: Callable[[Any], bool] | None = (
        None  # hardware --execute: asked once with the first motion
    )
    faults: str | None = (
        None  # injected faults in simulation, e.g. "grasp-slip=0.2,knock=0.1" (owl_bt.faults)
    )
    fault_seed: int = 0  # seeds the injected faults (with the episode's seed)
    ask: Callable[[str], str] | None = (
        None  # --interactive: a person's one line of feedback at each replan
    )
    method: str = "owl"  # the comparison method as on the command line; --replay re-runs it
    camera: str = "sim"  # the camera perception reads: sim, realsense, recorded:<folder>
    setup: Any = None  # hardware: the setup file's [robot] and [camera] (owl_bt.setup_file.Setup)
    record_frames: Path | None = None  # write every camera frame here (perception.recorded)
    rerun: bool = False  # also log the run in 3D for the rerun viewer: run.rrd in the run folder


def validate(cfg: EpisodeConfig) -> tasks.Task | Scene:
    """Check the configuration before anything is built; raises UsageError (exit 2). With a scene
    file, an empty instruction takes the scene's own."""
    scene = load_scene(cfg.scene, reserved_names()) if cfg.scene is not None else None
    if scene and scene.instruction and not cfg.instruction.strip():
        cfg.instruction = scene.instruction
    if cfg.rerun:
        import importlib.util

        if importlib.util.find_spec("rerun") is None:
            raise UsageError("--rerun needs rerun-sdk: pip install 'owl-bt[rerun]'")
    if not cfg.instruction or not cfg.instruction.strip():
        raise UsageError(
            "the instruction is empty: say what the robot should do, e.g. "
            '"put the strawberry onto the light-grey region", or name a task (--task berry1) to run '
            "its own instruction"
        )
    if len(cfg.instruction) > MAX_INSTRUCTION:
        raise UsageError(
            f"the instruction is {len(cfg.instruction)} characters long; say the goal in at most "
            f"{MAX_INSTRUCTION}"
        )
    if not 0 <= cfg.seed <= MAX_SEED:  # the range `owl-bt bench` accepts too
        raise UsageError(f"--seed must be from 0 to {MAX_SEED}, got {cfg.seed}")
    if not 1 <= cfg.max_attempts <= MAX_ATTEMPTS:
        raise UsageError(f"--max-attempts must be from 1 to {MAX_ATTEMPTS}, got {cfg.max_attempts}")
    if not MIN_SPEED <= cfg.speed <= 1.0:  # (NaN fails it too; 1e-9 ran a motion for ever)
        raise UsageError(
            f"--speed must be a share of the joints' velocity limits from {MIN_SPEED} to 1, got {cfg.speed!r}"
        )
    check_budgets(cfg.budget, cfg.skeletons)
    check_plan_time(cfg.plan_time)
    if cfg.perception not in PERCEPTION_SOURCES:
        raise UsageError(
            f"unknown perception source {cfg.perception!r}; available: {', '.join(PERCEPTION_SOURCES)}"
        )
    camera = parse_camera(cfg.camera)
    if camera.kind != "sim" and cfg.perception == "sim-state":
        raise UsageError(
            f"--perception sim-state reads the simulator, not a camera: leave --camera {camera} out"
        )
    if camera.kind == "recorded" and not camera.folder.is_dir():
        what = "a file, not a folder" if camera.folder.exists() else "no such folder"
        raise UsageError(f"--camera {camera}: {what}")
    rec = cfg.record_frames
    if rec is not None and rec.is_symlink() and not rec.exists():  # (a loop too)
        raise UsageError(f"--record-frames {rec} is a symbolic link to nothing")
    if rec is not None and (
        cfg.perception == "sim-state" or rec.exists() and (not rec.is_dir() or any(rec.iterdir()))
    ):
        why = (
            "sim-state has no camera"
            if cfg.perception == "sim-state"
            else "it exists and is not an empty folder"
        )
        raise UsageError(f"--record-frames {rec}: {why}")
    if rec is not None and cfg.out is not None:
        # the frames written into the run folder while it runs made it 'not empty' at the end:
        # the run went to <out>-2, leaving --out holding only the frames
        frames, run = Path(os.path.realpath(rec)), Path(os.path.realpath(cfg.out))
        if frames == run or run in frames.parents:
            where = "is the run folder" if frames == run else f"is inside the run folder {cfg.out}"
            raise UsageError(f"--record-frames {rec} {where}; give a folder apart from it")
    try:
        cfg.robot = robot_spec(cfg.robot).name
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    if cfg.backend not in BACKENDS:
        raise UsageError(f"unknown backend {cfg.backend!r}; available: {', '.join(BACKENDS)}")
    if cfg.clear_faults and (cfg.backend == "sim" or not cfg.execute):
        raise UsageError(
            "--clear-faults clears a hardware arm's fault when it connects: it needs --backend "
            "kortex or rtde and --execute"
        )
    if cfg.backend == "sim" and cfg.execute:  # refused, never ignored
        raise UsageError(
            "--execute moves a hardware arm (--backend kortex or rtde); the simulated arm always moves: "
            "leave --execute out"
        )
    if cfg.backend == "sim" and cfg.ip:  # refused, never ignored
        raise UsageError(
            f"--ip is the address of a hardware arm (--backend kortex or rtde); the simulated arm has none: "
            f"leave --ip {cfg.ip} out"
        )
    if cfg.backend != "sim":
        if not cfg.ip:
            raise UsageError(f"--backend {cfg.backend} needs the arm's address: --ip ADDRESS")
        check_ip(cfg.ip)
        if cfg.robot not in ROBOTS_OF[cfg.backend]:
            raise UsageError(
                f"--backend {cfg.backend} drives the {ROBOT_OF[cfg.backend]}, not the {cfg.robot}: "
                f"add --robot {ROBOT_OF[cfg.backend]}"
            )
    task = scene or tasks.get(cfg.task)
    asks, _, backend = cfg.vlm.partition(":")[0].rpartition(
        "/"
    )  # ('no-cont', 'oracle') for 'no-cont/oracle'
    if (
        backend == "oracle" and asks in ORACLE_CANNOT
    ):  # a usage error, not a run failing later with "model answer rejected"
        raise UsageError(
            f"--vlm oracle holds each task's plan sketch and checkers; --method {asks} asks the model for "
            f"something else: use --vlm offline or openai with it"
        )
    if (
        backend == "oracle"
        and getattr(task, "instruction", "")
        and not same_words(cfg.instruction, task.instruction)
    ):
        # the oracle knows one goal, the task's: given another it would run the task's own plan and
        # report success
        flag = (
            "--method oracle" if cfg.method == "oracle" else "--vlm oracle"
        )  # (the method sets --vlm oracle)
        # (--method oracle with --vlm offline is refused too: the method sets the VLM)
        own = "leave --method oracle out" if cfg.method == "oracle" else "use --vlm offline"
        raise UsageError(
            f'{flag} answers only the task\'s own instruction ("{task.instruction}"), not this goal; '
            f"leave the goal out to run the task's, or {own} for your own"
        )
    make_vlm(cfg.vlm, (task.oracle_sketch, task.oracle_checkers))
    fault_spec = parse_faults(cfg.faults, cfg.fault_seed)
    if fault_spec and cfg.backend != "sim":
        raise UsageError(
            "--faults injects faults into the simulated arm; it cannot be used with a hardware --backend"
        )
    return task


# a host name (RFC 1123): dot-separated labels of letters, digits and inner hyphens
_HOST_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def check_ip(ip: str) -> None:
    """--ip: an IPv4 address or a host name; else UsageError. A dry run never contacts the arm, so
    an address no connection could use (10.0.0.1:abc, 999.1.1.1, a URL) was accepted there."""
    if re.fullmatch(r"[\d.]+", ip):
        if not _ipv4(ip):  # (999.1.1.1 is no address)
            raise UsageError(
                f"--ip {ip} is not an IPv4 address (four numbers 0-255, e.g. 192.168.1.10)"
            )
        return
    name = ip.removesuffix(".")
    if len(name) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in name.split(".")):
        raise UsageError(
            f"--ip {ip!r} is neither an IPv4 address nor a host name (e.g. 192.168.1.10; the arm's "
            "port is fixed: give no ':PORT')"
        )


def _ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def same_words(a: str, b: str) -> bool:
    """The same instruction up to case, spacing and a final full stop."""

    def norm(t: str) -> str:
        return " ".join(t.lower().split()).rstrip(".")

    return norm(a) == norm(b)


MIN_SPEED = 0.01  # the slowest share of the velocity limits a run may be given
MAX_ATTEMPTS = (
    1000  # attempts a run may be given (a replay refuses a recorded number past it as damage)
)
MAX_BUDGET, MAX_SKELETONS = (
    100_000,
    100,
)  # far above the reference's 500 and 5; what episodes.jsonl can record


def check_plan_time(seconds: float) -> None:
    """--plan-time: from 0.01 seconds to a day; else UsageError (exit 2)."""
    if not 0.01 <= seconds <= 86_400.0:  # (NaN fails it too)
        raise UsageError(f"--plan-time must be from 0.01 to 86400 seconds (a day), got {seconds!r}")


def check_budgets(budget: int, skeletons: int) -> None:
    """--budget in 1..MAX_BUDGET, --skeletons in 1..MAX_SKELETONS; else UsageError (exit 2)."""
    if not 1 <= budget <= MAX_BUDGET:
        raise UsageError(
            f"--budget must be from 1 to {MAX_BUDGET:,} samples per action, got {budget}"
        )
    if not 1 <= skeletons <= MAX_SKELETONS:
        raise UsageError(f"--skeletons must be from 1 to {MAX_SKELETONS}, got {skeletons}")
