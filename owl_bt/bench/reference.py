"""The reference figures [ref] (docs/benchmark.md) as data: 10 seeds a task, GPT-4o as the VLM.

Keys are our method names and normalised task names (`task_key`: lower case, letters and
digits only, so "BerryCook" and "berry_cook" both match). Success in %, wall clock in seconds,
samples in continuous samples drawn per episode.
"""

from __future__ import annotations

import re

TASKS: tuple[str, ...] = (
    "Berry1",
    "Citrus",
    "Berry2",
    "BerryCook",
    "FruitSort",
    "Coffee",
    "Mug1",
    "Mug2",
    "Mug3",
    "SoupPour",
)

# What each method's reference row is called in the reference table.
LABELS: dict[str, str] = {
    "owl": "full method",
    "no-back": "no-back",
    "no-cont": "no-cont",
    "direct": "direct",
    "cap-sample": "cap-sample",
    "oracle": 'oracle ("Manual")',
}


def _row(*values: float) -> dict[str, float]:
    return {task_key(t): v for t, v in zip(TASKS, values, strict=True)}


def task_key(name: str) -> str:
    """A task name normalised for lookup: "BerryCook" → "berrycook"."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


# Success rate, % of 10 seeds.
SUCCESS_PCT: dict[str, dict[str, float]] = {
    "owl": _row(100, 100, 100, 60, 100, 100, 100, 100, 70, 90),
    "no-back": _row(100, 90, 100, 60, 80, 100, 40, 30, 0, 0),
    "no-cont": _row(100, 100, 100, 100, 10, 60, 70, 0, 0, 20),
    "direct": _row(100, 100, 100, 0, 0, 0, 0, 0, 20, 0),
    "cap-sample": _row(100, 20, 20, 0, 0, 0, 0, 0, 0, 0),
}
# The "overall" column of the success rows, %.
SUCCESS_OVERALL_PCT: dict[str, float] = {
    "owl": 92,
    "no-back": 60,
    "no-cont": 56,
    "direct": 32,
    "cap-sample": 14,
}

# Wall clock per episode, seconds.
WALL_S: dict[str, dict[str, float]] = {
    "owl": _row(46.9, 108.5, 101.9, 71.4, 154.3, 58.0, 113.2, 140.5, 118.4, 173.8),
    "oracle": _row(13.5, 44.4, 24.8, 19.8, 49.7, 22.2, 45.2, 79.9, 37.6, 81.4),
}

# Continuous samples drawn per episode.
SAMPLES: dict[str, dict[str, float]] = {
    "owl": _row(37.7, 250.3, 181.2, 101.9, 372.4, 167.6, 696.3, 710.0, 1296.3, 1335.1),
    "oracle": _row(42.1, 303.7, 120.6, 43.3, 271.7, 197.8, 365.1, 657.7, 264.4, 832.8),
}

# Share of wall clock spent waiting on the model ("about half", full method only).
MODEL_SHARE: dict[str, float] = {"owl": 0.5}


def lookup(table: dict[str, dict[str, float]], method: str, task: str) -> float | None:
    """The reference figure for (method, task), or None when there is none."""
    return table.get(method, {}).get(task_key(task))


def order(task: str) -> tuple[int, str]:
    """Sort key putting tasks in the benchmark's order, unknown ones after, alphabetically."""
    keys = [task_key(t) for t in TASKS]
    k = task_key(task)
    return (keys.index(k) if k in keys else len(keys), k)


def wall_estimate_s(method: str, task: str) -> float:
    """Roughly how long one episode of `method` on `task` takes, in seconds: the reference method's wall
    clock for that task (WALL_S: the oracle row for `oracle`, the full method's for every other method),
    or the row's mean for a task the reference does not list."""
    row = WALL_S.get(method.split("+")[0], WALL_S["owl"])  # 'owl+faults' runs as owl does
    return row.get(task_key(task), sum(row.values()) / len(row))


def duration_words(seconds: float) -> str:
    """'40 s', '25 min', '2.6 h': a duration as a person reads it."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
