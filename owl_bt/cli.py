"""The `owl-bt` command line: run a goal in simulation, list the tasks, run the benchmark.

Exit codes: 0 success, 1 the robot could not do it, 2 usage error. Errors are one line on stderr.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.syntax import Syntax

from owl_bt.errors import OwlError, UsageError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help=(
        "owl-bt: tell a robot arm what to do in plain words; it plans with generated constraints and a "
        "task-and-motion planner, and a behaviour tree runs it.\n\n"
        "Try:  owl-bt tasks    then    owl-bt run \"put the strawberry onto the light-grey region at the "
        "center of the table\" --task berry1 --seed 0"
    ),
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def _fail(exc: OwlError) -> typer.Exit:
    err.print(f"owl-bt: {exc.reason}", markup=False, soft_wrap=True)
    return typer.Exit(exc.exit_code)


@app.command()
def run(
    instruction: str = typer.Argument("", help="The goal in plain words, e.g. \"put the strawberry onto the light-grey region\" "
                                      "(leave out with --audio or --listen)."),
    task: str | None = typer.Option(None, "--task", "-t", help="Benchmark scene to run in (see `owl-bt tasks`; default berry1)."),
    scene: Path | None = typer.Option(None, "--scene", help="Your own scene, a TOML file (see examples/fruit_bowl.toml)."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed for the scene's random placements and the samplers (≥ 0)."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Run folder (default runs/<time>-<slug>/)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object with the result on stdout (the account on stderr)."),
    gui: bool = typer.Option(False, "--gui", help="Show the pybullet GUI and run in real time (needs a display)."),
    vlm: str = typer.Option(
        "offline", "--vlm", help="Constraint generator: offline (default, no network), openai (an OpenAI-compatible endpoint: "
        "OPENAI_BASE_URL, OPENAI_API_KEY, OWL_BT_VLM_MODEL or owl-bt.toml), replay (see --replay) or oracle (the task's "
        "hand-written answers)."
    ),
    replay: Path | None = typer.Option(
        None, "--replay", help="Re-run a past run folder exactly: its instruction, task and seed, and its recorded model answers."
    ),
    method: str = typer.Option("owl", "--method", "-m", help="Comparison method (SPEC §8.1), e.g. no-cont, no-back, direct."),
    perception: str = typer.Option(
        "camera", "--perception",
        help="Where the world state comes from: camera (RGB-D head camera → point cloud → objects; default) or sim-state "
             "(the simulator's ground truth, for debugging)."),
    max_attempts: int = typer.Option(
        4, "--max-attempts", help="Attempts (perceive→plan→execute rounds) before giving up: the first and up to 3 replans."),
    budget: int = typer.Option(500, "--budget", help="Continuous samples per action (SPEC §5: 500)."),
    skeletons: int = typer.Option(5, "--skeletons", help="Skeletons tried per planning round (SPEC §5: 5)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines on stderr."),
    audio: Path | None = typer.Option(None, "--audio",
                                      help="Say the goal in a WAV file (16 kHz mono 16-bit) instead of typing it."),
    listen: bool = typer.Option(False, "--listen", help="Say the goal into the microphone (stops when you stop speaking)."),
    asr: str = typer.Option("sphinx", "--asr", help="Speech recogniser: sphinx (offline, default) or openai "
                            "(OPENAI_API_KEY, OPENAI_BASE_URL, OWL_BT_ASR_MODEL)."),
    interactive: bool = typer.Option(False, "--interactive", "-i", help="Confirm (or correct) a spoken goal before planning."),
    robot: str | None = typer.Option(None, "--robot", help="The arm: ur5e (alias ur5) or kinova-gen3 (default: ur5e, or the "
                                     "arm of --backend)."),
    speed: float | None = typer.Option(None, "--speed", help="Share of the joints' velocity limits the safety guard allows, "
                                       "(0, 1] (default 1 in simulation, 0.25 on hardware)."),
    backend: str = typer.Option("sim", "--backend", help="Arm backend: sim (default), kortex (Kinova Gen3) or rtde (UR5)."),
    ip: str | None = typer.Option(None, "--ip", help="The hardware arm's address (kortex, rtde)."),
    execute: bool = typer.Option(False, "--execute/--dry-run", help="Hardware: really move the arm, after confirming the "
                                 "first motion (default --dry-run: plan, check and show; the arm is never contacted)."),
) -> None:
    """Run a goal on the simulated arm: perceive → generate constraints → plan → execute (→ replan)."""
    from owl_bt.episode import EpisodeConfig, run_episode
    from owl_bt.runfolder import extra_files

    if scene is not None and task is not None:
        raise _fail(UsageError("--scene and --task are mutually exclusive: give one or the other"))
    extras: dict = {}
    from owl_bt.speech.asr import check_backend

    try:
        check_backend(asr)  # --asr is checked even without --audio/--listen
    except OwlError as exc:
        raise _fail(exc) from None
    if audio is not None or listen:
        from owl_bt.speech.cli import hear_goal

        try:
            instruction, extras = hear_goal(instruction, audio, listen, asr, task, scene, seed, interactive, err)
        except OwlError as exc:
            raise _fail(exc) from None
    try:
        if replay is not None:
            instruction, task, seed, vlm, recorded_method = _replayed(replay, instruction, task, scene, vlm)
            method = recorded_method if method == "owl" else method
        cfg = EpisodeConfig(instruction, task or "berry1", seed, out_dir, gui, vlm, perception, max_attempts, budget,
                            scene=scene, skeletons=skeletons, robot=robot or {"kortex": "kinova-gen3"}.get(backend, "ur5e"),
                            backend=backend, ip=ip, execute=execute,
                            speed=(1.0 if backend == "sim" else 0.25) if speed is None else speed, confirm=_confirm_first_motion)
        from owl_bt.bench import methods

        cfg = methods.get(method).configure(cfg)
    except OwlError as exc:
        raise _fail(exc) from None
    progress = _live_or_lines(quiet)
    try:
        with extra_files(extras), progress or contextlib.nullcontext():
            result = run_episode(cfg, on_tick=progress)
    except OwlError as exc:
        raise _fail(exc) from None
    view = err if as_json else out  # with --json, stdout carries the JSON object only
    view.rule("plan sketch")
    view.print(result.sketch or "(none)", markup=False)
    view.rule("checkers")
    for src in result.checkers.values():
        view.print(Syntax(src, "python", theme="ansi_dark", word_wrap=True))
    view.rule("grounded plan")
    for i, a in enumerate(result.plan, 1):
        view.print(f"{i}. {a}", markup=False)
    if result.history:
        view.rule("replanning")
        for line in result.history:
            view.print(line, markup=False)
    view.rule("final tree")
    view.print(result.tree_text, markup=False)
    view.print(f"detector: {result.detector_reason}", markup=False)
    view.print(f"attempts: {result.attempts}  samples: {result.samples}  wall: {result.wall_s:.1f} s  "
              f"tick rate: {result.tick_hz:.0f} Hz", markup=False)
    view.print(f"run folder: {result.run_dir}", markup=False, soft_wrap=True)
    if result.interrupted:
        err.print("owl-bt: stopped by Ctrl-C; the arm was stopped first")
    elif not result.success:
        err.print(f"owl-bt: task not done: {result.failure or result.detector_reason}", markup=False, soft_wrap=True)
    if as_json:
        print(json.dumps(result.summary()))
    else:
        print(f"success: {'true' if result.success else 'false'}")
    sys.stdout.flush()
    raise typer.Exit(0 if result.success else (130 if result.interrupted else 1))


@app.command("tasks")
def list_tasks() -> None:
    """List the benchmark tasks with their instructions."""
    from sim.tasks import TASKS

    for name, t in TASKS.items():
        out.print(f"{name:<10} {t.instruction}", markup=False)


@app.command("skills")
def list_skills(as_json: bool = typer.Option(False, "--json", help="One JSON list instead of text.")) -> None:
    """List the registered skills (entry-point group owl_bt.skills) with their operator schemas."""
    from owl_bt.skills_cmd import print_skills, skill_records

    try:
        records = skill_records()
    except OwlError as exc:
        raise _fail(exc) from None
    if as_json:
        print(json.dumps(records, indent=1))
    else:
        print_skills(out, records)


@app.command()
def bench(
    method: str = typer.Option("owl", "--method", "-m", help=(
        "Method (SPEC §8.1): owl (the full method), no-disc, no-cont, no-back, no-sample, direct, cap, cap-sample "
        "or oracle (hand-written answers).")),
    tasks: str = typer.Option("all", "--tasks", "-t", help="'all' or a comma list of tasks (see `owl-bt tasks`)."),
    seeds: int | None = typer.Option(None, "--seeds", "-n", help="Run seeds 0..N-1 of each task (default 10)."),
    seed_list: str | None = typer.Option(None, "--seed-list", help="Run exactly these seeds, e.g. 3,5,7 (instead of --seeds)."),
    out_dir: Path = typer.Option(Path("bench"), "--out", "-o", help="Bench folder: episodes.jsonl, summary.md/.json, runs/."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", help="Worker processes (default: the number of cores)."),
    max_attempts: int = typer.Option(
        4, "--max-attempts", help="Attempts per episode before giving up (the first and up to 3 replans)."),
    budget: int = typer.Option(500, "--budget", help="Continuous samples per action (SPEC §5: 500)."),
    report_only: bool = typer.Option(False, "--report-only", help="Run nothing; rewrite the summary of --out's episodes.jsonl."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar on stderr."),
    perception: str = typer.Option("camera", "--perception", help="Perception source of every episode: camera or sim-state."),
    robot: str = typer.Option("ur5e", "--robot", help="Simulated arm: ur5e (default; alias ur5) or kinova-gen3."),
) -> None:
    """Benchmark a method over tasks × seeds (SPEC §8); resumable, see README "Benchmark"."""
    from owl_bt.bench.cli import bench_command

    try:
        code = bench_command(out, err, method, tasks, seeds, seed_list, out_dir, jobs, max_attempts, budget, report_only, quiet,
                             perception, robot)
    except OwlError as exc:
        raise _fail(exc) from None
    raise typer.Exit(code)


def _confirm_first_motion(traj) -> bool:
    """Show the first motion's targets and ask on the terminal; no terminal means no."""
    err.print(f"first motion: {len(traj.waypoints)} waypoints over {traj.times[-1]:.1f} s, ending at joints (rad) "
              f"{', '.join(f'{v:.3f}' for v in traj.waypoints[-1])}", markup=False, soft_wrap=True)
    if not sys.stdin.isatty():
        err.print("owl-bt: not confirmed (no terminal to ask on); nothing was sent to the arm", markup=False)
        return False
    return typer.confirm("Send this and the rest of the plan to the arm?", default=False, err=True)


