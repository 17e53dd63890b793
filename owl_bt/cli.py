"""The `owl-bt` command line: run a goal in simulation, list the tasks, run the benchmark.

Exit codes: 0 success, 1 the robot could not do it, 2 usage error. Errors are one line on stderr.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from pathlib import Path

import typer
from rich.markup import escape
from rich.syntax import Syntax

from owl_bt.errors import OwlError, UsageError
from owl_bt.report.console import make_console

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
out = make_console()  # no wrapping at 80 columns when the output is a pipe or a log (owl_bt/report/console.py)
err = make_console(stderr=True)


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
    interactive: bool = typer.Option(False, "--interactive", "-i", help="Confirm (or correct) a spoken goal before planning, "
                                     "and add a line of feedback for the next attempt at each replan."),
    robot: str | None = typer.Option(None, "--robot", help="The arm: ur5e (alias ur5) or kinova-gen3 (default: ur5e, or the "
                                     "arm of --backend)."),
    speed: float | None = typer.Option(None, "--speed", help="Share of the joints' velocity limits the safety guard allows, "
                                       "(0, 1] (default 1 in simulation, 0.25 on hardware)."),
    backend: str = typer.Option("sim", "--backend", help="Arm backend: sim (default), kortex (Kinova Gen3) or rtde (UR5)."),
    ip: str | None = typer.Option(None, "--ip", help="The hardware arm's address (kortex, rtde)."),
    execute: bool = typer.Option(False, "--execute/--dry-run", help="Hardware: really move the arm, after confirming the "
                                 "first motion (default --dry-run: plan, check and show; the arm is never contacted)."),
    faults: str | None = typer.Option(None, "--faults", help="Inject faults in simulation, KIND=RATE pairs: grasp-slip (per "
                                      "transport), knock (per step), miss-detect (per observation), arm-fault (per step), e.g. "
                                      "grasp-slip=0.2,knock=0.1,miss-detect=0.1,arm-fault=0.05."),
    fault_seed: int = typer.Option(0, "--fault-seed", help="Seed of the injected faults (with --seed)."),
) -> None:
    """Run a goal on the simulated arm: perceive → generate constraints → plan → execute (→ replan)."""
    from owl_bt.episode import EpisodeConfig, run_episode
    from owl_bt.runfolder import extra_files

    if scene is not None and task is not None:
        raise _fail(UsageError("--scene and --task are mutually exclusive: give one or the other"))
    if gui and sys.platform.startswith("linux") and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise _fail(UsageError("--gui needs a display (DISPLAY is not set): run without --gui; the run folder "
                               "gets initial.png, final.png and perception.png to look at"))
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
                            speed=(1.0 if backend == "sim" else 0.25) if speed is None else speed, confirm=_confirm_first_motion,
                            faults=faults, fault_seed=fault_seed)
        from owl_bt.bench import methods

        cfg = methods.get(method).configure(cfg)
    except OwlError as exc:
        raise _fail(exc) from None
    progress = _live_or_lines(quiet)
    if interactive:
        cfg.ask = _ask_feedback(progress)
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
              f"tick rate: {result.tick_hz:.0f} Hz ({result.tick.get('busy_hz', 0):.0f} Hz while working)", markup=False)
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
    code = 0 if result.success else (130 if result.interrupted else 1)
    if any(t.name == "owl-replan-prompt" and t.is_alive() for t in threading.enumerate()):
        # a feedback prompt still blocked reading stdin (Ctrl-C at the prompt): the run folder is
        # written and the output flushed; leave without the interpreter's shutdown, which would abort
        # on the stdin lock that thread holds
        sys.stderr.flush()
        os._exit(code)
    raise typer.Exit(code)


@app.command("tasks")
def list_tasks() -> None:
    """List the benchmark tasks with their instructions."""
    from sim.tasks import TASKS

    for name, t in TASKS.items():
        out.print(f"{name:<10} {t.instruction}", markup=False)


@app.command("skills")
def list_skills(as_json: bool = typer.Option(False, "--json", help="Print one JSON list (one object per skill: name, "
                                             "signature, params, pre, add, delete, open_world, description, package) "
                                             "instead of text. Default: text.")) -> None:
    """List the registered skills with their operator schemas: typed parameters, preconditions,
    add and delete effects, whether the planner gets a generated checker for it, its description
    for the model, and the package that provides it (entry-point group owl_bt.skills).

    Examples:

      owl-bt skills                                  # pick, place_ontop, …

      owl-bt skills --json | jq -r '.[].signature'   # one per line

    A new skill is a package declaring an owl_bt.skills entry point; see README "Skill plugins"."""
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
    seeds: int | None = typer.Option(None, "--seeds", "-n", help="Run seeds 0..N-1 of each task, 1 ≤ N ≤ 100000 (default 10)."),
    seed_list: str | None = typer.Option(None, "--seed-list", help="Run exactly these seeds (whole numbers ≥ 0), e.g. 3,5,7 "
                                         "(instead of --seeds)."),
    out_dir: Path = typer.Option(Path("bench"), "--out", "-o", help="Bench folder: episodes.jsonl, summary.md/.json, "
                                 "runs/<method>/<task>-s<seed>/. Holds one robot and perception setup; methods may be added."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", help="Worker processes, each a whole simulator (default: the number "
                                    "of cores; at most 4 per core)."),
    max_attempts: int = typer.Option(
        4, "--max-attempts", help="Attempts per episode before giving up (the first and up to 3 replans)."),
    budget: int = typer.Option(500, "--budget", help="Continuous samples per action, ≥ 1 (SPEC §5: 500)."),
    report_only: bool = typer.Option(False, "--report-only", help="Run nothing; rewrite the summary of --out's episodes.jsonl "
                                     "(lines that are corrupt or wrongly typed are named on stderr and not counted)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar on stderr (default: a bar of episodes done, "
                               "successes and elapsed time)."),
    perception: str = typer.Option("camera", "--perception", help="Perception source of every episode: camera or sim-state."),
    robot: str = typer.Option("ur5e", "--robot", help="Simulated arm: ur5e (default; alias ur5) or kinova-gen3."),
    faults: str | None = typer.Option(None, "--faults", help="Also run every episode with these faults injected (recorded as "
                                      "METHOD+faults), e.g. grasp-slip=0.2,knock=0.1,miss-detect=0.1,arm-fault=0.05; the "
                                      "summary compares success with and without them and the replans used."),
    fault_seed: int = typer.Option(0, "--fault-seed", help="Seed of the injected faults (with each episode's seed)."),
) -> None:
    """Benchmark a method over tasks × seeds (SPEC §8): every (task, seed) episode is run in a worker
    process and appended to OUT/episodes.jsonl; OUT/summary.md and summary.json give per task success
    % ± standard error, soundness %, mean samples, median wall clock (s) and the SPEC §8.3 reference
    beside them. Resumable: run the same command again and only missing episodes run.

    Examples:

      owl-bt bench --method oracle --tasks berry1,citrus --seeds 2 --out bench/

      owl-bt bench --method owl --tasks all --seed-list 3,5,7 --out bench/

      owl-bt bench --out bench/ --report-only      # rewrite the summary only

    Exit 0 when the bench ran (whatever the episodes did), 1 on a full disk, 2 for a usage error, 130 when stopped by Ctrl-C."""
    from owl_bt.bench.cli import bench_command

    try:
        code = bench_command(out, err, method, tasks, seeds, seed_list, out_dir, jobs, max_attempts, budget, report_only, quiet,
                             perception, robot, faults, fault_seed)
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
    backend: str | None = typer.Option(None, "--backend", help="Also check this hardware backend's arm: kortex (Kinova Gen3, "
                                       "port 10000) or rtde (UR5). Default: none."),
    ip: str | None = typer.Option(None, "--ip", help="The arm's IP address or host name (needed with --backend), e.g. "
                                  "192.168.1.10; the arm is never moved."),
) -> None:
    """Check what is installed (simulation, planners, vendor libraries) and whether a hardware arm answers.

    Examples:

      owl-bt doctor                                      # what is installed

      owl-bt doctor --backend kortex --ip 192.168.1.10   # and the Gen3?

      owl-bt doctor --backend rtde --ip 192.168.1.20     # and the UR5?

    The arm is only asked for its state, never moved. Default: no hardware check."""
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


def _ask_feedback(progress):
    """The replan prompt of --interactive: shows the failure line and reads one line from the person
    (the live display pauses while they type); called from a thread while the tree keeps ticking."""
    def ask(question: str) -> str:
        with (progress.paused() if progress is not None else contextlib.nullcontext()):
            return err.input(question, markup=False)
    return ask


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
    tasks: str = typer.Option("all", "--tasks", "-t", help="'all' or a comma list of tasks, e.g. berry1,citrus (see "
                              "`owl-bt tasks`)."),
    seeds: int = typer.Option(5, "--seeds", "-n", help="Perceive the initial scene of seeds 0..N-1 of each task, "
                              "1 ≤ N ≤ 100000 (about 0.3 s a scene)."),
    noise: bool = typer.Option(True, "--noise/--no-noise", help="Depth noise on the simulated camera, σ = 0.001·z² m "
                               "(default on)."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write perception_bench.json (per object) and "
                                        "perception_bench.md into this folder (default: write nothing)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object instead of a table."),
) -> None:
    """Measure perception on the tasks' initial scenes against the simulator's ground truth: visible
    objects found and labelled, centroid error and box size error (printed in cm), wall-clock and CPU
    seconds per 640×480 frame. Thresholds (issue 5): centroid ≤ 1 cm median and ≤ 2.5 cm max, size
    ≤ 1.5 cm median, ≤ 0.5 s median per frame.

    Examples:

      owl-bt perception-bench --tasks berry1 --seeds 2

      owl-bt perception-bench --tasks all --seeds 5 --out bench-perception/

    Exit 0 when every threshold holds, 1 when one fails, 2 for a usage error."""
    from owl_bt.bench import perception_bench as pb
    from owl_bt.bench.config import check_out, parse_seeds, parse_tasks

    try:
        names, seed_values = parse_tasks(tasks), parse_seeds(seeds, None)
        if out_dir is not None:
            check_out(out_dir)  # a file or a folder that cannot be written: a usage error before any scene
    except OwlError as exc:
        raise _fail(exc) from None

    def progress(sc) -> None:
        worst = max((o.centroid_err or 0.0 for o in sc.objects), default=0.0)
        err.print(f"[dim]{sc.task}-s{sc.seed}: {len(sc.objects)} objects, worst centroid {worst * 100:.2f} cm, "
                  f"{sc.time_s:.2f} s{' — ' + escape(sc.failure) if sc.failure else ''}[/]", soft_wrap=True)

    try:
        data = pb.run(list(names), list(seed_values), noise, out_dir, progress)
    except OwlError as exc:
        raise _fail(exc) from None
    if as_json:
        print(json.dumps(data, default=str))
    else:
        out.print(pb.render_markdown(data), markup=False, soft_wrap=True)
    if data.get("interrupted"):
        err.print(f"owl-bt: perception-bench stopped by Ctrl-C after {data['overall']['scenes']} scenes", markup=False)
        raise typer.Exit(130)
    raise typer.Exit(0 if data["passed"] else 1)


class _Progress:
    """Prints a line on stderr whenever a behaviour changes status (or its feedback)."""

    QUIET = ("attempt", "gather", "tasks", "safety", "make-safe", "task", "work", "arm-status", "ready")  # structure

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, str]] = {}
        self._paused = False

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc) -> None:
        return None

    @contextlib.contextmanager
    def paused(self):
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    def __call__(self, root) -> None:
        if self._paused:
            return
        for b in root.iterate():
            if b is root or b.name in self.QUIET:
                continue
            key = (b.status.name, b.feedback_message or "")
            if self.seen.get(b.name) != key and b.status.name != "INVALID":
                self.seen[b.name] = key
                note = f" — {escape(b.feedback_message)}" if b.feedback_message else ""  # text, not markup
                err.print(f"[dim]{b.name:>22}[/] {b.status.name.lower()}{note}", soft_wrap=True)


def main() -> None:
    from sim.quiet import quiet

    with quiet():  # pybullet announces its build time from C on first import
        import pybullet  # noqa: F401
    app()


if __name__ == "__main__":
    main()
