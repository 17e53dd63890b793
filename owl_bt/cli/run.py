"""`owl-bt run`: a goal on the (simulated) arm — perceive → generate constraints → plan → execute
(→ replan) — and its account on the terminal.

Exit codes: 0 success, 1 the task was not done, 2 a usage error, 130 stopped by Ctrl-C."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time

import typer
from rich.syntax import Syntax

from owl_bt.cli import choices
from owl_bt.cli.base import OwlCommand, app, err, out, print_refusal_json
from owl_bt.cli.base import fail as base_fail
from owl_bt.cli.display import check_display
from owl_bt.cli.inputs import SCENE_MAX_BYTES, check_regular_file, file_option, out_path
from owl_bt.cli.progress import Progress
from owl_bt.cli.replay import replayed
from owl_bt.errors import OwlError, UsageError
from owl_bt.language.checker_names import called_helpers, count_line, split_checkers
from owl_bt.plain_text import plain_line
from owl_bt.report.console import LOST, lose_stdout_quietly


@app.command(cls=OwlCommand)
def run(
    instruction: str = typer.Argument(
        "",
        metavar="GOAL",
        help='The goal in plain words, e.g. "put the strawberry onto the light-grey region" '
        "(leave out with --audio or --listen; left out with --task, the task's own instruction).",
    ),
    task: str | None = typer.Option(
        None,
        "--task",
        "-t",
        metavar="TASK",
        help="Benchmark scene to run in (see `owl-bt tasks`; default berry1).",
    ),
    scene: str | None = typer.Option(
        None,
        "--scene",
        metavar="FILE",
        help="Your own scene, a TOML file (see examples/fruit_bowl.toml).",
    ),
    seed: int = typer.Option(
        0,
        "--seed",
        "-s",
        help="Seed for the scene's random placements and the samplers (0 to 10^12, as bench's seeds).",
    ),
    out_dir: str | None = typer.Option(
        None, "--out", "-o", metavar="DIR", help="Run folder (default runs/<time>-<slug>/)."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object with the result on stdout (the account on stderr)."
    ),
    gui: bool = typer.Option(
        False, "--gui", help="Show the pybullet GUI and run in real time (needs a display)."
    ),
    vlm: choices.Vlm | None = typer.Option(
        None,
        "--vlm",
        case_sensitive=False,
        show_default=False,
        help="Constraint generator: offline (default, no network), openai (an OpenAI-compatible endpoint: "
        "OPENAI_BASE_URL, OPENAI_API_KEY, OWL_BT_VLM_MODEL or owl-bt.toml), replay (see --replay) or oracle (the task's "
        "hand-written answers to its own goal; another goal is refused).",
    ),
    replay: str | None = typer.Option(
        None,
        "--replay",
        metavar="RUN_DIR",
        help="Re-run a past run folder exactly: its instruction, task, seed, method, budget, skeletons, "
        "attempts, plan time, recorded model answers and injected faults (and its perception source and arm unless given).",
    ),
    method: choices.Method = typer.Option(
        "owl",
        "--method",
        "-m",
        case_sensitive=False,
        help="A comparison method instead of the full one (owl): no-disc, no-cont, no-back, "
        "no-sample, direct, cap, cap-sample or oracle; see docs/benchmark.md.",
    ),
    perception: choices.Perception | None = typer.Option(
        None,
        "--perception",
        case_sensitive=False,
        help="Where the world state comes from: camera (RGB-D head camera → point cloud → objects; default), "
        "camera-unlabelled (the same RGB-D without the simulator's masks or labels: objects found and "
        "named from geometry and colour, as on a real camera) or sim-state (the simulator's ground "
        "truth, for debugging); with --replay, the recorded one.",
    ),
    camera: str | None = typer.Option(
        None,
        "--camera",
        metavar="SOURCE",
        help="The camera perception reads: sim (default), realsense, or recorded:<folder> "
        "(frames written by `owl-bt record`).",
    ),
    max_attempts: int = typer.Option(
        4,
        "--max-attempts",
        help="Attempts (perceive→plan→execute rounds) before giving up: the first and up to 3 replans.",
    ),
    budget: int = typer.Option(
        500,
        "--budget",
        help="Continuous samples drawn per action before the step gives up (the "
        "reference method uses 500).",
    ),
    skeletons: int = typer.Option(
        5,
        "--skeletons",
        help="Skeletons (task plans) tried per planning round (the reference method uses 5).",
    ),
    plan_time: float = typer.Option(
        900.0,
        "--plan-time",
        metavar="SECONDS",
        help="Wall-clock seconds one planning round may take (all its skeletons); past it "
        "the run ends failed rather than replan.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines on stderr."),
    audio: str | None = typer.Option(
        None,
        "--audio",
        metavar="WAV",
        help="Say the goal in a WAV file (PCM, 8–96 kHz, mono or stereo; resampled to what the "
        "recogniser needs) instead of typing it.",
    ),
    listen: bool = typer.Option(
        False, "--listen", help="Say the goal into the microphone (stops when you stop speaking)."
    ),
    asr: choices.Recogniser = typer.Option(
        "sphinx",
        "--asr",
        case_sensitive=False,
        help="Speech recogniser: sphinx (offline, default) or openai (OPENAI_API_KEY, OPENAI_BASE_URL, OWL_BT_ASR_MODEL).",
    ),
    interactive: bool = typer.Option(
        False,
        "--interactive",
        "-i",
        help="Confirm (or correct) a spoken goal before planning, "
        "and add a line of feedback for the next attempt at each replan.",
    ),
    robot: choices.Robot | None = typer.Option(
        None,
        "--robot",
        case_sensitive=False,
        help="The arm: ur5e (also ur5, ur) or kinova-gen3 (also gen3, kinova); default ur5e, or the arm of --backend.",
    ),
    speed: float | None = typer.Option(
        None,
        "--speed",
        metavar="SHARE",  # checked by EpisodeConfig
        help="Share of the joints' velocity limits the safety guard allows, "
        "0.01–1 (default 1 in simulation, 0.25 on hardware).",
    ),
    backend: choices.ArmBackend = typer.Option(
        "sim",
        "--backend",
        case_sensitive=False,
        help="Arm backend: sim (default), kortex (Kinova Gen3) or rtde (UR5).",
    ),
    ip: str | None = typer.Option(
        None, "--ip", metavar="ADDRESS", help="The hardware arm's address (kortex, rtde)."
    ),
    execute: bool = typer.Option(
        False,
        "--execute/--dry-run",
        help="Hardware: really move the arm, after confirming the "
        "first motion (default --dry-run: plan, check and show; the arm is never contacted).",
    ),
    faults: str | None = typer.Option(
        None,
        "--faults",
        metavar="KIND=RATE,…",
        help="Inject faults in simulation, KIND=RATE pairs: grasp-slip (per "
        "transport), knock (per step), miss-detect (per observation), arm-fault (per step), "
        "knock-off (per step: off the table); e.g. grasp-slip=0.2,knock=0.1.",
    ),
    fault_seed: int | None = typer.Option(
        None,
        "--fault-seed",
        help="Seed of the injected faults, with --faults (and --seed); default 0.",
    ),
    rerun: bool = typer.Option(
        False,
        "--rerun",
        help="Also log the run in 3D for the rerun viewer: run.rrd in the run folder (point clouds, "
        "object boxes, planned and executed tool paths, the tree over time), and live to a viewer "
        "already listening (start `rerun` first; OWL_BT_RERUN_URL for another address). Needs "
        "rerun-sdk (pip install 'owl-bt[rerun]').",
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Also print the helper functions the checkers call (default: only the checkers).",
    ),
) -> None:
    """Run a goal on the arm (simulated unless --backend): perceive → generate constraints → plan → execute (→ replan)."""
    fail = (
        _json_fail if as_json else base_fail
    )  # with --json a refused run is a JSON object on stdout too
    from owl_bt.episode_config import (
        EpisodeConfig,
        validate,
    )  # (owl_bt.episode takes seconds to import)
    from owl_bt.runfolder import check_run_folder, extra_files

    started = time.monotonic()
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
    ):  # break-it: --method oracle --vlm offline ran the oracle, unsaid
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
    if (
        not instruction.strip() and task is not None and replay is None
    ):  # `run "" --task berry1`: the task's own goal
        from sim import tasks as sim_tasks

        try:
            named = sim_tasks.get(task)
        except OwlError as exc:
            raise fail(exc) from None
        instruction = named.instruction
        err.print(
            f'owl-bt: no goal given; using the {named.name} task\'s instruction: "{instruction}"',
            markup=False,
            soft_wrap=True,
        )
    elif (
        not instruction.strip() and scene is not None and replay is None and scene.is_file()
    ):  # as for a task (newcomer)
        from owl_bt.language.sandbox import reserved_names
        from sim.scene_file import load_scene

        try:
            said = load_scene(scene, reserved_names()).instruction
        except OwlError:
            said = ""  # the scene's own refusal comes, as it would, when the run loads it
        if said:
            err.print(
                f'owl-bt: no goal given; using the scene file\'s instruction: "{said}"',
                markup=False,
                soft_wrap=True,
            )
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
            )
            instruction, task, seed, vlm = rec.instruction, rec.task, rec.seed, rec.vlm
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
            speed=(1.0 if backend == "sim" else 0.25) if speed is None else speed,
            confirm=_confirm_first_motion,
            faults=faults,
            fault_seed=fault_seed or 0,
            camera=camera or "sim",
            setup=setup,
            rerun=rerun,
        )
        from owl_bt.bench import methods

        cfg = methods.get(method).apply(cfg)
        validate(cfg)  # a usage error in a second, before the planner's imports and the scene
        if cfg.out is not None:
            check_run_folder(
                cfg.out
            )  # (break-it: an occupied --out was refused after the planner loaded)
    except OwlError as exc:
        raise fail(exc) from None
    progress = _live_or_lines(quiet)
    if interactive:
        cfg.ask = _ask_feedback(progress)
    setup = _SetUpClock(progress, started)
    if progress is not None:  # seconds pass before the first tick: say what they are spent on
        err.print(
            f"[dim]{'setup':<22}[/] running — loading the planner and building the "
            f"{cfg.task if scene is None else os.path.basename(str(scene))} scene (seed {cfg.seed}), the {cfg.robot} and its "
            f"{cfg.perception} perception"
            + (
                f"; a dry run: the {cfg.robot} at {cfg.ip} is not contacted (--execute moves it)"
                if cfg.backend != "sim" and not cfg.execute
                else ""
            ),
            soft_wrap=True,
        )
    try:
        from owl_bt.episode import run_episode

        with extra_files(extras), progress or contextlib.nullcontext():
            result = run_episode(cfg, on_tick=setup)
    except OwlError as exc:
        if (
            isinstance(exc, UsageError)
            and task is None
            and scene is None
            and exc.reason.startswith("there is no ")
        ):
            # the default scene, unsaid: say which one it was
            exc = UsageError(
                f"{exc.reason} (the berry1 task's scene, the default: choose one with --task or --scene; "
                "`owl-bt tasks` lists them)"
            )
        raise fail(exc) from None
    view = err if as_json else out  # with --json, stdout carries the JSON object only
    LOST.stdout_ok = (
        True  # the task has ended: a reader of stdout gone now costs the account, not the exit code
    )
    last = (
        f" (attempt {result.attempts}, the last)" if result.attempts > 1 else ""
    )  # break-it: attempts were unlabelled
    sketch_from = _from_attempt(result.sketch_attempt, result.attempts, "made no constraints")
    view.rule(f"plan sketch{sketch_from or last}")
    view.print(result.sketch or "(none)", markup=False)
    view.rule(f"checkers{sketch_from or last}")
    helpers, called = split_checkers(result.checkers)[1], called_helpers(result.checkers)
    view.print(
        count_line(
            result.checkers,
            name_helpers=True,
            note="--verbose prints them" if called and not verbose else "",
        ),
        markup=False,
        soft_wrap=True,
    )
    for name, src in result.checkers.items():
        if name not in helpers or (
            verbose and name in called
        ):  # a helper nothing calls is not printed
            # to a file or a pipe, the code as it is: Syntax cut lines at the console's width (newcomer)
            view.print(
                Syntax(src, "python", theme="ansi_dark", word_wrap=True)
                if view.is_terminal
                else src.rstrip("\n"),
                markup=False,
                highlight=False,
                soft_wrap=not view.is_terminal,
            )
    if (
        result.plan_was_done
    ):  # the last attempt found its goal held: what is listed is what the attempts executed
        view.rule(
            f"steps executed over the {result.attempts} attempts (the last found the goal already done)"
        )
    else:  # break-it: a last attempt that failed before planning was shown an earlier attempt's plan as its own
        view.rule(
            f"grounded plan{_from_attempt(result.plan_attempt, result.attempts, 'found no plan') or last}"
        )
    for i, a in enumerate(result.plan, 1):
        view.print(f"{i}. {a}", markup=False)
    if (
        not result.plan and not result.plan_was_done
    ):  # newcomer: an empty heading after a planning failure
        view.print(
            "(none: no plan was found)" if not result.success else "(none: nothing to do)",
            markup=False,
        )
    if result.history:
        view.rule("replanning")
        for line in result.history:
            view.print(line, markup=False)
    view.rule("final tree")
    view.print(result.tree_text, markup=False)
    if re.search(r"\b(left|right|behind|front)\b", f"{instruction} {result.sketch}", re.IGNORECASE):
        from owl_bt.report.writer import (
            DIRECTIONS,
        )  # the pictures show the robot's left on their right

        view.print(DIRECTIONS, markup=False, soft_wrap=True)
    if (
        cfg.backend != "sim" and not cfg.execute
    ):  # (say so last too: the account above reads like a real run)
        view.print(
            f"dry run: planned, checked and executed in simulation only; the {cfg.robot} at {cfg.ip} was not "
            "contacted or moved (add --execute to move it)",
            markup=False,
            soft_wrap=True,
        )
    view.print(f"detector: {result.detector_reason}", markup=False)
    if result.success and not result.executed:
        view.print("nothing was moved: the goal already held in the observed scene", markup=False)
    if result.holding and not result.success:
        view.print(
            f"the arm still holds the {result.holding.replace('_', ' ')}: take it from the gripper (or say where "
            "it goes) before the next run",
            markup=False,
        )
    view.print(
        f"attempts: {result.attempts}  continuous samples drawn: {result.samples}  wall: {result.wall_s:.1f} s "
        f"(after {setup.seconds:.1f} s of set-up)  "
        f"tick rate: {result.tick_hz:.0f} Hz ({result.tick.get('busy_hz', 0):.0f} Hz while working)",
        markup=False,
    )
    view.print(f"run folder: {result.run_dir}", markup=False, soft_wrap=True)
    if (
        result.replay_divergences
    ):  # (break-it: a hand-edited folder replayed silently and claimed success)
        n = result.replay_divergences
        err.print(
            f"owl-bt: not an exact replay: {n} recorded answer{'s' if n > 1 else ''} went to prompts the recording "
            "does not have (the run folder was edited, or the code has changed since)",
            markup=False,
            soft_wrap=True,
        )
    program, late = _no_more_stops(
        result
    )  # a signal while the folder was written or the account printed
    if late:
        done = "the task was done" if result.success else "the task was not done"
        err.print(
            f"owl-bt: stopped by {result.stopped_by} after the run had ended ({done}); its folder is complete: "
            f"{result.run_dir}",
            markup=False,
            soft_wrap=True,
        )
    elif result.interrupted:
        done = (
            " after the task was done" if result.success else ""
        )  # a late signal: the task's state stands
        err.print(
            f"owl-bt: stopped by {result.stopped_by or 'Ctrl-C'}{done}; the arm was stopped first",
            markup=False,
        )
    elif not result.success:
        why = (
            result.detector_reason
            if not result.failure
            else f"{result.failure} (the robot's own account; the task's detector says: {result.detector_reason})"
            if result.judged
            else result.failure
        )
        err.print(f"owl-bt: task not done: {why}", markup=False, soft_wrap=True)
    try:
        if as_json:
            print(json.dumps(result.summary()))
        else:
            print(f"success: {'true' if result.success else 'false'}")
        sys.stdout.flush()
    except (
        BrokenPipeError
    ):  # `run … | head -1`: the reader took what it wanted; the task's exit code stands
        lose_stdout_quietly()
    code = (
        130 if result.interrupted else (0 if result.success else 1)
    )  # a signal always ends in 130
    if program or any(
        t.name == "owl-replan-prompt" and t.is_alive() for t in threading.enumerate()
    ):
        # the run folder is written and the output flushed; leave without the interpreter's shutdown: it
        # takes a fifth of a second in which a signal would end the process as 143 (Python drops its
        # handlers), and it would abort on the stdin lock a feedback prompt still blocked reading holds
        sys.stderr.flush()
        os._exit(code)
    raise typer.Exit(code)


def _from_attempt(made_in: int | None, attempts: int, none: str) -> str:
    """A heading's note when what it shows came from an earlier attempt than the last: '' otherwise."""
    if made_in is None or made_in >= attempts:
        return ""
    return f" (from attempt {made_in}; attempt {attempts}, the last, {none})"


