"""Cost against clutter: per method and table size N, what the episodes of a scaling family cost
(`owl-bt bench --tasks scaling`), as a table in summary.md and a plot, `scaling.png`, beside it.

Rows come from the records whose task says how many objects stand on its table and how many its goal
moves (`Task.objects`, `Task.moved`, > 0): per (method, N) over its episodes — success %, mean
continuous samples, median planning seconds (the plan stage, all attempts), the same per moved
object, median perceive seconds, and each stage's share of the time spent in stages (Σ stage s /
Σ all stages' s, over the episodes that say; errors left out as in the main table).
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import Any

PLOT_NAME = "scaling.png"
STAGES = ("perceive", "generate-constraints", "plan", "execute", "replan")


def _sizes(records: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """task name → (objects, moved) for the recorded tasks that say both."""
    from sim import tasks

    found = {}
    for name in {r["task"] for r in records}:
        try:
            task = tasks.get(name)
        except Exception:  # a task of another version's registry: not a row here
            continue
        if task.objects > 0 and task.moved > 0:
            found[name] = (task.objects, task.moved)
    return found


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def scaling_rows(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """{method: [row per N, ascending]}; {} when no record is of a task with a table size."""
    sizes = _sizes(records)
    groups: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for r in records:
        if r["task"] in sizes:
            n, moved = sizes[r["task"]]
            groups.setdefault((r["method"], n, moved), []).append(r)
    out: dict[str, list[dict[str, Any]]] = {}
    for (method, n, moved), recs in sorted(groups.items()):
        measured = [r for r in recs if not r.get("error")]
        timed = [r["stage_s"] for r in measured if isinstance(r.get("stage_s"), dict)]
        plan = [float(t.get("plan") or 0.0) for t in timed]
        total = sum(float(v or 0.0) for t in timed for v in t.values())
        shares = {
            st: (sum(float(t.get(st) or 0.0) for t in timed) / total if total > 0 else None)
            for st in STAGES
        }
        med_plan = _median(plan)
        out.setdefault(method, []).append(
            {
                "objects": n,
                "moved": moved,
                "episodes": len(recs),
                "success_pct": 100.0 * sum(bool(r.get("success")) for r in recs) / len(recs),
                "samples_mean": (
                    sum(float(r.get("samples") or 0) for r in measured) / len(measured)
                    if measured
                    else None
                ),
                "plan_median_s": med_plan,
                "plan_per_moved_s": None if med_plan is None else med_plan / moved,
                "perceive_median_s": _median([float(t.get("perceive") or 0.0) for t in timed]),
                "stage_share": shares,
            }
        )
    return out


def _f(v: float | None, digits: int = 1) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def render_scaling(rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The summary.md lines of the scaling tables (none when there are no rows)."""
    if not rows:
        return []
    lines = [
        "",
        "## Cost against clutter",
        "",
        "Per table size N (objects on the table, the moved ones included): success, mean samples, median "
        "planning seconds, the same per moved object (and against N's smallest table), median perceive "
        f"seconds, and each stage's share of the time in stages. Plot: {PLOT_NAME}.",
    ]
    for method, per_n in rows.items():
        base = per_n[0]["plan_per_moved_s"]
        head = [
            "N",
            "moved",
            "n",
            "success %",
            "samples",
            "plan s",
            "plan s / moved",
            "× smallest N",
        ]
        head += ["perceive s", *(f"{st} %" for st in STAGES)]
        lines += [
            "",
            f"### {method}",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        for row in per_n:
            ratio = (
                row["plan_per_moved_s"] / base
                if base and row["plan_per_moved_s"] is not None
                else None
            )
            cells = [
                str(row["objects"]),
                str(row["moved"]),
                str(row["episodes"]),
                _f(row["success_pct"], 0),
                _f(row["samples_mean"]),
                _f(row["plan_median_s"]),
                _f(row["plan_per_moved_s"]),
                _f(ratio, 2),
                _f(row["perceive_median_s"]),
            ]
            cells += [
                _f(None if v is None else 100 * v, 0)
                for v in (row["stage_share"][st] for st in STAGES)
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def plot_scaling(rows: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """Write the plot (PNG) of `rows` to `path` atomically: planning seconds per moved object against
    N, and the median perceive and plan seconds against N, one line per method. Raises OSError."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for method, per_n in rows.items():
        ns = [r["objects"] for r in per_n]
        left.plot(ns, [r["plan_per_moved_s"] for r in per_n], "o-", label=method)
        right.plot(ns, [r["plan_median_s"] for r in per_n], "o-", label=f"{method} plan")
        right.plot(ns, [r["perceive_median_s"] for r in per_n], "s--", label=f"{method} perceive")
    left.set(xlabel="objects on the table (N)", ylabel="planning s per moved object")
    right.set(xlabel="objects on the table (N)", ylabel="median seconds per episode")
    for ax in (left, right):
        ax.set_xticks(sorted({r["objects"] for per_n in rows.values() for r in per_n}))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_ylim(bottom=0)
    fig.suptitle("owl-bt: cost against clutter")
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fig.savefig(tmp, format="png", dpi=110)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        tmp.unlink(missing_ok=True)