@app.command()
def doctor(
    backend: str | None = typer.Option(None, "--backend", help="Also check this hardware backend's arm: kortex or rtde."),
    ip: str | None = typer.Option(None, "--ip", help="The arm's address (with --backend); the arm is never moved."),
) -> None:
    """Check what is installed (simulation, planners, vendor libraries) and whether a hardware arm answers."""
    from owl_bt.doctor import run_doctor

    try:
        code = run_doctor(out, backend, ip)
    except OwlError as exc:
        raise _fail(exc) from None
    raise typer.Exit(code)


def _replayed(run_dir: Path, instruction: str, task: str | None, scene: Path | None, vlm: str) -> tuple:
    """(instruction, task, seed, vlm spec, method) to re-run `run_dir` with its recorded answers."""
    from owl_bt.language.replay import recorded_run

    rec = recorded_run(run_dir)
    if vlm not in ("offline", "replay"):
        raise UsageError(f"--replay answers from the recording; it cannot be combined with --vlm {vlm}")
    if instruction.strip() and instruction.strip() != rec["instruction"].strip():
        raise UsageError("--replay re-runs the recorded instruction; leave the instruction out")
    if scene is None and rec["task"].startswith("scene:"):
        raise UsageError(f"--replay: the run used the scene file {rec['task'][6:]}.toml; pass it with --scene")
    return (rec["instruction"], task or (None if scene else rec["task"]), rec["seed"], f"replay:{run_dir.absolute()}",
            rec["method"])


