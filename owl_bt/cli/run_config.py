"""`owl-bt run`, from the command line to the episode: the options as given (`RunOptions`) are
checked and resolved — the goal from a task, a scene file, a WAV file or the microphone, a past run
to replay, the robot setup file for hardware — into the `EpisodeConfig` to run (`RunPlan`).

Every refusal is one usage-error line (exit 2) before anything is built or written; with --json also
one JSON object on stdout (the `fail` the command hands in).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from owl_bt.cli import choices
from owl_bt.cli.base import err
from owl_bt.cli.display import check_display
from owl_bt.cli.inputs import SCENE_MAX_BYTES, check_regular_file, file_option, out_path
from owl_bt.cli.replay import replayed
from owl_bt.episode_config import EpisodeConfig, validate
from owl_bt.errors import OwlError, UsageError
from owl_bt.plain_text import plain_line
from owl_bt.runfolder import check_run_folder


@dataclass(frozen=True)
class RunOptions:
    """The options of `owl-bt run` as typed (typer has parsed them; nothing else is checked yet)."""

    instruction: str
    task: str | None
    scene: str | None
    seed: int
    out_dir: str | None
    as_json: bool
    gui: bool
    vlm: choices.Vlm | None
    replay: str | None
    method: choices.Method
    perception: choices.Perception | None
    camera: str | None
    max_attempts: int
    budget: int
    skeletons: int
    plan_time: float
    quiet: bool
    audio: str | None
    listen: bool
    asr: choices.Recogniser
    interactive: bool
    robot: choices.Robot | None
    speed: float | None
    backend: choices.ArmBackend
    ip: str | None
    execute: bool
    faults: str | None
    fault_seed: int | None
    rerun: bool
    verbose: bool
    record_frames: str | None = None
    clear_faults: bool = False


@dataclass
class RunPlan:
    """What the options came to: the episode's configuration; the goal as resolved (a task's own or
    the recorded one; '' when a scene file's own is taken, which `validate` put into `cfg`); the task
    (None: the default scene, unsaid) and scene file given or replayed; files to add to the run folder
    (a spoken goal's recording)."""

    cfg: EpisodeConfig
    instruction: str
    task: str | None
    scene: Path | None
    extras: dict[str, Any]


def episode_config(
    opts: RunOptions,
    fail: Callable[[OwlError], typer.Exit],
    confirm: Callable[[Any], bool],
) -> RunPlan:
    """The RunPlan for `opts`; raises `fail(error)` (typer.Exit) on the first problem. `confirm`
    asks before a hardware arm's first motion."""
    (
        instruction,
        task,
        scene,
        seed,
        out_dir,
        gui,
        vlm,
        replay,
        method,
        perception,
        camera,
        max_attempts,
        budget,
        skeletons,
        plan_time,
        audio,
        listen,
        asr,
        interactive,
        robot,
        speed,
        backend,
        ip,
        execute,
        faults,
        fault_seed,
        rerun,
    ) = (
        opts.instruction,
        opts.task,
        opts.scene,
        opts.seed,
        opts.out_dir,
        opts.gui,
        opts.vlm,
        opts.replay,
        opts.method,
        opts.perception,
        opts.camera,
        opts.max_attempts,
        opts.budget,
        opts.skeletons,
        opts.plan_time,
        opts.audio,
        opts.listen,
        opts.asr,
        opts.interactive,
        opts.robot,
        opts.speed,
        opts.backend,
        opts.ip,
        opts.execute,
        opts.faults,
        opts.fault_seed,
        opts.rerun,
    )
    try:
        out_folder = out_path(out_dir, "runs/mine/")
        scene, replay, audio = (
            file_option(scene, "--scene"),
            file_option(replay, "--replay"),
            file_option(audio, "--audio"),
        )
        if task is not None and not task.strip():  # `--task ""` ran berry1
            raise UsageError(
                "--task is empty; give one of the tasks `owl-bt tasks` lists, e.g. --task berry1"
            )
    except OwlError as exc:
        raise fail(exc) from None
    if scene is not None and task is not None:
        raise fail(UsageError("--scene and --task are mutually exclusive: give one or the other"))
    if method == "oracle" and vlm not in (
        None,
        "oracle",
    ):  # the oracle method answers only as the oracle: another --vlm is refused, not ignored
        raise fail(
            UsageError(
                f"--method oracle answers with each task's hand-written sketch and checkers, not a model: "
                f"it cannot be combined with --vlm {vlm}; leave --vlm out"
            )
        )
    given_vlm, vlm = vlm, vlm or "offline"
    try:
        if scene is not None:
            check_regular_file(scene, "the scene file", SCENE_MAX_BYTES)
    except OwlError as exc:
        raise fail(exc) from None
    if fault_seed is not None and faults is None and replay is None:
        raise fail(
            UsageError(
                "--fault-seed seeds the injected faults and there are none: add --faults KIND=RATE,… "
                "(e.g. --faults knock=0.1) or leave --fault-seed out"
            )
        )
    if gui:
        try:
            check_display()  # before any folder is made: pybullet would end the process from C without one
        except OwlError as exc:
            raise fail(exc) from None
    extras: dict = {}
    from owl_bt.speech.asr import check_backend

    try:
        check_backend(asr)  # --asr is checked even without --audio/--listen
    except OwlError as exc:
        raise fail(exc) from None
    if audio is not None or listen:
        from owl_bt.speech.cli import hear_goal

        try:
            instruction, extras = hear_goal(
                instruction, audio, listen, asr, task, scene, seed, interactive, err
            )
        except OwlError as exc:
            raise fail(exc) from None
    instruction = plain_line(
        instruction, limit=None
    )  # a pasted colour code or NUL is not part of the goal
    notice = ""  # printed once the options are known to be good (a usage error is one line)
    if (
        not instruction.strip() and task is not None and replay is None
    ):  # `run "" --task berry1`: the task's own goal
        from sim import tasks as sim_tasks

        try:
            named = sim_tasks.get(task)
        except OwlError as exc:
            raise fail(exc) from None
        instruction = named.instruction
        notice = (
            f'owl-bt: no goal given; using the {named.name} task\'s instruction: "{instruction}"'
        )
    elif (
        not instruction.strip() and scene is not None and replay is None and scene.is_file()
    ):  # as for a task
        from owl_bt.language.sandbox import reserved_names
        from sim.scene_file import load_scene

        try:
            said = load_scene(scene, reserved_names()).instruction
        except OwlError:
            said = ""  # the scene's own refusal comes, as it would, when the run loads it
        if said:
            notice = f'owl-bt: no goal given; using the scene file\'s instruction: "{said}"'
    if instruction.strip() and not re.search(
        r"[^\W\d_]", instruction
    ):  # only emoji, digits or punctuation
        raise fail(
            UsageError(
                f"the goal has no words ({instruction.strip()[:40]!r}); say what the robot should do, e.g. "
                '"put the strawberry onto the light-grey region"'
            )
        )
    try:
        if replay is not None:
            rec = replayed(
                replay,
                instruction,
                task,
                scene,
                given_vlm or "replay",
                faults,
                fault_seed,
                seed,
                method,
                camera_given=camera is not None,
            )
            instruction, task, seed, vlm = rec.instruction, rec.task, rec.seed, rec.vlm
            camera = camera or rec.camera
            faults, fault_seed = rec.faults, rec.fault_seed  # the same faults at the same draws
            perception, robot = perception or rec.perception, robot or rec.robot
            method = rec.method if method == "owl" else method
            limits = rec.settings(
                {
                    "budget": budget,
                    "skeletons": skeletons,
                    "max_attempts": max_attempts,
                    "plan_time": plan_time,
                },
                {
                    k: getattr(EpisodeConfig, k)
                    for k in ("budget", "skeletons", "max_attempts", "plan_time")
                },
            )
            budget, skeletons, max_attempts = (
                limits["budget"],
                limits["skeletons"],
                limits["max_attempts"],
            )
            plan_time = limits["plan_time"]
        setup = None
        if backend != "sim":  # the real cell's arm and camera (owl_bt/setup_file.py)
            from owl_bt.setup_file import load_setup

            setup = load_setup()
            if setup.robot is not None:
                if setup.robot.backend != backend:
                    raise UsageError(
                        f"setup file {setup.path}: [robot] model {setup.robot.model} is driven by "
                        f"--backend {setup.robot.backend}, not {backend}"
                    )
                ip = ip or setup.robot.ip
                robot = robot or setup.robot.model
                speed = setup.robot.speed_scaling if speed is None else speed
            if setup.camera is not None and camera is None:
                camera = setup.camera.source
        cfg = EpisodeConfig(
            instruction,
            task or "berry1",
            seed,
            out_folder,
            gui,
            vlm,
            perception or "camera",
            max_attempts,
            budget,
            scene=scene,
            skeletons=skeletons,
            plan_time=plan_time,
            robot=robot or {"kortex": "kinova-gen3"}.get(backend, "ur5e"),
            backend=backend,
            ip=ip,
            execute=execute,
            clear_faults=opts.clear_faults,
            speed=(1.0 if backend == "sim" else 0.25) if speed is None else speed,
            confirm=confirm,
            faults=faults,
            fault_seed=fault_seed or 0,
            camera=camera or "sim",
            setup=setup,
            rerun=rerun,
            record_frames=file_option(opts.record_frames, "--record-frames"),
        )
        from owl_bt.bench import methods

        cfg = methods.get(method).apply(cfg)
        validate(cfg)  # a usage error in a second, before the planner's imports and the scene
        if cfg.out is not None:
            check_run_folder(
                cfg.out
            )  # (before the planner loads: an occupied --out is refused at once)
    except OwlError as exc:
        raise fail(exc) from None
    if notice:
        err.print(notice, markup=False, soft_wrap=True)
    return RunPlan(cfg, instruction, task, scene, extras)
