"""Runs a bench's episodes as Ray tasks (`owl-bt bench --engine ray`), on this machine or a cluster.

Each episode is one Ray task (one CPU) that returns its record; the driver (the `owl-bt bench`
process) alone appends records to `episodes.jsonl`, through the same Recorder as the process pool,
so the file keeps its guarantees: append-only, one line per episode, resumable by running the same
command again. Ray is imported only here, when this engine is chosen.

Where Ray runs: `address=None` starts a private local Ray with `--jobs` CPUs (`ray.init(address="local",
num_cpus=…)`) and shuts it down at the end; an address joins a running cluster (`ray start --head` on one
machine, `ray start --address HOST:PORT` on the others; every machine needs the same owl-bt installed).
An address is probed before the bench folder is made (`ray_address.check_reachable`: a TCP connect, then the
head node's GCS cluster-id call; 'auto' resolved as Ray resolves it): an address where nothing, or
something other than Ray, listens is a UsageError in seconds.
A Ray already initialised in this process (e.g. by a test) is used as it is and left running.

Run folders: the driver writes a random token into `<out>/.ray-token`; a task that reads the same
token there sees the bench folder (same machine or a shared file system) and writes its run folder in
place; any other task writes it into a temporary folder and returns it as tar.gz bytes, which the
driver unpacks to `<out>/<run_dir>` (via `.partial`, renamed when whole) before recording the episode.

A task whose worker process dies (killed, out of memory, its machine gone) is submitted once more; a
second death records the episode as an error, "worker died: …", as the process pool does.

Ctrl-C (SIGINT, SIGTERM or SIGHUP to the driver): stop launching and cancel the tasks in flight
(Ray raises KeyboardInterrupt in them: the episode stops its arm and ends interrupted, and is not
recorded); a second Ctrl-C kills their workers at once.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import shutil
import signal
import tarfile
import tempfile
import threading
import uuid
from collections import Counter, deque
from pathlib import Path
from typing import Any

from owl_bt.bench.config import BenchConfig
from owl_bt.bench.ray_address import check_reachable
from owl_bt.bench.runner import Job, Recorder, _error_record, died_twice, run_one
from owl_bt.errors import DiskFullError, OwlError, UsageError, disk_error
from owl_bt.runfolder import remove_leftover
from owl_bt.stops import signal_words

TOKEN_NAME = ".ray-token"  # in the bench folder while a Ray bench runs: who can see the folder
POLL_S = 0.5  # seconds between checks for finished tasks and signals


class RayEngine:
    """Runs `todo` (Jobs) as Ray tasks and hands each finished record to `record`."""

    def __init__(self, cfg: BenchConfig, record: Recorder) -> None:
        self.cfg, self.record, self.outcome = cfg, record, record.outcome
        self.token = uuid.uuid4().hex
        self.stopping = False
        self.crashes: Counter[tuple[str, int, str]] = Counter()

    def _signal(self, signum: int, frame: object) -> None:
        if self.stopping:
            raise KeyboardInterrupt  # the second Ctrl-C: kill the workers
        self.stopping = True
        self.outcome.interrupted = True
        self.outcome.stopped_by = signal_words(signum)

    def run(self, todo: deque[Job]) -> None:
        """Run every job of `todo` (popped as launched); returns when all are recorded or stopped."""
        import ray

        started = self._connect(ray)
        token = self.cfg.out / TOKEN_NAME
        main = threading.current_thread() is threading.main_thread()
        stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        old = {sig: signal.signal(sig, self._signal) for sig in stops} if main else {}
        try:
            token.write_text(self.token, encoding="utf-8")
            task = ray.remote(num_cpus=1, max_retries=0)(episode_task)
            self._loop(ray, task, todo)
        except OSError as exc:
            raise disk_error(exc, token) or OwlError(
                f"cannot write {token}: {exc.strerror or exc}"
            ) from None
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            token.unlink(missing_ok=True)
            if started:
                ray.shutdown()

    def _connect(self, ray: Any) -> bool:
        """Start or join Ray; True when this engine started it (and so shuts it down). A local Ray
        that does not come up (Ray gives its node 30 s, which a busy machine can miss) is tried once
        more; a second failure, or a cluster that cannot be joined, is one line (OwlError)."""
        if ray.is_initialized():
            return False
        quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report sent from a bench
        tries = 1 if self.cfg.address is not None else 2
        if self.cfg.address is not None:
            check_reachable(self.cfg.address)
        for attempt in range(1, tries + 1):
            try:
                if self.cfg.address is None:
                    ray.init(address="local", num_cpus=self.cfg.jobs, **quiet)
                else:
                    ray.init(address=self.cfg.address, **quiet)
                return True
            except Exception as exc:  # Ray raises bare Exception for a node that timed out
                ray.shutdown()  # the processes a failed start left
                if attempt == tries:
                    text = " ".join(str(exc).split()) or type(exc).__name__
                    if self.cfg.address is not None:
                        raise UsageError(
                            f"cannot join the Ray cluster at {self.cfg.address}: {text}"
                        ) from None
                    raise OwlError(f"Ray did not start on this machine: {text}") from None
        return True

    def _remove_left(self, job: Job) -> None:
        """The `.partial` run folder a dead worker left in the bench folder, if no one writes it."""
        try:
            remove_leftover(self.cfg.out / (job.run_dir + ".partial"))
        except OwlError:
            pass

    def _capacity(self, ray: Any) -> int:
        """Episodes in flight at once: the cluster's CPUs (at least 1)."""
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def _loop(self, ray: Any, task: Any, todo: deque[Job]) -> None:
        flight: dict[Any, Job] = {}
        out = str(self.cfg.out.absolute())
        cancelled = False
        try:
            while (todo and not self.stopping) or flight:
                if self.stopping and not cancelled:
                    for ref in flight:
                        ray.cancel(ref)  # KeyboardInterrupt in the task: it ends interrupted
                    cancelled = True
                if todo and not self.stopping:
                    room = self._capacity(ray) - len(flight)
                    while todo and room > 0:
                        job = todo.popleft()
                        named = task.options(name=task_name(job))  # `ray::<name>` in ps
                        flight[named.remote(job, out, self.token)] = job
                        room -= 1
                ready, _ = ray.wait(list(flight), num_returns=1, timeout=POLL_S)
                for ref in ready:
                    job = flight.pop(ref)
                    rec = self._finished(ray, ref, job, todo)
                    if rec is not None:
                        self.record(rec)
        except OwlError:  # a full disk, or episodes.jsonl cannot be written
            self.stopping = True
            for ref in flight:
                ray.cancel(ref)
            raise
        except KeyboardInterrupt:
            for ref in flight:
                ray.cancel(ref, force=True)  # kills the worker processes
            self.outcome.interrupted = True

    def _finished(self, ray: Any, ref: Any, job: Job, todo: deque[Job]) -> dict[str, Any] | None:
        """The record of a finished task, or None when there is none to keep (interrupted, cancelled,
        or its worker died the first time: then the job goes back on `todo`)."""
        from ray.exceptions import RayError, RayTaskError, TaskCancelledError

        try:
            reply = ray.get(ref)
        except TaskCancelledError:
            return None
        except RayTaskError as exc:  # raised outside run_one's own handling (e.g. unpickling)
            return _error_record(job, exc.cause or exc, 0.0)
        except RayError as exc:  # the worker process (or its machine) died
            key = (job.task, job.seed, job.method)
            self.crashes[key] += 1
            if self.crashes[key] >= 2:
                self._remove_left(job)
                return died_twice(job, f" ({type(exc).__name__})")
            if not self.stopping:
                todo.appendleft(job)
            return None
        rec = reply["record"]
        if rec.get("disk_full"):
            raise DiskFullError(rec["disk_full"])
        if rec.get("interrupted"):
            return None
        if reply.get("folder") is not None:
            unpack_run(reply["folder"], self.cfg.out, job.run_dir)
        return rec


