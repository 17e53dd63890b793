"""Metrics of SPEC §8.2 per method and task, next to the SPEC §8.3 reference: `summary.md` and
`summary.json` in the bench folder, each written atomically (temp file, then rename).

Per (method, task) over its episodes: success % ± binomial standard error sqrt(p(1−p)/n)·100;
soundness % = (1 − false positives / trials)·100, a false positive being declared success that the
detector rejects; mean continuous samples; median wall clock (s); mean skeletons tried; mean model
queries; model share = Σ model_s / Σ wall_s. Episodes that raised (`error`) count as failures for
success and soundness but are left out of samples, wall clock, skeletons, queries and model share,
which they did not measure. The overall row pools every episode of the method; its wall/ref and
samples/ref ratios are the means of the per-task ratios.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from pathlib import Path
from typing import Any

from owl_bt.bench import episodes, methods, reference

MD_NAME, JSON_NAME = "summary.md", "summary.json"
MAX_LISTED = 20  # problem lines listed in summary.md (summary.json has all)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def stats(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The SPEC §8.2 metrics of a group of episode records (percentages in %, times in s)."""
    n = len(recs)
    ok = sum(bool(r.get("success")) for r in recs)
    fp = sum(bool(r.get("declared_success")) and not r.get("success") for r in recs)
    p = ok / n if n else 0.0
    measured = [r for r in recs if not r.get("error")]
    wall = [float(r.get("wall_s") or 0.0) for r in measured]
    model = sum(float(r.get("model_s") or 0.0) for r in measured)
    return {
        "episodes": n, "successes": ok, "false_positives": fp, "errors": n - len(measured),
        "success_pct": 100.0 * p if n else None,
        "success_se_pct": 100.0 * math.sqrt(p * (1 - p) / n) if n else None,
        "soundness_pct": 100.0 * (1 - fp / n) if n else None,
        "samples_mean": _mean([float(r.get("samples") or 0) for r in measured]),
        "wall_median_s": statistics.median(wall) if wall else None,
        "skeletons_mean": _mean([float(r.get("skeletons") or 0) for r in measured]),
        "queries_mean": _mean([float(r.get("queries") or 0) for r in measured]),
        "model_share": model / sum(wall) if wall and sum(wall) > 0 else None,
        "guard_rejections": sum(int(r.get("guard_rejections") or 0) for r in recs),
    }


def _ratio(value: float | None, ref: float | None) -> float | None:
    return value / ref if value is not None and ref else None


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """{"methods": {method: {description, reference, tasks: {task: stats + ref_*}, overall: stats + ref_*}}}."""
    by_method: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in records:
        by_method.setdefault(str(r["method"]), {}).setdefault(str(r["task"]), []).append(r)
    order = list(methods.METHODS)
    result: dict[str, Any] = {"episodes": len(records), "methods": {}}
    for m in sorted(by_method, key=lambda m: (order.index(m) if m in order else len(order), m)):
        tasks: dict[str, Any] = {}
        for t in sorted(by_method[m], key=reference.order):
            s = stats(by_method[m][t])
            s.update(ref_success_pct=reference.lookup(reference.SUCCESS_PCT, m, t),
                     ref_wall_s=reference.lookup(reference.WALL_S, m, t),
                     ref_samples=reference.lookup(reference.SAMPLES, m, t))
            s.update(wall_ratio=_ratio(s["wall_median_s"], s["ref_wall_s"]),
                     samples_ratio=_ratio(s["samples_mean"], s["ref_samples"]))
            tasks[t] = s
        overall = stats([r for recs in by_method[m].values() for r in recs])
        wr = [s["wall_ratio"] for s in tasks.values() if s["wall_ratio"] is not None]
        sr = [s["samples_ratio"] for s in tasks.values() if s["samples_ratio"] is not None]
        overall.update(ref_success_pct=reference.SUCCESS_OVERALL_PCT.get(m), ref_wall_s=None, ref_samples=None,
                       wall_ratio=_mean(wr), samples_ratio=_mean(sr))
        meta = methods.METHODS.get(m)
        result["methods"][m] = {
            "description": meta.description if meta else "", "reference": reference.LABELS.get(m),
            "ref_model_share": reference.MODEL_SHARE.get(m), "tasks": tasks, "overall": overall,
        }
    return result