def _no_more_stops(result) -> tuple[bool, bool]:
    """The run's account is printed; (whether this is the `owl-bt` program rather than a test's CliRunner,
    whether a signal came after the tree had ended). Such a signal was held back until now by `owl_bt.cli`
    (`owl_bt.stops.LATE_STOP`); `result` is then marked stopped by it. In the program, a signal from here on is
    ignored: only the last line and the exit are left."""
    import signal

    from owl_bt import cli
    from owl_bt.episode import note_late_stop

    program = signal.getsignal(signal.SIGTERM) is cli._stopped_starting_up
    if program:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
    note_late_stop(result)
    return program, result.stopped_late


def _confirm_first_motion(traj) -> bool:
    """Show the first motion's targets and ask on the terminal; no terminal means no."""
    err.print(
        f"first motion: {len(traj.waypoints)} waypoints over {traj.times[-1]:.1f} s, ending at joints (rad) "
        f"{', '.join(f'{v:.3f}' for v in traj.waypoints[-1])}",
        markup=False,
        soft_wrap=True,
    )
    if not sys.stdin.isatty():
        err.print(
            "owl-bt: not confirmed (no terminal to ask on); nothing was sent to the arm",
            markup=False,
        )
        return False
    return typer.confirm("Send this and the rest of the plan to the arm?", default=False, err=True)


