"""A bench's configuration from the command line, checked before anything runs (UsageError, exit 2)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from owl_bt import episode_config
from owl_bt.bench import episodes, methods
from owl_bt.bench.methods import FAULTS_SUFFIX
from owl_bt.errors import UsageError


@dataclass(frozen=True)
class BenchConfig:
    """method: a name in `methods.METHODS`; tasks: task names; seeds: the seeds run per task;
    out: the bench folder; jobs: worker processes; budget: continuous samples per action;
    max_attempts: perceive→plan→execute rounds per episode; skeletons: task plans tried per planning round;
    plan_time: wall-clock seconds a planning round may take before the episode ends failed;
    engine: where episodes run, "pool" (worker processes on this machine) or "ray" (Ray tasks);
    address: with the Ray engine, the address of a running Ray cluster to join (None: a local Ray
    with `jobs` CPUs)."""

    method: str
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    out: Path
    jobs: int
    budget: int = 500
    max_attempts: int = 4
    perception: str = (
        "camera"  # the perception source of every episode (owl_bt.episode.PERCEPTION_SOURCES)
    )
    robot: str = "ur5e"
    faults: str = (
        ""  # injected faults (owl_bt.faults, canonical text); each episode then also runs with them
    )
    fault_seed: int = 0
    skeletons: int = 5
    plan_time: float = 900.0  # seconds a planning round may take (owl_bt.episode_config.PLAN_TIME)
    engine: str = "pool"
    address: str | None = None
    vlm: str = "offline"  # the backend the language methods ask (offline or openai)

    @property
    def methods(self) -> tuple[str, ...]:
        """The method names episodes are recorded under: the method, and with --faults also
        '<method>+faults' (the same episodes with the faults injected)."""
        return (self.method, fault_method(self.method)) if self.faults else (self.method,)

    @property
    def episodes(self) -> int:
        return len(self.tasks) * len(self.seeds) * len(self.methods)


ENGINES = ("pool", "ray")
BENCH_VLMS = ("offline", "openai")  # a replay answers one recorded run; oracle is a method
INSTALL_HINT = (
    "--engine ray needs Ray and grpcio, not both installed: pip install 'owl-bt[ray]' "
    "(or pip install 'ray>=2.9' grpcio)"
)


def fault_method(method: str) -> str:
    """The name fault episodes of `method` are recorded under."""
    return method + FAULTS_SUFFIX


def parse_tasks(spec: str) -> tuple[str, ...]:
    """ "all" → the ten benchmark tasks; "everyday" → the everyday set; else a comma list of task
    names and family names (a family, e.g. "scaling", stands for its tasks); an unknown name →
    UsageError listing the known."""
    from sim import tasks
    from sim.tasks.everyday import EVERYDAY

    if spec.strip().lower() == "all":
        return tuple(tasks.TASKS)
    if spec.strip().lower() == "everyday":
        return tuple(EVERYDAY)
    names = []
    for n in spec.split(","):
        family = tasks.FAMILIES.get(n.strip().lower())
        if family is not None:
            names += [t.name for t in family]
        elif n.strip():
            names.append(tasks.get(n).name)
    if not names:
        raise UsageError(
            f"--tasks is empty; give 'all' or some of: {', '.join(sorted(tasks.TASKS))}"
        )
    return tuple(dict.fromkeys(names))


MAX_SEEDS = 100_000  # seeds per task a bench may ask for
MAX_JOBS_PER_CORE = 4  # worker processes per core a bench may ask for


MAX_SEED = episode_config.MAX_SEED  # the range of `owl-bt run --seed`


def parse_seeds(seeds: int | None, seed_list: str | None) -> tuple[int, ...]:
    """`--seeds N` → 0..N-1 (default 10); `--seed-list 3,5,7` → those seeds; not both."""
    if seed_list is not None:
        if seeds is not None:
            raise UsageError("give either --seeds or --seed-list, not both")
        parts = [s.strip() for s in seed_list.split(",")]
        try:
            if "" in parts and any(parts):
                raise ValueError  # "0,,1": an empty entry is a typo, not nothing
            values = [int(s) for s in parts if s]
        except ValueError:
            raise UsageError(
                f"--seed-list must be whole numbers separated by commas, got {seed_list!r}"
            ) from None
        if not values:
            raise UsageError("--seed-list is empty")
        bad = next((v for v in values if not 0 <= v <= MAX_SEED), None)
        if bad is not None:  # as `run --seed`; what episodes.jsonl can record
            raise UsageError(f"seeds must be from 0 to {MAX_SEED}, got {bad}")
        return tuple(dict.fromkeys(values))
    n = 10 if seeds is None else seeds
    if n < 1:
        raise UsageError(f"--seeds must be at least 1, got {n}")
    if n > MAX_SEEDS:
        raise UsageError(f"--seeds must be at most {MAX_SEEDS}, got {n}")
    return tuple(range(n))


def _run_folder(path: Path) -> bool:
    """Does `path` hold a run of `owl-bt run` (its plan.json and events.jsonl)?"""
    return path.is_dir() and (path / "plan.json").is_file() and (path / "events.jsonl").is_file()


def check_out(out: Path, create: bool = True) -> Path:
    """The bench folder: must not be a file; created (with parents) and checked writable (a file
    made and removed in it) when `create`, so a read-only folder is a usage error before any episode runs."""
    if out.is_symlink() and not out.exists():
        raise UsageError(f"--out {out} is a symbolic link to nothing")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    if _run_folder(out):
        raise UsageError(
            f"--out {out} is the folder of one `owl-bt run`, not a bench folder; give a new or bench folder"
        )
    for parent in (
        out.absolute().parents
    ):  # never a bench inside a run folder, or inside another bench's runs/
        what = (
            "the folder of one `owl-bt run`"
            if _run_folder(parent)
            else "a bench folder"
            if (parent / "episodes.jsonl").is_file()
            else None
        )
        if what:
            raise UsageError(f"--out {out} is inside {parent}, {what}; give a folder outside it")
    if create:
        try:
            out.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=out):
                pass
        except OSError as exc:
            from owl_bt.errors import disk_error

            raise disk_error(exc, out) or UsageError(
                f"cannot write in the bench folder {out}: {exc.strerror}"
            ) from None
        for name, want_file in (
            ("episodes.jsonl", True),
            ("summary.md", True),
            ("summary.json", True),
            ("runs", False),
        ):
            path = out / name
            if path.exists() and path.is_file() != want_file:
                raise UsageError(
                    f"{path} is {'not a file' if want_file else 'not a folder'}; a bench folder's "
                    f"{name} must be {'a file' if want_file else 'a folder'}"
                )
    return out


def check_same_setup(cfg: BenchConfig, records: list[dict]) -> None:
    """A bench folder holds one setup: every recorded episode that says its robot or perception
    source must match `cfg`, and every episode of `cfg`'s methods its --vlm, --budget, --max-attempts, --skeletons and --plan-time
    (else its rows would be mixed into the same tables, and its episodes taken as already done);
    raises UsageError naming the option and the recorded value."""
    for r in records:
        for name, want in (("robot", cfg.robot), ("perception", cfg.perception)):
            got = r.get(name)
            if got is not None and got != want:
                raise UsageError(
                    f"--out {cfg.out} holds episodes run with --{name} {got} (e.g. {r['task']} seed "
                    f"{r['seed']}, {r['method']}), not {want}; a bench folder holds one setup: "
                    "choose another --out"
                )
    episode_options = _episode_options(cfg)
    for r in records:
        if r.get("method") not in cfg.methods:
            continue  # another method: its own --budget and --max-attempts (cap runs with 1 and 1)
        for name, want in episode_options.items():
            got = r.get(name)
            if got is not None and got != want:
                option = OPTION_OF.get(name, "--" + name.replace("_", "-"))
                raise UsageError(
                    f"--out {cfg.out} holds {r['method']} episodes run with {option} {got} (e.g. {r['task']} "
                    f"seed {r['seed']}), not {want}; their rows would be mixed: give {option} {got} again "
                    "or choose another --out"
                )


# a record's field → the option that set it ("skeletons" is a count)
OPTION_OF = {"max_skeletons": "--skeletons", "plan_time_s": "--plan-time"}


def _episode_options(cfg: BenchConfig) -> dict[str, float | str]:
    """The episode options a record of `cfg.method` says it ran with, after the method configured them."""
    from owl_bt.episode_config import EpisodeConfig

    base = EpisodeConfig(
        "",
        "berry1",
        0,
        None,
        max_attempts=cfg.max_attempts,
        budget=cfg.budget,
        skeletons=cfg.skeletons,
        plan_time=cfg.plan_time,
        vlm=cfg.vlm,
    )
    run = methods.get(cfg.method).apply(base)
    return {
        "vlm": run.vlm,
        "budget": run.budget,
        "max_attempts": run.max_attempts,
        "max_skeletons": run.skeletons,
        "plan_time_s": run.plan_time,
    }


def make_config(
    method: str,
    tasks: str,
    seeds: int | None,
    seed_list: str | None,
    out: Path,
    jobs: int | None,
    budget: int,
    max_attempts: int,
    perception: str = "camera",
    robot: str = "ur5e",
    faults: str | None = None,
    fault_seed: int = 0,
    skeletons: int = 5,
    plan_time: float = 900.0,
    engine: str = "pool",
    address: str | None = None,
    vlm: str = "offline",
) -> BenchConfig:
    """Check every argument (raises UsageError), then create the bench folder."""
    check_engine(engine, address)
    if vlm not in BENCH_VLMS:
        raise UsageError(f"unknown bench VLM backend {vlm!r}; available: {', '.join(BENCH_VLMS)}")
    name = methods.get(method).name
    check_endpoint(name, vlm)
    task_names = parse_tasks(tasks)
    seed_values = parse_seeds(seeds, seed_list)
    cores = os.cpu_count() or 1
    n_jobs = cores if jobs is None else jobs
    if n_jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {n_jobs}")
    if n_jobs > MAX_JOBS_PER_CORE * cores:
        raise UsageError(
            f"--jobs must be at most {MAX_JOBS_PER_CORE * cores} ({MAX_JOBS_PER_CORE} per core on this "
            f"machine's {cores}; each worker is a whole simulator), got {n_jobs}"
        )
    from owl_bt.episode_config import check_budgets, check_plan_time

    check_budgets(budget, skeletons)
    check_plan_time(plan_time)
    from owl_bt.episode_config import MAX_ATTEMPTS, PERCEPTION_SOURCES

    if not 1 <= max_attempts <= MAX_ATTEMPTS:
        raise UsageError(f"--max-attempts must be from 1 to {MAX_ATTEMPTS}, got {max_attempts}")
    from sim.robot import robot_spec

    if perception not in PERCEPTION_SOURCES:
        raise UsageError(
            f"unknown perception source {perception!r}; available: {', '.join(PERCEPTION_SOURCES)}"
        )
    try:
        arm = robot_spec(robot).name
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    from owl_bt.faults import parse_faults

    spec = parse_faults(faults, fault_seed)
    if spec:
        _check_fault_records(out, fault_method(name), spec.text(), spec.seed)
    if engine == "ray" and address is not None:  # before the bench folder is made
        from owl_bt.bench.ray_address import check_reachable

        check_reachable(address)
    return BenchConfig(
        name,
        task_names,
        seed_values,
        check_out(out),
        n_jobs,
        budget,
        max_attempts,
        perception,
        arm,
        spec.text(),
        spec.seed,
        skeletons,
        plan_time,
        engine,
        address,
        vlm,
    )


def check_engine(engine: str, address: str | None) -> None:
    """A known engine; --address only with the Ray engine, never empty; Ray importable when asked for
    (else one line saying how to install it). Raises UsageError."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; available: {', '.join(ENGINES)}")
    if address is not None and engine != "ray":
        raise UsageError("--address joins a Ray cluster: give it with --engine ray")
    if address is not None and not address.strip():
        raise UsageError("--address is empty; give a Ray cluster's HOST:PORT, or 'auto'")
    if address is not None:
        check_address_form(address)
    if engine == "ray":
        missing = ray_missing()
        if missing:
            raise UsageError(missing)


