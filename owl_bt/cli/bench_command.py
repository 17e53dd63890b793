"""`owl-bt bench`: the command's body, kept apart so `owl_bt.cli.bench` only declares the options.

Returns the exit code: 0 the bench ran (whatever the episodes' outcomes), 130 stopped by Ctrl-C
(what finished is recorded and summarised); usage errors raise UsageError (exit 2), a full disk
DiskFullError (exit 1). Lines of episodes.jsonl that are not counted are each named on stderr
(`owl-bt: warning: file:line: …`, at most MAX_WARNINGS of them) and listed in summary.md.
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

from rich.console import Console

from owl_bt.bench import episodes
from owl_bt.bench.config import check_out, check_same_setup, make_config
from owl_bt.bench.progress import BenchProgress
from owl_bt.bench.run import run_bench
from owl_bt.bench.summary import MD_NAME, render, write_summary
from owl_bt.errors import UsageError, disk_error

MAX_WARNINGS = 10
LOCK_NAME = ".bench.lock"


def bench_command(
    out: Console,
    err: Console,
    method: str,
    tasks: str,
    seeds: int | None,
    seed_list: str | None,
    out_dir: Path,
    jobs: int | None,
    max_attempts: int,
    budget: int,
    report_only: bool,
    quiet: bool,
    perception: str = "camera",
    robot: str = "ur5e",
    faults: str | None = None,
    fault_seed: int = 0,
    skeletons: int = 5,
    plan_time: float = 900.0,
    engine: str = "pool",
    address: str | None = None,
    vlm: str = "offline",
) -> int:
    """Run (or with `report_only` only summarise) a bench; prints summary.md and one last line on stdout."""
    if report_only:
        check_out(out_dir, create=False)
        if not (out_dir / episodes.FILENAME).is_file():
            raise UsageError(f"nothing to report: {out_dir / episodes.FILENAME} does not exist")
        loaded = _read(out_dir, err)
        data = _summary(out_dir, loaded)
        sys.stdout.write(render(data))
        print(
            f"bench: {data['episodes']} episode{'' if data['episodes'] == 1 else 's'} summarised in {out_dir / MD_NAME}"
            + (f" ({len(loaded.problems)} lines not counted)" if loaded.problems else "")
        )
        return 0
    cfg = make_config(
        method,
        tasks,
        seeds,
        seed_list,
        out_dir,
        jobs,
        budget,
        max_attempts,
        perception,
        robot,
        faults,
        fault_seed,
        skeletons,
        plan_time,
        engine,
        address,
        vlm,
    )
    with _locked(cfg.out):
        loaded = _read(cfg.out, err)
        check_same_setup(cfg, loaded.records)
        wanted = {(t, s, m) for t in cfg.tasks for s in cfg.seeds for m in cfg.methods}
        before = [r for r in loaded.records if episodes.key(r) in wanted]
        interrupted, stopped_by = False, ""
        if not quiet:
            err.print(
                _what_will_run(cfg, wanted - {episodes.key(r) for r in before}),
                markup=False,
                soft_wrap=True,
            )
        stops = _Stops()  # a signal once the episodes are done: the summary is written whole first
        try:
            try:
                if quiet:
                    outcome = run_bench(
                        cfg
                    )  # (its workers' pool takes Ctrl-C and SIGTERM over while it runs)
                else:
                    ok = sum(bool(r.get("success")) for r in before)
                    with BenchProgress(
                        err, " and ".join(cfg.methods), cfg.episodes, len(before), ok
                    ) as bar:
                        outcome = run_bench(cfg, on_done=bar)
                stops.done = True
                interrupted, stopped_by = outcome.interrupted, outcome.stopped_by
                if outcome.removed:
                    err.print(
                        f"owl-bt: removed {len(outcome.removed)} run folder(s) of episodes not in "
                        f"{episodes.FILENAME} (left by a stopped bench; run again): {', '.join(outcome.removed)}",
                        markup=False,
                        soft_wrap=True,
                    )
            except (
                KeyboardInterrupt
            ):  # outside the pool's own Ctrl-C handling (e.g. while workers started)
                stops.done = True
                interrupted, stopped_by = True, stops.early
            return _report(cfg, err, wanted, before, interrupted, stopped_by, stops.late)
        finally:
            stops.restore()


def _report(
    cfg,
    err: Console,
    wanted: set,
    before: list,
    interrupted: bool,
    stopped_by: str,
    late: list[str],
) -> int:
    """Write the summary, print it and the last line; the exit code (130 when stopped, also by a signal
    that came once the episodes were done: `late`)."""
    after_loaded = episodes.read(cfg.out / episodes.FILENAME)
    data = _summary(cfg.out, after_loaded)
    sys.stdout.write(render(data))
    after = [r for r in after_loaded.records if episodes.key(r) in wanted]
    ok = sum(bool(r.get("success")) for r in after)
    where = cfg.out / MD_NAME
    if late and not interrupted:
        interrupted, stopped_by = True, f"{late[0]} (after the last episode)"
    if interrupted:
        err.print(
            f"owl-bt: bench stopped by {stopped_by or 'Ctrl-C'}: {len(after)} of {cfg.episodes} episodes recorded; "
            f"summary in {where}",
            markup=False,
            soft_wrap=True,
        )
        return 130
    print(
        f"bench: {len(after)} of {cfg.episodes} episodes recorded ({len(after) - len(before)} new), {ok} succeeded; "
        f"summary in {where}"
    )
    return 0


class _Stops:
    """Ctrl-C, SIGTERM and SIGHUP for the whole bench command (the workers' pool takes them over while
    it runs): before the episodes are done, a KeyboardInterrupt (the bench stops; `early` names the
    signal); once they are, noted in `late` while the summary is written and the last line said (stopped
    there, the bench exited 143 or 129 with no line at all). Only in the main thread, where signals are
    delivered; `restore()` puts the handlers before back."""

    def __init__(self) -> None:
        import signal
        import threading

        self.done, self.early, self.late = False, "", []
        self._old: dict = {}
        if threading.current_thread() is threading.main_thread():
            self._old = {
                sig: signal.signal(sig, self._on_signal)
                for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
            }

    def _on_signal(self, signum: int, frame: object) -> None:
        from owl_bt.stops import signal_words

        if self.done:
            self.late.append(signal_words(signum))
            return
        self.early = self.early or signal_words(signum)
        raise KeyboardInterrupt

    def restore(self) -> None:
        """Put the handlers before back; in the `owl-bt` program itself, ignore the signals from here:
        the last line is said, only the exit is left."""
        import signal

        from owl_bt import cli

        for (
            sig,
            handler,
        ) in self._old.items():  # (ignored, not only noted: Python's exit puts the default back)
            signal.signal(sig, signal.SIG_IGN if cli.PROGRAM else handler)


def _what_will_run(cfg, todo: set[tuple[str, int, str]]) -> str:
    """One line before a bench starts: how many episodes will run, of what, and roughly how long they
    take on `cfg.jobs` workers at the reference method's wall clock per task."""
    from owl_bt.bench import reference

    if not todo:
        said = "the episode is" if cfg.episodes == 1 else f"all {cfg.episodes} episodes are"
        return f"owl-bt: bench: {said} recorded in {cfg.out / episodes.FILENAME}; nothing to run"
    seeds = f"{len(cfg.seeds)} seed{'s' if len(cfg.seeds) != 1 else ''}"
    what = f"{len(cfg.tasks)} task{'s' if len(cfg.tasks) != 1 else ''} × {seeds}" + (
        f" × {len(cfg.methods)} ({' and '.join(cfg.methods)})"
        if len(cfg.methods) > 1
        else f", method {cfg.method}"
    )
    done = f"; {cfg.episodes - len(todo)} already recorded" if len(todo) < cfg.episodes else ""
    workers = min(cfg.jobs, len(todo))
    total = sum(reference.wall_estimate_s(m, t) for t, _, m in todo) / workers
    return (
        f"owl-bt: bench: {len(todo)} episode{'s' if len(todo) != 1 else ''} to run ({what}{done}) on {workers} "
        f"worker{'s' if workers != 1 else ''}: up to roughly {reference.duration_words(total)} (the reference method's "
        "wall clock per task; offline episodes are often much quicker); Ctrl-C stops it, the same command resumes it"
    )


