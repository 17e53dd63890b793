"""Ticks the executive until it finishes, at 20 Hz (measured: `TickStats`).

Ctrl-C (SIGINT, or a KeyboardInterrupt raised by an `on_tick` callback): the arm is stopped first
(backend `stop()`, at once, from the signal), then the stop request goes to the tree, whose safety
guard pre-empts everything on the next tick (the running work is cancelled) so the tree ends; the
runner waits for the worker to return and only then hands back, so the caller writes the run folder
from a quiet state. A second Ctrl-C stops waiting for the tree.
"""

from __future__ import annotations

import signal
import statistics
import threading
import time
from dataclasses import dataclass, field

import py_trees

from owl_bt import stops
from owl_bt.language import sandbox_client
from trees import worker
from trees.blackboard import client
from trees.builder import create_root
from trees.services import Services
from trees.snapshot import log_snapshot, tree_text

TICK_PERIOD_S = 0.05  # 20 Hz
STOP_TICKS = (
    40  # ticks (2 s) the tree gets to end after a stop request before it is stopped outright
)
DRAIN_S = 15.0  # seconds to wait for cancelled work to return before the world is closed


@dataclass
class TickStats:
    """Tick timing: hz (ticks / wall time), busy_hz (the rate while a worker ran: planning, a VLM
    call, a motion), max_gap_s (the longest time between two tick starts), p95_gap_s."""

    ticks: int = 0
    hz: float = 0.0
    busy_ticks: int = 0
    busy_hz: float = 0.0
    max_gap_s: float = 0.0
    p95_gap_s: float = 0.0
    gaps: list[float] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        return {
            "ticks": self.ticks,
            "hz": round(self.hz, 1),
            "busy_ticks": self.busy_ticks,
            "busy_hz": round(self.busy_hz, 1),
            "max_gap_s": round(self.max_gap_s, 3),
            "p95_gap_s": round(self.p95_gap_s, 3),
        }


@dataclass
class RunResult:
    status: py_trees.common.Status
    attempts: int
    ticks: int
    tick_hz: float
    tree_text: str
    interrupted: bool
    blackboard: dict
    tick: TickStats = field(default_factory=TickStats)
    stopped_by: str = (
        ""  # which signal stopped the run ('Ctrl-C (SIGINT)', 'SIGTERM'), '' when none did
    )


class _Sigint:
    """While ticking on the main thread: the first Ctrl-C (or SIGTERM: kill, a timeout, a service
    manager's stop) stops the arm and requests a stop; a second one raises KeyboardInterrupt (stop waiting)."""

    SIGNALS = (
        signal.SIGINT,
        signal.SIGTERM,
        signal.SIGHUP,
    )  # SIGHUP: the terminal closed, the arm must still stop

    def __init__(self, services: Services) -> None:
        self.services = services
        self.old: dict = {}
        self.ticking = True  # False once the tree has ended: a further stop waits for the run's folder (owl_bt.cli)

    def __enter__(self) -> _Sigint:
        if threading.current_thread() is threading.main_thread():
            try:
                for sig in self.SIGNALS:
                    self.old[sig] = signal.signal(sig, self._handle)
            except ValueError:
                pass
        return self

    def _handle(self, signum, frame) -> None:
        if self.services.stop_request.is_set():
            if not self.ticking:  # a second Ctrl-C while the worker winds down keeps the run folder
                return
            raise KeyboardInterrupt
        self.services.stopped_by = stops.signal_words(signum)
        _stop(self.services)

    def __exit__(self, *exc) -> None:
        stops.FINISHING = True  # from here a stop is noted and waits until the run folder is whole
        for sig, handler in self.old.items():
            signal.signal(sig, handler)


def _stop(services: Services) -> None:
    """The arm first, then the checker sandbox (a checker stuck in C must not hold the run up), then
    the request to the tree."""
    try:
        services.backend.stop()
    finally:
        sandbox_client.shared().stop()
        services.stop_request.set()


def run_tree(
    services: Services, instruction: str, max_attempts: int = 4, on_tick=None
) -> RunResult:
    """Build the tree, hand it the services, tick until SUCCESS/FAILURE (or a stop)."""
    py_trees.blackboard.Blackboard.clear()
    sandbox_client.shared().resume()
    seed = client("runner", write=("instruction", "attempt", "history"))
    seed.instruction, seed.attempt, seed.history = instruction, 1, []
    root = create_root(max_attempts)
    tree = py_trees.trees.BehaviourTree(root)
    tree.setup(services=services)
    stats = TickStats()
    starts: list[float] = []
    flags: list[bool] = []
    start = time.monotonic()
    deadline = start
    shown = seed.attempt  # the attempt whose end is snapshotted next (for the run report)
    after_stop = 0
    done = (py_trees.common.Status.SUCCESS, py_trees.common.Status.FAILURE)
    with _Sigint(services) as signals:
        try:
            while root.status not in done:
                if services.stop_request.is_set():
                    after_stop += 1
                    if after_stop > STOP_TICKS:
                        root.stop(py_trees.common.Status.INVALID)
                        break
                t0 = time.monotonic()
                starts.append(t0)
                flags.append(worker.busy())
                tree.tick()
                stats.ticks += 1
                try:
                    if on_tick is not None:
                        on_tick(root)
                except KeyboardInterrupt:
                    _stop(services)
                if seed.attempt != shown:
                    log_snapshot(services.log, root, f"end of attempt {shown}")
                    shown = seed.attempt
                deadline = max(deadline + TICK_PERIOD_S, time.monotonic() - TICK_PERIOD_S)
                worker.wait_finished(
                    deadline - time.monotonic()
                )  # (a work returning ticks the tree at once)
        except KeyboardInterrupt:  # a second Ctrl-C, or one raised inside a tick
            _stop(services)
            root.stop(py_trees.common.Status.INVALID)
        signals.ticking = False
        worker.drain(DRAIN_S)  # nothing may touch the world once the caller closes it
    elapsed = time.monotonic() - start
    _fill(stats, starts, flags, elapsed)
    interrupted = services.stop_request.is_set()
    services.log("tick_rate", **stats.to_dict())
    log_snapshot(services.log, root, "final")
    text = tree_text(root)
    keys = (
        "attempt",
        "plan",
        "constraints",
        "history",
        "failure",
        "failures",
        "executed",
        "interruption",
        "constraints_attempt",
        "plan_attempt",
    )
    reader = client("runner-read", read=keys)
    board = {k: (reader.get(k) if reader.exists(k) else None) for k in keys}
    return RunResult(
        root.status,
        seed.attempt,
        stats.ticks,
        stats.hz,
        text,
        interrupted,
        board,
        stats,
        services.stopped_by,
    )


def _fill(stats: TickStats, starts: list[float], flags: list[bool], elapsed: float) -> None:
    stats.hz = stats.ticks / elapsed if elapsed > 0 else 0.0
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    stats.gaps = gaps
    if gaps:
        stats.max_gap_s = max(gaps)
        stats.p95_gap_s = statistics.quantiles(gaps, n=20)[-1] if len(gaps) >= 20 else max(gaps)
    busy = [
        g for g, flag in zip(gaps, flags, strict=False) if flag
    ]  # a gap starting with a worker running
    stats.busy_ticks = len(busy)
    stats.busy_hz = len(busy) / sum(busy) if busy and sum(busy) > 0 else 0.0
