"""`owl-bt bench` (a method over tasks × seeds) and `owl-bt perception-bench` (perception against the
simulator's ground truth). The bodies live in owl_bt/bench/; here are the options and exit codes."""

from __future__ import annotations

import json

import typer
from rich.markup import escape

from owl_bt.bench import methods
from owl_bt.cli import choices
from owl_bt.cli.base import OwlCommand, app, err, fail, out, stops_handled_here
from owl_bt.cli.inputs import out_path
from owl_bt.errors import OwlError, UsageError

BENCH_HELP = """Benchmark a method over the ten tabletop tasks × seeds: every (task, seed) episode is run in a worker
process and appended to OUT/episodes.jsonl; OUT/summary.md and summary.json give per task success
% ± standard error, soundness %, mean samples, median wall clock (s) and the reference method's published
figures beside them. Resumable: run the same command again and only missing episodes run.
A bare `owl-bt bench` runs all ten tasks × 10 seeds (100 episodes, hours); before starting, a bench says
how many episodes it will run and roughly how long they take.

Examples:

  owl-bt bench --method oracle --tasks berry1,citrus --seeds 2 --out bench/

  owl-bt bench --method owl --tasks all --seed-list 3,5,7 --out bench/

  owl-bt bench --out bench/ --report-only      # rewrite the summary only

Exit 0 when the bench ran (whatever the episodes did), 1 on a full disk, 2 for a usage error, 130 when stopped by Ctrl-C.

Methods (--method):

""" + "\n\n".join(
    f"  {line}" for line in methods.explained().splitlines()
)  # one wrapped paragraph per method


@app.command(help=BENCH_HELP, cls=OwlCommand)
def bench(
    method: choices.Method = typer.Option(
        "owl",
        "--method",
        "-m",
        case_sensitive=False,
        help=(
            "Method: owl (the full method; default) or a comparison method, each explained above."
        ),
    ),
    tasks: str = typer.Option(
        "all",
        "--tasks",
        "-t",
        metavar="TASKS",
        help="'all' (the ten benchmark tasks), 'everyday' (the everyday set) or a comma list of tasks (see `owl-bt tasks`).",
    ),
    seeds: int | None = typer.Option(
        None, "--seeds", "-n", help="Run seeds 0..N-1 of each task, 1 ≤ N ≤ 100000 (default 10)."
    ),
    seed_list: str | None = typer.Option(
        None,
        "--seed-list",
        metavar="SEEDS",
        help="Run exactly these seeds (whole numbers 0 to 10^12, as run --seed), e.g. 3,5,7 (instead of --seeds).",
    ),
    out_dir: str = typer.Option(
        "bench",
        "--out",
        "-o",
        metavar="DIR",
        help="Bench folder: episodes.jsonl, summary.md/.json, "
        "runs/<method>/<task>-s<seed>/. Holds one robot and perception setup; methods may be added.",
    ),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        help="Worker processes, each a whole simulator (default: the number "
        "of cores; at most 4 per core).",
    ),
    max_attempts: int = typer.Option(
        4,
        "--max-attempts",
        help="Attempts per episode before giving up (the first and up to 3 replans).",
    ),
    budget: int = typer.Option(
        500,
        "--budget",
        help="Continuous samples drawn per action, ≥ 1 (the reference method uses 500).",
    ),
    skeletons: int = typer.Option(
        5,
        "--skeletons",
        help="Skeletons (task plans) tried per planning round, ≥ 1 (the reference method uses 5).",
    ),
    plan_time: float = typer.Option(
        900.0,
        "--plan-time",
        metavar="SECONDS",
        help="Wall-clock seconds one planning round may take; past it the episode ends failed.",
    ),
    report_only: bool = typer.Option(
        False,
        "--report-only",
        help="Run nothing; rewrite the summary of --out's episodes.jsonl "
        "(lines that are corrupt or wrongly typed are named on stderr and not counted).",
    ),
    quiet: bool = typer.Option(
        False,
        "--quiet",
        "-q",
        help="No progress bar on stderr (default: a bar of episodes done, "
        "successes and elapsed time).",
    ),
    perception: choices.Perception = typer.Option(
        "camera",
        "--perception",
        case_sensitive=False,
        help="Perception source of every episode: camera or sim-state.",
    ),
    robot: choices.Robot = typer.Option(
        "ur5e",
        "--robot",
        case_sensitive=False,
        help="Simulated arm: ur5e (default; also ur5, ur) or kinova-gen3 (also gen3, kinova).",
    ),
    faults: str | None = typer.Option(
        None,
        "--faults",
        metavar="KIND=RATE,…",
        help="Also run every episode with these faults injected (recorded as "
        "METHOD+faults), KIND one of grasp-slip, knock, knock-off, miss-detect, arm-fault "
        "(see `owl-bt run --help`), e.g. grasp-slip=0.2,knock=0.1; the "
        "summary compares success with and without them and the replans used.",
    ),
    fault_seed: int | None = typer.Option(
        None,
        "--fault-seed",
        help="Seed of the injected faults, with --faults (and each episode's seed); default 0.",
    ),
    engine: str = typer.Option(
        "pool",
        "--engine",
        metavar="ENGINE",
        help="Where episodes run: pool (worker processes on this machine; default) or ray (one Ray "
        "task per episode; a local Ray with --jobs CPUs, or the cluster at --address).",
    ),
    vlm: choices.BenchVlm = typer.Option(
        "offline",
        "--vlm",
        case_sensitive=False,
        help="The model the language methods ask: offline (the embedded grounder; default) or "
        "openai (the OpenAI-compatible endpoint of `owl-bt run --vlm openai`, docs/usage.md). "
        "The oracle method ignores it.",
    ),
    address: str | None = typer.Option(
        None,
        "--address",
        metavar="HOST:PORT",
        help="With --engine ray: join this running Ray cluster (`ray start --head` prints it; "
        "'auto' finds one on this machine) instead of starting a local Ray.",
    ),
) -> None:
    """`owl-bt bench`: see BENCH_HELP."""
    from owl_bt.cli.bench_command import bench_command

    stops_handled_here()
    try:
        if fault_seed is not None and faults is None:
            raise UsageError(
                "--fault-seed seeds the injected faults and there are none: add --faults KIND=RATE,… "
                "(e.g. --faults knock=0.1) or leave --fault-seed out"
            )
        folder = out_path(out_dir)
        assert folder is not None  # the option has a default
        code = bench_command(
            out,
            err,
            method,
            tasks,
            seeds,
            seed_list,
            folder,
            jobs,
            max_attempts,
            budget,
            report_only,
            quiet,
            perception,
            robot,
            faults,
            fault_seed or 0,
            skeletons,
            plan_time,
            engine.strip().lower(),
            address,
            vlm.lower(),
        )
    except OwlError as exc:
        raise fail(exc) from None
    raise typer.Exit(code)


