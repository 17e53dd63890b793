"""Ticks the executive until it finishes: ≥ 10 Hz, Ctrl-C stops the arm first, then the tree."""

from __future__ import annotations

import time
from dataclasses import dataclass

import py_trees

from owl_bt.report.snapshot import log_snapshot
from trees.blackboard import client
from trees.builder import create_root
from trees.services import Services

TICK_PERIOD_S = 0.05  # 20 Hz


@dataclass
class RunResult:
    status: py_trees.common.Status
    attempts: int
    ticks: int
    tick_hz: float
    tree_text: str
    interrupted: bool
    blackboard: dict


def run_tree(services: Services, instruction: str, max_attempts: int = 4, on_tick=None) -> RunResult:
    """Build the tree, hand it the services, tick until SUCCESS/FAILURE (or Ctrl-C)."""
    py_trees.blackboard.Blackboard.clear()
    seed = client("runner", write=("instruction", "attempt", "history"))
    seed.instruction, seed.attempt, seed.history = instruction, 1, []
    root = create_root(max_attempts)
    tree = py_trees.trees.BehaviourTree(root)
    tree.setup(services=services)
    ticks, interrupted = 0, False
    start = time.monotonic()
    shown = seed.attempt  # the attempt whose end is snapshotted next (for the run report)
    try:
        while root.status not in (py_trees.common.Status.SUCCESS, py_trees.common.Status.FAILURE):
            t0 = time.monotonic()
            tree.tick()
            ticks += 1
            if on_tick is not None:
                on_tick(root)
            if seed.attempt != shown:
                log_snapshot(services.log, root, f"end of attempt {shown}")
                shown = seed.attempt
            time.sleep(max(0.0, TICK_PERIOD_S - (time.monotonic() - t0)))
    except KeyboardInterrupt:
        interrupted = True
        services.backend.stop()
        root.stop(py_trees.common.Status.INVALID)
    elapsed = time.monotonic() - start
    log_snapshot(services.log, root, "final")
    text = py_trees.display.unicode_tree(root, show_status=True)
    keys = ("attempt", "plan", "constraints", "history", "failure", "executed")
    reader = client("runner-read", read=keys)
    board = {k: (reader.get(k) if reader.exists(k) else None) for k in keys}
    return RunResult(root.status, seed.attempt, ticks, ticks / elapsed if elapsed > 0 else 0.0, text, interrupted, board)