def _read(out: Path, err: Console) -> episodes.Loaded:
    """episodes.jsonl read and checked; each line not counted is one warning on stderr."""
    loaded = episodes.read(out / episodes.FILENAME)
    for line in loaded.problems[:MAX_WARNINGS]:
        err.print(f"owl-bt: warning: {line}", markup=False, soft_wrap=True)
    if len(loaded.problems) > MAX_WARNINGS:
        err.print(
            f"owl-bt: warning: … and {len(loaded.problems) - MAX_WARNINGS} more lines not counted "
            f"(all listed in {out / MD_NAME})",
            markup=False,
            soft_wrap=True,
        )
    return loaded


def _summary(out: Path, loaded: episodes.Loaded) -> dict:
    """write_summary, with a full disk as DiskFullError and any other write failure as UsageError."""
    try:
        return write_summary(out, loaded)
    except OSError as exc:
        raise disk_error(exc, out / MD_NAME) or UsageError(
            f"cannot write the summary in {out}: {exc.strerror}"
        ) from None


class _locked:
    """Holds an exclusive lock on `<bench folder>/.bench.lock` while a bench runs in it: a second
    bench into the same folder is a usage error rather than a second writer of episodes.jsonl."""

    def __init__(self, out: Path) -> None:
        self.path = out / LOCK_NAME
        self.fd = -1

    def __enter__(self) -> _locked:
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise disk_error(exc, self.path) or UsageError(
                f"cannot write in the bench folder {self.path.parent}: {exc.strerror}"
            ) from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise UsageError(
                f"another bench is running in {self.path.parent}; wait for it or choose another --out"
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)