@app.command("perception-bench", cls=OwlCommand)
def perception_bench(
    tasks: str = typer.Option(
        "all",
        "--tasks",
        "-t",
        metavar="TASKS",
        help="'all' or a comma list of tasks, e.g. berry1,citrus (see `owl-bt tasks`).",
    ),
    seeds: int = typer.Option(
        5,
        "--seeds",
        "-n",
        help="Perceive the initial scene of seeds 0..N-1 of each task, "
        "1 ≤ N ≤ 100000 (about 0.3 s a scene).",
    ),
    noise: bool = typer.Option(
        True,
        "--noise/--no-noise",
        help="Depth noise on the simulated camera, σ = 0.001·z² m (default on).",
    ),
    out_dir: str | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Also write perception_bench.json (per object) and "
        "perception_bench.md into this folder (default: write nothing).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the summary as one JSON object instead of a table."
    ),
    unlabelled: bool = typer.Option(
        False,
        "--unlabelled",
        help="RGB-D only, no masks or labels: objects found and named from geometry and colour "
        "(as --perception camera-unlabelled).",
    ),
) -> None:
    """Measure perception on the tasks' initial scenes against the simulator's ground truth: visible
    objects found and labelled, centroid error and box size error (printed in cm), wall-clock and CPU
    seconds per 640×480 frame. Thresholds: centroid ≤ 1 cm median and ≤ 2.5 cm max, size
    ≤ 1.5 cm median, ≤ 0.5 s median per frame.

    Examples:

      owl-bt perception-bench --tasks berry1 --seeds 2

      owl-bt perception-bench --tasks all --seeds 5 --out bench-perception/

    Exit 0 when every threshold holds, 1 when one fails, 2 for a usage error."""
    from owl_bt.bench import perception_bench as pb
    from owl_bt.bench.config import check_out, parse_seeds, parse_tasks

    stops_handled_here()

    try:
        names, seed_values = parse_tasks(tasks), parse_seeds(seeds, None)
        folder = out_path(out_dir)
        if folder is not None:
            check_out(
                folder
            )  # a file or a folder that cannot be written: a usage error before any scene
    except OwlError as exc:
        raise fail(exc) from None

    def progress(sc) -> None:
        worst = max((o.centroid_err or 0.0 for o in sc.objects), default=0.0)
        err.print(
            f"[dim]{sc.task}-s{sc.seed}: {len(sc.objects)} objects, worst centroid {worst * 100:.2f} cm, "
            f"{sc.time_s:.2f} s{' — ' + escape(sc.failure) if sc.failure else ''}[/]",
            soft_wrap=True,
        )

    try:
        data = pb.run(list(names), list(seed_values), noise, folder, progress, unlabelled)
    except OwlError as exc:
        raise fail(exc) from None
    if as_json:
        print(json.dumps(data, default=str))
    else:
        out.print(pb.render_markdown(data), markup=False, soft_wrap=True)
    if data.get("interrupted"):
        err.print(
            f"owl-bt: perception-bench stopped by Ctrl-C after {data['overall']['scenes']} scenes",
            markup=False,
        )
        raise typer.Exit(130)
    raise typer.Exit(0 if data["passed"] else 1)
