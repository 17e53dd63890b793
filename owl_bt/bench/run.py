"""Runs a bench: every (task, seed) episode not yet in `episodes.jsonl`, on the engine the
configuration names — worker processes on this machine ("pool", `owl_bt.bench.runner`) or Ray tasks
("ray", `owl_bt.bench.ray_engine`); both hand their records to one Recorder, the only writer of
`episodes.jsonl`.

Before launching, the run folders (and `.partial` folders) of episodes not in `episodes.jsonl` —
left by a bench that was stopped — are removed and listed in `Outcome.removed`; a stopped bench
removes the folders of its unrecorded episodes itself as it ends.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

from owl_bt.bench import episodes
from owl_bt.bench.config import BenchConfig
from owl_bt.bench.ray_engine import RayEngine
from owl_bt.bench.runner import Job, OnDone, Outcome, Recorder, _Pool, plan_jobs
from owl_bt.errors import OwlError
from owl_bt.runfolder import in_use, remove_leftover


def run_bench(cfg: BenchConfig, on_done: OnDone | None = None) -> Outcome:
    """Run the episodes of `cfg` missing from `cfg.out/episodes.jsonl`, appending each as it finishes."""
    path = cfg.out / episodes.FILENAME
    jobs = plan_jobs(cfg)
    done = {episodes.key(r): r for r in episodes.load(path)}
    outcome = Outcome(total=len(jobs))
    todo: deque[Job] = deque()
    for job in jobs:
        rec = done.get((job.task, job.seed, job.method))
        if rec is None:
            todo.append(job)
        else:
            outcome.already += 1
            outcome.successes += bool(rec.get("success"))
    for job in todo:
        for rel in (job.run_dir, job.run_dir + ".partial"):
            if remove_leftover(cfg.out / rel):  # UsageError when a live run writes it
                outcome.removed.append(rel)
    if todo:
        pending = list(todo)
        try:
            if cfg.engine == "ray":
                RayEngine(cfg, Recorder(path, outcome, on_done)).run(todo)
            else:
                _Pool(cfg.jobs, Recorder(path, outcome, on_done)).run(todo)
        finally:
            if outcome.interrupted:
                _remove_unrecorded(cfg.out, pending, outcome)
    return outcome


def _remove_unrecorded(out: Path, jobs: list[Job], outcome: Outcome, wait_s: float = 3.0) -> None:
    """After a stopped bench: the run folders (`.partial` or whole) of episodes that were not recorded
    (in flight when a signal reached the whole process group, killed by a second Ctrl-C, or ended
    and discarded), once no worker writes them any more (up to `wait_s`); a folder still locked then
    is left for the next run to remove."""
    recorded = {(r.get("task"), r.get("seed"), r.get("method")) for r in outcome.records}
    end = time.monotonic() + wait_s
    for job in jobs:
        if (job.task, job.seed, job.method) in recorded:
            continue
        # its folder, too, when the stopped episode wrote it whole: episodes.jsonl does not list it
        for folder in (out / (job.run_dir + ".partial"), out / job.run_dir):
            while folder.exists() and in_use(folder) and time.monotonic() < end:
                time.sleep(0.05)
            try:
                remove_leftover(folder)
            except OwlError:
                pass