def task_name(job: Job) -> str:
    """The Ray task's name for an episode, e.g. "owl-bt berry1-s3 oracle": Ray's task lists and a
    worker process's title (`ray::owl-bt berry1-s3 oracle`) say which episode it runs."""
    return f"owl-bt {job.task}-s{job.seed} {job.method}"


# ---- in the Ray worker -----------------------------------------------------------------------


def episode_task(job: Job, out: str, token: str) -> dict[str, Any]:
    """One episode in a Ray worker: {"record": …} and, when this worker cannot see the bench folder
    `out` (its token file differs or is missing), "folder": the run folder as tar.gz bytes."""
    if _sees(Path(out), token):
        return {"record": run_one(job)}
    with tempfile.TemporaryDirectory(prefix="owl-bt-episode-") as tmp:
        local = Path(tmp) / job.run_dir
        moved = dataclasses.replace(job, cfg=dataclasses.replace(job.cfg, out=local))
        rec = run_one(moved)
        folder = pack_run(local) if local.is_dir() else None
    return {"record": rec, "folder": folder}


def _sees(out: Path, token: str) -> bool:
    try:
        return (out / TOKEN_NAME).read_text(encoding="utf-8") == token
    except OSError:
        return False


def pack_run(folder: Path) -> bytes:
    """The files of a run folder as tar.gz bytes (names relative to the folder)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)
    return buf.getvalue()


def unpack_run(data: bytes, out: Path, rel: str) -> Path:
    """Unpack `pack_run` bytes to `out/rel` through `out/rel.partial` (so a folder without
    `.partial` is whole); returns the folder. A full disk raises DiskFullError."""
    final = out / rel
    partial = final.with_name(final.name + ".partial")
    remove_leftover(partial)
    try:
        partial.mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(partial, filter="data")
        os.replace(partial, final)
    except (OSError, tarfile.TarError) as exc:
        shutil.rmtree(partial, ignore_errors=True)
        if isinstance(exc, OSError):
            raise disk_error(exc, partial) or OwlError(
                f"cannot write the run folder {final}: {exc.strerror or exc}"
            ) from None
        raise OwlError(f"the run folder of {rel} came back damaged: {exc}") from None
    return final
