"""The episodes of a bench and the "pool" engine: `plan_jobs` lists them, `run_one` runs one and
returns its record, `Recorder` appends records to `episodes.jsonl` (for both engines; `run_bench` in
`owl_bt.bench.run` picks the engine).

Workers (a ProcessPoolExecutor on the "forkserver" context, "spawn" where that is missing: pybullet
and threads do not survive fork) run one episode each with their output silenced and return its
record; the parent alone appends records to `episodes.jsonl`. An episode that raises is recorded as
a failed episode with the one-line error. A worker process that dies takes the episodes in flight
with it: they are retried once in a fresh pool, then recorded as failed.

Ctrl-C (SIGINT to the parent): stop launching; episodes in flight are told to stop and end within a
tick (their results are discarded, not recorded); a second Ctrl-C kills the workers at once.

A full disk (in a worker's run folder or in `episodes.jsonl`) stops the bench: episodes in flight
are told to stop, nothing half-written is kept, and DiskFullError is raised.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from owl_bt.bench import episodes, methods
from owl_bt.bench.config import BenchConfig
from owl_bt.code_version import code_version
from owl_bt.episode_config import EpisodeConfig
from owl_bt.errors import DiskFullError, OwlError, disk_error
from owl_bt.runfolder import Interrupted
from owl_bt.stops import signal_words

# The fields every record starts with, in this order (the rest of EpisodeResult.summary() follows).
FIELDS = (
    "task",
    "seed",
    "method",
    "success",
    "declared_success",
    "samples",
    "wall_s",
    "model_s",
    "skeletons",
    "attempts",
    "queries",
    "detector",
    "failure",
    "run_dir",
    "tick_hz",
    "replans",
)


@dataclass(frozen=True)
class Job:
    """One episode to run: its key, the EpisodeConfig the method made, its run folder relative to the bench folder."""

    task: str
    seed: int
    method: str
    cfg: EpisodeConfig
    run_dir: str


@dataclass
class Outcome:
    """total: episodes in the bench; already: found in episodes.jsonl; new: recorded by this run;
    successes: among already + new; interrupted: stopped by Ctrl-C; unfinished: episodes not recorded."""

    total: int
    already: int = 0
    new: int = 0
    successes: int = 0
    interrupted: bool = False
    stopped_by: str = ""  # the signal that stopped it: 'Ctrl-C (SIGINT)', 'SIGTERM'
    records: list[dict[str, Any]] = field(default_factory=list)
    removed: list[str] = field(
        default_factory=list
    )  # leftover run folders removed (relative to the bench folder)

    @property
    def unfinished(self) -> int:
        return self.total - self.already - self.new


OnDone = Callable[[dict[str, Any], Outcome], None]


def plan_jobs(cfg: BenchConfig) -> list[Job]:
    """Every (task, seed) episode of the bench, in task-major order."""
    from sim import tasks

    method = methods.get(cfg.method)
    assert method.configure is not None
    jobs = []
    for name in cfg.tasks:
        task = tasks.get(name)
        for seed in cfg.seeds:
            for (
                variant
            ) in cfg.methods:  # the method, and with --faults the same episode with faults injected
                rel = f"runs/{variant}/{task.name}-s{seed}"
                base = EpisodeConfig(
                    task.instruction,
                    task.name,
                    seed,
                    (cfg.out / rel).absolute(),
                    max_attempts=cfg.max_attempts,
                    budget=cfg.budget,
                    skeletons=cfg.skeletons,
                    plan_time=cfg.plan_time,
                    perception=cfg.perception,
                    robot=cfg.robot,
                    vlm=cfg.vlm,
                )
                if variant != method.name:
                    base = dataclasses.replace(base, faults=cfg.faults, fault_seed=cfg.fault_seed)
                jobs.append(Job(task.name, seed, variant, method.apply(base), rel))
    return jobs


@contextlib.contextmanager
def _helpers_ignore_sighup() -> Iterator[None]:
    """Start multiprocessing's helper processes (resource tracker, fork server) with SIGHUP ignored,
    which they inherit: a closed terminal's SIGHUP reaches the whole process group, and a resource
    tracker it killed was relaunched and printed a KeyError traceback per semaphore. The bench
    process itself decides what a SIGHUP means (it stops the bench)."""
    from multiprocessing import forkserver, resource_tracker

    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN) if main else None
    try:
        resource_tracker.ensure_running()
        if "forkserver" in mp.get_all_start_methods():
            forkserver.ensure_running()
        yield
    finally:
        if main:
            signal.signal(signal.SIGHUP, old)


class Recorder:
    """The driver's side of episodes.jsonl, shared by the engines: appends one record per finished
    episode (with the code version that measured it), counts it in the Outcome and tells `on_done`."""

    def __init__(self, path: Path, outcome: Outcome, on_done: OnDone | None) -> None:
        self.path, self.outcome, self.on_done = path, outcome, on_done
        self.code = code_version()  # on every line: which code measured it

    def __call__(self, rec: dict[str, Any]) -> None:
        rec.setdefault("code", self.code)
        try:
            episodes.append(self.path, rec)
        except OSError as exc:
            raise disk_error(exc, self.path, " (the episode's line was not kept)") or OwlError(
                f"cannot write {self.path}: {exc.strerror or exc}"
            ) from None
        self.outcome.new += 1
        self.outcome.successes += bool(rec.get("success"))
        self.outcome.records.append(rec)
        if self.on_done is not None:
            self.on_done(rec, self.outcome)


def died_twice(job: Job, why: str = "") -> dict[str, Any]:
    """The error record of an episode whose worker process ended twice while running it."""
    return _error_record(
        job, OwlError(f"worker died: its process ended twice during this episode{why}"), 0.0
    )


class _Pool:
    def __init__(self, jobs: int, record: Recorder) -> None:
        self.jobs, self._record, self.outcome = jobs, record, record.outcome
        ctx_name = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        self.ctx = mp.get_context(ctx_name)
        with _helpers_ignore_sighup():
            self.stop = self.ctx.Event()
        self.crashes: Counter[tuple[str, int, str]] = Counter()

    def _sigint(self, signum: int, frame: object) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt  # the second Ctrl-C: kill the workers
        self.stop.set()
        self.outcome.interrupted = True
        self.outcome.stopped_by = signal_words(signum)

    def run(self, todo: deque[Job]) -> None:
        main = threading.current_thread() is threading.main_thread()
        # SIGTERM (kill, a CI timeout) is a Ctrl-C too: stop the workers rather than orphan them
        stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        old = {sig: signal.signal(sig, self._sigint) for sig in stops} if main else {}
        try:
            while todo and not self.stop.is_set():
                self._one_pool(todo)
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)

    def _one_pool(self, todo: deque[Job]) -> None:
        """Run jobs until done, stopped or the pool breaks (then the jobs in flight go back on `todo`)."""
        pool = ProcessPoolExecutor(
            min(self.jobs, len(todo)),
            mp_context=self.ctx,
            initializer=_init_worker,
            initargs=(self.stop, os.getpid()),
        )
        flight: dict[Future, Job] = {}
        killed = False
        try:
            while (todo and not self.stop.is_set()) or flight:
                while todo and not self.stop.is_set() and len(flight) < self.jobs:
                    job = todo.popleft()
                    try:
                        flight[pool.submit(run_one, job)] = job
                    except (
                        BrokenProcessPool,
                        OSError,
                        EOFError,
                    ) as exc:  # no worker could be started for it
                        self._broken([job, *flight.values()], todo, exc)
                        return
                finished, _ = wait(flight, timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in finished:
                    job = flight.pop(fut)
                    try:
                        rec = fut.result()
                    except BrokenProcessPool as exc:
                        self._broken([job, *flight.values()], todo, exc)
                        return
                    except (OSError, EOFError) as exc:  # the worker's connection went with it
                        rec = _error_record(
                            job, OwlError(f"worker died: {type(exc).__name__}: {exc}"), 0.0
                        )
                    except Exception as exc:  # e.g. a record that could not be sent back
                        rec = _error_record(job, exc, 0.0)
                    if rec.get("disk_full"):
                        raise DiskFullError(rec["disk_full"])
                    if not rec.get("interrupted"):
                        self._record(rec)
        except OwlError:  # a full disk, or episodes.jsonl cannot be written
            self.stop.set()  # the episodes in flight end within a tick; their folders are removed
            raise
        except KeyboardInterrupt:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.kill()  # only our own workers; the executor has no public way to stop them
            self.outcome.interrupted = killed = True
        finally:
            pool.shutdown(wait=not killed, cancel_futures=True)

    def _broken(self, lost: list[Job], todo: deque[Job], exc: BaseException | None = None) -> None:
        """The pool broke (a worker died: killed, out of memory) or could not start one: the episodes in
        flight go back on `todo`, and one that was lost twice is recorded as an error, "worker died: …"."""
        why = (
            f" ({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})"
            if exc is not None
            else ""
        )
        for job in reversed(lost):
            k = (job.task, job.seed, job.method)
            self.crashes[k] += 1
            if self.crashes[k] >= 2:
                self._record(died_twice(job, why))
            else:
                todo.appendleft(job)


# ---- in the worker process -------------------------------------------------------------------

_STOP: Any = None


def _init_worker(stop: Any, bench_pid: int) -> None:
    """Ignore Ctrl-C (the parent decides), silence C and Python output, remember the stop event, and
    end when the bench process is gone (killed with -9, it can no longer say so)."""
    global _STOP
    _STOP = stop
    threading.Thread(
        target=_watch_bench, args=(bench_pid,), daemon=True, name="owl-bench-watch"
    ).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(
        signal.SIGHUP, signal.SIG_IGN
    )  # a closed terminal reaches the bench too: it stops the workers
    signal.signal(
        signal.SIGTERM, signal.SIG_DFL
    )  # the pool ends a worker with SIGTERM: quietly, not as a stopped run
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _watch_bench(pid: int, every: float = 0.5) -> None:
    """Exit this worker at once when process `pid` (the bench) no longer exists or has ended and
    waits to be reaped (a zombie: whoever started the bench may be waiting for its output to close,
    which this worker holds open — a test's `communicate()` after a signal to the whole group hung so)."""
    stat = Path(f"/proc/{pid}/stat")
    while True:
        time.sleep(every)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                os._exit(1)
        except (OSError, IndexError):
            pass


def _check_stop(root: object) -> None:
    if _STOP is not None and _STOP.is_set():
        raise KeyboardInterrupt  # run_tree stops the arm and the tree, the episode ends as interrupted


def run_one(job: Job) -> dict[str, Any]:
    """Run one episode; returns its record (never raises for the episode's own errors)."""
    from owl_bt.episode import run_episode

    if _STOP is not None and _STOP.is_set():
        return {"interrupted": True}
    t0 = time.monotonic()
    try:
        result = run_episode(job.cfg, on_tick=_check_stop)
    except DiskFullError as exc:  # not the episode's failure: the bench stops
        return {"disk_full": exc.reason}
    except (
        Interrupted
    ):  # stopped while it was set up: its folder is removed, it runs again next time
        return {"interrupted": True}
    except Exception as exc:  # a bug or an OwlError: a failed episode, not a failed bench
        return _error_record(job, exc, time.monotonic() - t0)
    summary = result.summary()
    summary.update(
        run_dir=job.run_dir, interrupted=result.interrupted, stage_s=stage_seconds(result.run_dir)
    )
    return _ordered(job, summary, time.monotonic() - t0)


def stage_seconds(run_dir: Path | None) -> dict[str, float]:
    """Seconds the run spent in each stage of the executive (perceive, generate-constraints, plan,
    execute, replan), summed over its attempts, failed stages included, from its events.jsonl; {} when
    there is none. Where the wall clock goes, per episode (the summary's stage table)."""
    from owl_bt.report.events import read_events, stage_times

    path = None if run_dir is None else Path(run_dir) / "events.jsonl"
    if path is None or not path.is_file():
        return {}
    totals: dict[str, float] = {}
    for attempt in read_events(path).attempts:
        for stage, secs in stage_times(attempt):
            key = stage.removesuffix(" (failed)")
            totals[key] = totals.get(key, 0.0) + secs
    return {k: round(v, 2) for k, v in totals.items()}


def _error_record(job: Job, exc: BaseException, episode_s: float) -> dict[str, Any]:
    reason = exc.reason if isinstance(exc, OwlError) else f"{type(exc).__name__}: {exc}"
    line = " ".join(str(reason).split()) or type(exc).__name__
    rec = {
        "success": False,
        "declared_success": False,
        "samples": 0,
        "wall_s": 0.0,
        "model_s": 0.0,
        "skeletons": 0,
        "attempts": 0,
        "queries": 0,
        "detector": None,
        "failure": f"error: {line}",
        "run_dir": job.run_dir,
        "tick_hz": 0.0,
        "error": True,
    }
    if job.cfg.faults:
        rec["faults"] = {"spec": job.cfg.faults, "seed": job.cfg.fault_seed}
    return _ordered(job, rec, episode_s)


def _ordered(job: Job, summary: dict[str, Any], episode_s: float) -> dict[str, Any]:
    rec: dict[str, Any] = {"task": job.task, "seed": job.seed, "method": job.method}
    rec.update({k: summary.get(k) for k in FIELDS[3:]})
    rec.update({k: v for k, v in summary.items() if k not in rec})
    rec.update(
        vlm=job.cfg.vlm,
        robot=job.cfg.robot,
        perception=job.cfg.perception,
        budget=job.cfg.budget,
        max_attempts=job.cfg.max_attempts,
        max_skeletons=job.cfg.skeletons,
        plan_time_s=job.cfg.plan_time,
        episode_s=round(episode_s, 3),
    )
    rec.setdefault("error", False)
    if not rec.get("interrupted"):
        rec.pop("interrupted", None)
    return rec
