"""`owl-bt run`: a goal on the (simulated) arm — perceive → generate constraints → plan → execute
(→ replan) — and its account on the terminal.

Exit codes: 0 success, 1 the task was not done, 2 a usage error, 130 stopped by Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

import typer

from owl_bt.cli import choices
from owl_bt.cli.base import OwlCommand, app, err, print_refusal_json
from owl_bt.cli.base import fail as base_fail
from owl_bt.cli.progress import Progress
from owl_bt.errors import OwlError, UsageError


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
        help="Benchmark scene to run in (see `owl-bt tasks`, `owl-bt tasks --all` for the everyday set; default berry1).",
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
        "attempts, plan time, recorded model answers and injected faults (and its perception source, "
        "arm and recorded camera frames unless given).",
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
    record_frames: str | None = typer.Option(
        None,
        "--record-frames",
        metavar="DIR",
        help="Also write every camera frame (RGB-D, no labels) into this new folder, to replay "
        "with --camera recorded:DIR.",
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
        help="Say the goal in a WAV file (PCM, 8–96 kHz, 1–8 channels, 8- to 32-bit; mixed down and "
        "resampled to what the recogniser needs) instead of typing it.",
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
    clear_faults: bool = typer.Option(
        False,
        "--clear-faults",
        help="Hardware --execute: clear the arm's fault (Kortex ClearFaults) or unlock its protective "
        "stop (UR) when it connects; without it a faulted arm is refused. Look at the scene first.",
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
    from owl_bt.cli.run_config import (
        RunOptions,
        episode_config,
    )  # (owl_bt.episode takes seconds to import)
    from owl_bt.runfolder import extra_files

    started = time.monotonic()
    opts = RunOptions(
        instruction=instruction,
        task=task,
        scene=scene,
        seed=seed,
        out_dir=out_dir,
        as_json=as_json,
        gui=gui,
        vlm=vlm,
        replay=replay,
        method=method,
        perception=perception,
        camera=camera,
        max_attempts=max_attempts,
        budget=budget,
        skeletons=skeletons,
        plan_time=plan_time,
        quiet=quiet,
        audio=audio,
        listen=listen,
        asr=asr,
        interactive=interactive,
        robot=robot,
        speed=speed,
        backend=backend,
        ip=ip,
        execute=execute,
        clear_faults=clear_faults,
        faults=faults,
        fault_seed=fault_seed,
        rerun=rerun,
        verbose=verbose,
        record_frames=record_frames,
    )
    plan = episode_config(opts, fail, _confirm_first_motion)
    cfg, task, scene = plan.cfg, plan.task, plan.scene
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

        with extra_files(plan.extras), progress or contextlib.nullcontext():
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
    from owl_bt.cli.run_account import present

    code, program = present(result, cfg, plan.instruction, as_json, verbose, setup.seconds)
    if program or any(
        t.name == "owl-replan-prompt" and t.is_alive() for t in threading.enumerate()
    ):
        # the run folder is written and the output flushed; leave without the interpreter's shutdown: it
        # takes a fifth of a second in which a signal would end the process as 143 (Python drops its
        # handlers), and it would abort on the stdin lock a feedback prompt still blocked reading holds
        sys.stderr.flush()
        os._exit(code)
    raise typer.Exit(code)


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
    a caller reading --json (a usage error never leaves stdout empty)."""
    print_refusal_json(exc.reason, exc.exit_code)
    return base_fail(exc)
