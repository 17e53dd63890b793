"""The benchmark metrics (docs/benchmark.md) per method and task, next to the reference: `summary.md` and
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

import collections
import json
import math
import os
import statistics
from pathlib import Path
from typing import Any

from owl_bt.bench import episodes, methods, reference
from owl_bt.bench.methods import FAULTS_SUFFIX
from owl_bt.bench.scaling import PLOT_NAME, plot_scaling, render_scaling, scaling_rows
from owl_bt.faults import KINDS as FAULT_KINDS

MD_NAME, JSON_NAME = "summary.md", "summary.json"
MAX_LISTED = 20  # problem lines listed in summary.md (summary.json has all)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def stats(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of a group of episode records (percentages in %, times in s)."""
    n = len(recs)
    ok = sum(bool(r.get("success")) for r in recs)
    fp = sum(bool(r.get("declared_success")) and not r.get("success") for r in recs)
    p = ok / n if n else 0.0
    measured = [r for r in recs if not r.get("error")]
    wall = [float(r.get("wall_s") or 0.0) for r in measured]
    model = sum(float(r.get("model_s") or 0.0) for r in measured)
    return {
        "episodes": n,
        "successes": ok,
        "false_positives": fp,
        "errors": n - len(measured),
        "success_pct": 100.0 * p if n else None,
        "success_se_pct": 100.0 * math.sqrt(p * (1 - p) / n) if n else None,
        "soundness_pct": 100.0 * (1 - fp / n) if n else None,
        "samples_mean": _mean([float(r.get("samples") or 0) for r in measured]),
        "wall_median_s": statistics.median(wall) if wall else None,
        "skeletons_mean": _mean([float(r.get("skeletons") or 0) for r in measured]),
        "queries_mean": _mean([float(r.get("queries") or 0) for r in measured]),
        "model_share": model / sum(wall) if wall and sum(wall) > 0 else None,
        "guard_rejections": sum(int(r.get("guard_rejections") or 0) for r in recs),
        "stage_median_s": _stage_medians(measured),
    }


STAGES = (
    "perceive",
    "generate-constraints",
    "plan",
    "execute",
    "replan",
)  # the executive's stages, in the tree's order


def _stage_medians(recs: list[dict[str, Any]]) -> dict[str, float]:
    """Median seconds per episode in each stage (owl_bt.bench.runner.stage_seconds; a stage an episode did not
    reach counts 0 s), over the records that say (those of older benches do not): {} when none does."""
    timed = [r["stage_s"] for r in recs if isinstance(r.get("stage_s"), dict) and r["stage_s"]]
    if not timed:
        return {}
    return {st: statistics.median(float(t.get(st) or 0.0) for t in timed) for st in STAGES}