def _live_or_lines(quiet: bool):
    """The live tree (rich) when stderr is a terminal, else the progress lines; None when quiet."""
    if quiet:
        return None
    if err.is_terminal:
        from owl_bt.report.live import LiveTree

        return LiveTree(err)
    return _Progress()


@app.command("perception-bench")
def perception_bench(
    tasks: str = typer.Option("all", "--tasks", "-t", help="'all' or a comma list of tasks (see `owl-bt tasks`)."),
    seeds: int = typer.Option(5, "--seeds", "-n", help="Perceive the initial scene of seeds 0..N-1 of each task."),
    noise: bool = typer.Option(True, "--noise/--no-noise", help="Depth noise on the simulated camera (default on)."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Write perception_bench.json and .md into this folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object instead of a table."),
) -> None:
    """Measure perception on the tasks' initial scenes: objects found and labelled, centroid and box
    size errors, time per 640×480 frame (issue 5 thresholds). Exit 0 when every threshold holds, 1 when not."""
    from owl_bt.bench import perception_bench as pb
    from owl_bt.bench.config import parse_seeds, parse_tasks

    try:
        names, seed_values = parse_tasks(tasks), parse_seeds(seeds, None)
    except OwlError as exc:
        raise _fail(exc) from None
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise _fail(UsageError(f"--out {out_dir} exists and is not a folder"))

    def progress(sc) -> None:
        worst = max((o.centroid_err or 0.0 for o in sc.objects), default=0.0)
        err.print(f"[dim]{sc.task}-s{sc.seed}: {len(sc.objects)} objects, worst centroid {worst * 100:.2f} cm, "
                  f"{sc.time_s:.2f} s{' — ' + sc.failure if sc.failure else ''}[/]", soft_wrap=True)

    data = pb.run(list(names), list(seed_values), noise, out_dir, progress)
    if as_json:
        print(json.dumps(data, default=str))
    else:
        out.print(pb.render_markdown(data), markup=False, soft_wrap=True)
    raise typer.Exit(0 if data["passed"] else 1)


class _Progress:
    """Prints a line on stderr whenever a behaviour changes status (or its feedback)."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, str]] = {}

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __call__(self, root) -> None:
        for b in root.iterate():
            if b is root or b.name == "attempt":
                continue
            key = (b.status.name, b.feedback_message or "")
            if self.seen.get(b.name) != key and b.status.name != "INVALID":
                self.seen[b.name] = key
                note = f" — {b.feedback_message}" if b.feedback_message else ""
                err.print(f"[dim]{b.name:>22}[/] {b.status.name.lower()}{note}", soft_wrap=True)


def main() -> None:
    from sim.quiet import quiet

    with quiet():  # pybullet announces its build time from C on first import
        import pybullet  # noqa: F401
    app()


if __name__ == "__main__":
    main()