def check_endpoint(method: str, vlm: str) -> None:
    """--vlm openai for a method that asks the model: the endpoint's settings must be whole (as
    `run --vlm openai` requires) before the bench starts; else UsageError. Unchecked, every episode
    was recorded as an error, the bench exited 0, and the same command after the settings were
    fixed ran nothing (the episodes were recorded)."""
    if vlm != "openai":
        return
    from owl_bt.episode_config import EpisodeConfig
    from owl_bt.language.vlm import parse_spec

    run = methods.get(method).apply(EpisodeConfig("", "berry1", 0, None, vlm=vlm))
    if parse_spec(run.vlm)[1] == "openai":
        from owl_bt.language.settings import load_settings

        load_settings()


def check_address_form(address: str) -> None:
    """'auto', a ray://… (Ray Client) address, or HOST:PORT with a port from 1 to 65535; else
    UsageError (Ray logs its own traceback for a malformed one, and retries a port past 65535)."""
    if address == "auto":
        return
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if (
        "://" in rest
        or not sep
        or not host.strip("[]").strip()
        or not port.isdigit()
        or not 1 <= int(port) <= 65535
    ):
        raise UsageError(
            f"--address {address} is not HOST:PORT (a port from 1 to 65535), ray://HOST:PORT or 'auto'"
        )


def _check_fault_records(out: Path, method: str, text: str, seed: int) -> None:
    """A bench folder keeps one fault setting per method: other rates or another seed → UsageError."""
    for rec in episodes.load(out / episodes.FILENAME):
        if rec.get("method") != method:
            continue
        got = rec.get("faults") or {}
        if (got.get("spec"), got.get("seed")) != (text, seed):
            raise UsageError(
                f"{out} already holds {method} episodes with --faults {got.get('spec')} --fault-seed "
                f"{got.get('seed')}; give those again or use another --out"
            )
        return


def ray_missing() -> str:
    """'' when Ray and grpc (its cluster address is probed with it) can be imported, else the
    one-line install hint."""
    try:
        import grpc  # noqa: F401
        import ray  # noqa: F401
    except ImportError:
        return INSTALL_HINT
    return ""