def _ratio(value: float | None, ref: float | None) -> float | None:
    return value / ref if value is not None and ref else None


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """{"methods": {method: {description, reference, tasks: {task: stats + ref_*}, overall: stats + ref_*}}}."""
    by_method: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in records:
        by_method.setdefault(str(r["method"]), {}).setdefault(str(r["task"]), []).append(r)
    order = list(methods.METHODS)
    result: dict[str, Any] = {"episodes": len(records), "code": _codes(records), "methods": {}}
    for m in sorted(by_method, key=lambda m: (order.index(m) if m in order else len(order), m)):
        tasks: dict[str, Any] = {}
        for t in sorted(by_method[m], key=reference.order):
            s = stats(by_method[m][t])
            s.update(
                ref_success_pct=reference.lookup(reference.SUCCESS_PCT, m, t),
                ref_wall_s=reference.lookup(reference.WALL_S, m, t),
                ref_samples=reference.lookup(reference.SAMPLES, m, t),
            )
            s.update(
                wall_ratio=_ratio(s["wall_median_s"], s["ref_wall_s"]),
                samples_ratio=_ratio(s["samples_mean"], s["ref_samples"]),
            )
            tasks[t] = s
        overall = stats([r for recs in by_method[m].values() for r in recs])
        wr = [s["wall_ratio"] for s in tasks.values() if s["wall_ratio"] is not None]
        sr = [s["samples_ratio"] for s in tasks.values() if s["samples_ratio"] is not None]
        # the reference's overall figure is over its ten tasks: beside a run of fewer, the mean of theirs
        every = {t.lower() for t in reference.TASKS} <= {t.lower() for t in tasks}
        refs = [s["ref_success_pct"] for s in tasks.values() if s["ref_success_pct"] is not None]
        ref_overall = (
            reference.SUCCESS_OVERALL_PCT.get(m) if every else _mean(refs) if refs else None
        )
        overall.update(
            ref_success_pct=ref_overall,
            ref_wall_s=None,
            ref_samples=None,
            wall_ratio=_mean(wr),
            samples_ratio=_mean(sr),
        )
        meta = methods.METHODS.get(m)
        description = meta.description if meta else ""
        if m.endswith(FAULTS_SUFFIX):
            description = _fault_description(m, [r for recs in by_method[m].values() for r in recs])
        result["methods"][m] = {
            "description": description,
            "reference": reference.LABELS.get(m),
            "settings": _settings([r for recs in by_method[m].values() for r in recs]),
            "ref_model_share": reference.MODEL_SHARE.get(m),
            "tasks": tasks,
            "overall": overall,
        }
    faults = fault_recovery(by_method)
    if faults:
        result["faults"] = faults
    return result


SETTINGS = (
    ("vlm", "model", ""),
    ("robot", "robot", ""),
    ("perception", "perception", ""),
    ("budget", "budget", " samples per action"),
    ("max_skeletons", "skeletons", " per round"),
    ("max_attempts", "attempts", ""),
    ("plan_time_s", "plan time", " s"),
)


def _settings(recs: list[dict[str, Any]]) -> dict[str, list]:
    """{record field: its distinct values over `recs`, most episodes first} for the settings an episode
    records (SETTINGS); a field no record has (older benches) is left out."""
    out: dict[str, list] = {}
    for key, _, _ in SETTINGS:
        values = collections.Counter(json.dumps(r[key]) for r in recs if r.get(key) is not None)
        if values:
            out[key] = [json.loads(v) for v, _ in values.most_common()]
    return out


def _settings_line(settings: dict[str, list]) -> str:
    """'Run with: model oracle, robot ur5e, …' ('a or b' where the episodes differ); '' when none is recorded."""
    said = [
        f"{label} {' or '.join(f'{v:g}' if isinstance(v, float) else str(v) for v in settings[key])}{unit}"
        for key, label, unit in SETTINGS
        if settings.get(key)
    ]
    if settings.get("budget") == [
        1
    ]:  # a pick draws grasps beyond a budget of 1: say so, not "1 samples"
        said = [
            s.replace(
                "budget 1 samples per action",
                "budget 1 sample per action (a pick's grasps are the "
                "robot's choice, drawn beyond it)",
            )
            for s in said
        ]
    return f"Run with: {', '.join(said)}." if said else ""


def _fault_description(method: str, recs: list[dict[str, Any]]) -> str:
    spec = next((r.get("faults") for r in recs if r.get("faults")), None) or {}
    return (
        f"{method[: -len(FAULTS_SUFFIX)]} with injected faults: {spec.get('spec') or '?'} "
        f"(--fault-seed {spec.get('seed', '?')})"
    )


def _fault_row(clean: list[dict[str, Any]], faulty: list[dict[str, Any]]) -> dict[str, Any]:
    """Success without and with faults, replans used, faults that fired (per kind) for one task."""
    n, ok = len(faulty), sum(bool(r.get("success")) for r in faulty)
    replans = [
        int(r.get("replans", max(0, int(r.get("attempts") or 1) - 1)) or 0)
        for r in faulty
        if not r.get("error")
    ]
    fired: dict[str, int] = {}
    hit = []
    for r in faulty:
        counts = (r.get("faults") or {}).get("counts") or {}
        for k, v in counts.items():
            fired[k] = fired.get(k, 0) + int(v)
        if sum(int(v) for v in counts.values()):
            hit.append(r)
    return {
        "episodes": n,
        "clean_episodes": len(clean),
        "success_clean_pct": 100.0 * sum(bool(r.get("success")) for r in clean) / len(clean)
        if clean
        else None,
        "success_pct": 100.0 * ok / n if n else None,
        "replans_mean": _mean([float(x) for x in replans]),
        "replans_max": max(replans) if replans else None,
        "fired": fired,
        "episodes_with_faults": len(hit),
        "success_with_faults_pct": 100.0 * sum(bool(r.get("success")) for r in hit) / len(hit)
        if hit
        else None,
        "errors": sum(bool(r.get("error")) for r in faulty),
    }