def _f(v: float | None, digits: int = 1) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def render(data: dict[str, Any]) -> str:
    """summary.md: one table per method, reference figures next to the measured ones, and the lines
    of episodes.jsonl that were not counted (`data["skipped"]`)."""
    lines = [
        "# owl-bt bench — summary", "",
        f"{data['episodes']} episodes. Success ± binomial standard error; sound = 1 − false positives / trials; "
        "samples, skeletons, queries: means; wall: median seconds; model: share of wall clock waiting on the model. "
        "`ref`: SPEC §8.3 (10 seeds a task, GPT-4o as the VLM); — where it has no figure.",
    ]
    for m, d in data["methods"].items():
        ratios = m in reference.WALL_S or m in reference.SAMPLES  # measured / reference, per task
        head = ["task", "n", "success %", "ref %", "sound %", "samples", "ref samples", "wall s", "ref wall s"]
        head += ["samples/ref", "wall/ref"] if ratios else []
        head += ["skeletons", "queries", "model %", "errors"]
        ref = f" Reference row: {d['reference']}." if d["reference"] else " SPEC §8.3 has no reference row for it."
        if d["ref_model_share"] is not None:
            ref += f" Reference model share: about {d['ref_model_share'] * 100:.0f} %."
        lines += ["", f"## {m} — {d['description']}", "", ref.strip(), "",
                  "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for name, s in [*d["tasks"].items(), ("**overall**", d["overall"])]:
            share = None if s["model_share"] is None else 100 * s["model_share"]
            row = [name, str(s["episodes"]), f"{_f(s['success_pct'])} ± {_f(s['success_se_pct'])}", _f(s["ref_success_pct"], 0),
                   _f(s["soundness_pct"]), _f(s["samples_mean"]), _f(s["ref_samples"]), _f(s["wall_median_s"]),
                   _f(s["ref_wall_s"])]
            row += [_f(s["samples_ratio"], 2), _f(s["wall_ratio"], 2)] if ratios else []
            row += [_f(s["skeletons_mean"]), _f(s["queries_mean"]), _f(share, 0), str(s["errors"])]
            lines.append("| " + " | ".join(row) + " |")
        lines += ["", f"Safety-guard rejections: {d['overall']['guard_rejections']} over {d['overall']['episodes']} "
                      "episodes (target 0)."]
    skipped = data.get("skipped") or []
    if skipped:
        lines += ["", f"## Not counted: {len(skipped)} line(s) of {episodes.FILENAME}", ""]
        lines += [f"- {p}" for p in skipped[:MAX_LISTED]]
        lines += [f"- … and {len(skipped) - MAX_LISTED} more"] if len(skipped) > MAX_LISTED else []
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary sibling and rename; on failure (OSError, e.g. a full disk) the
    temporary file is removed and `path` is left as it was."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def write_summary(out: Path, loaded: episodes.Loaded | None = None) -> dict[str, Any]:
    """Summarise `out/episodes.jsonl` (or what was `loaded` from it) into `out/summary.md` and
    `out/summary.json`; returns the data, with `skipped`: the problems of the lines not counted.
    Raises OSError when the files cannot be written (neither is then left half-written)."""
    loaded = loaded or episodes.read(out / episodes.FILENAME)
    data = summarise(loaded.records)
    data["skipped"] = list(loaded.problems)
    write_atomic(out / JSON_NAME, json.dumps(data, indent=2) + "\n")
    write_atomic(out / MD_NAME, render(data))
    return data