def _ask_feedback(progress):
    """The replan prompt of --interactive: shows the failure line and reads one line from the person
    (the live display pauses while they type); called from a thread while the tree keeps ticking."""

    def ask(question: str) -> str:
        with progress.paused() if progress is not None else contextlib.nullcontext():
            return err.input(question, markup=False)

    return ask


class _SetUpClock:
    """Passes each tick on to `progress` and keeps the seconds from `started` to the first
    tick (imports, the scene, the robot, the camera, the skills: what the run's wall clock leaves out)."""

    def __init__(self, progress, started: float) -> None:
        self.progress = progress
        self._t0 = started  # time.monotonic() when the command began
        self.seconds = 0.0

    def __call__(self, root) -> None:
        if not self.seconds:
            self.seconds = time.monotonic() - self._t0
        if self.progress is not None:
            self.progress(root)


def _live_or_lines(quiet: bool):
    """The live tree (rich) when stderr is a terminal, else the progress lines; None when quiet."""
    if quiet:
        return None
    if err.is_terminal:
        from owl_bt.report.live import LiveTree

        return LiveTree(err)
    return Progress()


def _json_fail(exc: OwlError) -> typer.Exit:
    """As `base.fail`, and one JSON object on stdout ({"success": false, "error": reason, "exit_code": code}) for
    a caller reading --json (break-it: a usage error with --json left stdout empty)."""
    print_refusal_json(exc.reason, exc.exit_code)
    return base_fail(exc)