def fault_recovery(by_method: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """{'<method>+faults': {'spec', 'seed', 'tasks': {task: row}, 'overall': row}} for every fault method."""
    out: dict[str, Any] = {}
    for m, tasks in by_method.items():
        if not m.endswith(FAULTS_SUFFIX):
            continue
        base = by_method.get(m[: -len(FAULTS_SUFFIX)], {})
        recs = [r for rs in tasks.values() for r in rs]
        spec = next((r.get("faults") for r in recs if r.get("faults")), None) or {}
        rows = {
            t: _fault_row(base.get(t, []), tasks[t]) for t in sorted(tasks, key=reference.order)
        }
        overall = _fault_row([r for t in tasks for r in base.get(t, [])], recs)
        out[m] = {
            "spec": spec.get("spec"),
            "seed": spec.get("seed"),
            "tasks": rows,
            "overall": overall,
        }
    return out


def _render_faults(faults: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for m, d in faults.items():
        kinds = sorted(
            {k for row in [*d["tasks"].values(), d["overall"]] for k in row["fired"]},
            key=lambda k: FAULT_KINDS.index(k) if k in FAULT_KINDS else len(FAULT_KINDS),
        )
        head = [
            "task",
            "n",
            "success % without faults",
            "success % with faults",
            "replans mean",
            "replans max",
            *[f"{k} fired" for k in kinds],
            "episodes with a fault",
            "success % of those",
            "errors",
        ]
        lines += [
            "",
            f"## Fault recovery — {m}",
            "",
            f"Faults `{d['spec']}`, fault seed {d['seed']}: the same episodes run without and with them "
            "(within the episodes' attempts: the first and up to 3 replans by default). Rates: grasp-slip per "
            "transport step, knock, knock-off and arm-fault per executed step, miss-detect per observation.",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        for name, row in [*d["tasks"].items(), ("**overall**", d["overall"])]:
            cells = [
                name,
                str(row["episodes"]),
                _f(row["success_clean_pct"]),
                _f(row["success_pct"]),
                _f(row["replans_mean"], 2),
                "—" if row["replans_max"] is None else str(row["replans_max"]),
                *[str(row["fired"].get(k, 0)) for k in kinds],
                str(row["episodes_with_faults"]),
                _f(row["success_with_faults_pct"]),
                str(row["errors"]),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def _f(v: float | None, digits: int = 1) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def _codes(records: list[dict[str, Any]]) -> dict[str, int]:
    """{code version: episodes} over `records` (owl_bt.code_version; 'unrecorded' for lines from before it was kept)."""
    return dict(
        collections.Counter(str(r.get("code") or "unrecorded") for r in records).most_common()
    )


def _code_lines(codes: dict[str, int]) -> list[str]:
    """The summary's line saying which code the episodes ran (a warning when they mix versions)."""
    if not codes:
        return []
    if list(codes) == ["unrecorded"]:
        return ["", "Code: not recorded (these episodes ran before owl-bt recorded it)."]
    if len(codes) == 1:
        return ["", f"Code: {next(iter(codes))} (every episode)."]
    listed = ", ".join(f"{code} ({n})" for code, n in codes.items())
    return ["", f"Code: the episodes ran {len(codes)} versions, so the rows mix them: {listed}."]


def _stage_table(d: dict[str, Any]) -> list[str]:
    """Where the wall clock goes: per task, the median seconds an episode spent in each stage."""
    rows = [
        (name, s["stage_median_s"])
        for name, s in [*d["tasks"].items(), ("**overall**", d["overall"])]
        if s.get("stage_median_s")
    ]
    if not rows:
        return []
    head = ["task", *(f"{st} s" for st in STAGES)]
    return [
        "",
        "Where the wall clock goes (median seconds per episode in each stage of the tree; execution is the "
        "simulated arm's motions run by physics):",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ] + [
        "| " + " | ".join([name, *(_f(med.get(st), 2) for st in STAGES)]) + " |"
        for name, med in rows
    ]


def render(data: dict[str, Any]) -> str:
    """summary.md: one table per method, reference figures next to the measured ones, and the lines
    of episodes.jsonl that were not counted (`data["skipped"]`)."""
    lines = [
        "# owl-bt bench — summary",
        "",
        f"{data['episodes']} episode{'' if data['episodes'] == 1 else 's'}. Success ± binomial standard error; "
        "sound = 1 − false positives / trials; "
        "samples, skeletons, queries: means; wall: median seconds; model: share of wall clock waiting on the model. "
        "`ref`: the reference method's published figures (10 seeds a task, GPT-4o as the VLM); — where it has no figure.",
    ]
    lines += _code_lines(data.get("code") or {})
    for m, d in data["methods"].items():
        ratios = m in reference.WALL_S or m in reference.SAMPLES  # measured / reference, per task
        head = [
            "task",
            "n",
            "success %",
            "ref %",
            "sound %",
            "samples",
            "ref samples",
            "wall s",
            "ref wall s",
        ]
        head += ["samples/ref", "wall/ref"] if ratios else []
        head += ["skeletons", "queries", "model %", "errors"]
        ref = (
            f" Reference row: {d['reference']}."
            if d["reference"]
            else " The reference method published no figures for it."
        )
        if d["ref_model_share"] is not None:
            ref += f" Reference model share: about {d['ref_model_share'] * 100:.0f} %."
        run_with = _settings_line(d.get("settings") or {})
        lines += [
            "",
            f"## {m} — {d['description']}",
            "",
            ref.strip(),
            *(["", run_with] if run_with else []),
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        for name, s in [*d["tasks"].items(), ("**overall**", d["overall"])]:
            share = None if s["model_share"] is None else 100 * s["model_share"]
            row = [
                name,
                str(s["episodes"]),
                f"{_f(s['success_pct'])} ± {_f(s['success_se_pct'])}",
                _f(s["ref_success_pct"], 0),
                _f(s["soundness_pct"]),
                _f(s["samples_mean"]),
                _f(s["ref_samples"]),
                _f(s["wall_median_s"]),
                _f(s["ref_wall_s"]),
            ]
            row += [_f(s["samples_ratio"], 2), _f(s["wall_ratio"], 2)] if ratios else []
            row += [_f(s["skeletons_mean"]), _f(s["queries_mean"]), _f(share, 0), str(s["errors"])]
            lines.append("| " + " | ".join(row) + " |")
        n = d["overall"]["episodes"]
        lines += [
            "",
            f"Safety-guard rejections: {d['overall']['guard_rejections']} over {n} "
            f"episode{'' if n == 1 else 's'} (target 0).",
        ]
        lines += _stage_table(d)
    skipped = data.get("skipped") or []
    if skipped:
        lines += ["", f"## Not counted: {len(skipped)} line(s) of {episodes.FILENAME}", ""]
        lines += [f"- {p}" for p in skipped[:MAX_LISTED]]
        lines += [f"- … and {len(skipped) - MAX_LISTED} more"] if len(skipped) > MAX_LISTED else []

    lines += _render_faults(data.get("faults") or {})
    lines += render_scaling(data.get("scaling") or {})
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
    data["scaling"] = scaling_rows(loaded.records)
    if data["scaling"]:
        plot_scaling(data["scaling"], out / PLOT_NAME)
    write_atomic(out / JSON_NAME, json.dumps(data, indent=2) + "\n")
    write_atomic(out / MD_NAME, render(data))
    return data
