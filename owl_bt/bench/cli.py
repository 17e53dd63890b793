"""`owl-bt bench`: the command's body, kept here so owl_bt/cli.py only declares the options.

Returns the exit code: 0 the bench ran (whatever the episodes' outcomes), 130 stopped by Ctrl-C
(what finished is recorded and summarised); usage errors raise UsageError (exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from owl_bt.bench import episodes
from owl_bt.bench.config import check_out, make_config
from owl_bt.bench.progress import BenchProgress
from owl_bt.bench.runner import run_bench
from owl_bt.bench.summary import MD_NAME, render, write_summary
from owl_bt.errors import UsageError


def bench_command(out: Console, err: Console, method: str, tasks: str, seeds: int | None, seed_list: str | None,
                  out_dir: Path, jobs: int | None, max_attempts: int, budget: int, report_only: bool, quiet: bool,
                  perception: str = "camera", robot: str = "ur5e", faults: str | None = None, fault_seed: int = 0) -> int:
    """Run (or with `report_only` only summarise) a bench; prints summary.md and one last line on stdout."""
    if report_only:
        check_out(out_dir, create=False)
        if not (out_dir / episodes.FILENAME).is_file():
            raise UsageError(f"nothing to report: {out_dir / episodes.FILENAME} does not exist")
        data = write_summary(out_dir)
        sys.stdout.write(render(data))
        print(f"bench: {data['episodes']} episodes summarised in {out_dir / MD_NAME}")
        return 0
    cfg = make_config(method, tasks, seeds, seed_list, out_dir, jobs, budget, max_attempts, perception, robot, faults,
                      fault_seed)
    wanted = {(t, s, m) for t in cfg.tasks for s in cfg.seeds for m in cfg.methods}
    before = _recorded(cfg.out, wanted)
    interrupted = False
    try:
        if quiet:
            interrupted = run_bench(cfg).interrupted
        else:
            ok = sum(bool(r.get("success")) for r in before)
            with BenchProgress(err, " and ".join(cfg.methods), cfg.episodes, len(before), ok) as bar:
                interrupted = run_bench(cfg, on_done=bar).interrupted
    except KeyboardInterrupt:  # outside the pool's own Ctrl-C handling (e.g. while workers started)
        interrupted = True
    data = write_summary(cfg.out)
    sys.stdout.write(render(data))
    after = _recorded(cfg.out, wanted)
    ok = sum(bool(r.get("success")) for r in after)
    where = cfg.out / MD_NAME
    if interrupted:
        err.print(f"owl-bt: bench stopped by Ctrl-C: {len(after)} of {cfg.episodes} episodes recorded; summary in {where}",
                  markup=False, soft_wrap=True)
        return 130
    print(f"bench: {len(after)} of {cfg.episodes} episodes recorded ({len(after) - len(before)} new), {ok} succeeded; "
          f"summary in {where}")
    return 0


def _recorded(out: Path, wanted: set[episodes.Key]) -> list[dict]:
    """The records of `out/episodes.jsonl` whose (task, seed, method) is in `wanted`."""
    return [r for r in episodes.load(out / episodes.FILENAME) if episodes.key(r) in wanted]
