"""The run report: `report.md` and `report.html` tying a run folder together (docs/usage.md).

Read from the folder itself — `plan.json`, `events.jsonl` (with the executive's tree snapshots),
`speech.json` (a spoken goal), `transcript.json`, `initial.png`, `final.png` — so it can be
rebuilt for any finished folder with `write_report(path)`. Also writes the final tree as
`tree.dot` and, where Graphviz is installed, `tree.png`.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import traceback
from pathlib import Path

from owl_bt import safe_json
from owl_bt.errors import NO_SPACE
from owl_bt.language.checker_names import called_helpers, count_line, split_checkers
from owl_bt.report import final_state
from owl_bt.report.events import RunLog, read_events, stage_times
from owl_bt.report.html import markdown_to_html

# Which frame "left of" means, said wherever a person compares a goal with the pictures (sim/camera.py: both the
# render and the head camera look from across the table back at the robot, so they show its left on their right).
DIRECTIONS = (
    "Directions are the robot's: \"left of\" is the robot's left (+y), the right-hand side of initial.png, "
    'final.png and perception-<n>.png, which look at the robot from across the table; "behind" is farther from '
    "the robot (lower in those pictures, nearer the camera)."
)


def _json(path: Path) -> dict | list | None:
    try:
        return safe_json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _object(path: Path) -> dict | None:
    """A JSON object file's content; None when it is missing, unreadable or not an object."""
    data = _json(path)
    return data if isinstance(data, dict) else None


def _fence(text: str, lang: str = "text") -> str:
    """`text` as a fenced code block whose fence is longer than any run of backticks inside it."""
    text = str(text).rstrip()
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_tree_files(folder: Path, dot: str | None) -> str:
    """Write tree.dot (and tree.png through Graphviz's `dot`); returns a note for the report."""
    if not dot:
        return "(no Graphviz source: install pydot)"
    dot = dot.replace(
        '\\ninvalid"', '\\ndid not run"'
    )  # py_trees' word for a behaviour that has not run, as tree.txt says it
    (folder / "tree.dot").write_text(dot, encoding="utf-8")
    try:  # Graphviz's own `dot` on the file: parsing the text back into pydot took a fifth of a short run
        exe = shutil.which("dot")
        if exe is None:
            raise FileNotFoundError("Graphviz's dot is not on PATH")
        png = subprocess.run(
            [exe, "-Tpng", str(folder / "tree.dot")], capture_output=True, timeout=60, check=True
        ).stdout
        (folder / "tree.png").write_bytes(png)
    except Exception as exc:  # Graphviz's `dot` missing or failing: the .dot file is still there
        if isinstance(exc, OSError) and exc.errno in NO_SPACE:
            (folder / "tree.png").unlink(missing_ok=True)
            raise
        return (
            f"tree.png could not be drawn ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
            "install Graphviz (apt-get install graphviz)"
        )
    return ""


def build_markdown(folder: Path, log: RunLog) -> str:
    """The report's Markdown for a run folder and its event log."""
    plan = _object(folder / "plan.json") or {}
    speech = _object(folder / "speech.json")
    result = plan.get("result") or log.end or {}
    start = log.start
    instruction = plan.get("instruction") or start.get("instruction", "")
    title = instruction.splitlines()[0] if instruction else "(no instruction)"
    # the person's words, shown as text: no markup or control characters get into the page
    title = html.escape("".join(c for c in title if c.isprintable()))
    ok = result.get("success")
    md = [f"# Run report: {title}", ""]
    verdict = "**success**" if ok else ("**not done**" if ok is not None else "**unfinished**")
    md += [f"Outcome: {verdict}", ""]
    if result.get("failure"):
        md += [f"Last failure: {result['failure']}", ""]
    if result.get("holding") and not ok:
        md += [
            f"The arm still holds the {str(result['holding']).replace('_', ' ')} at the end.",
            "",
        ]
    if result.get("detector"):
        md += [f"Detector: {result['detector']}", ""]
    md += _outcome_pictures(folder)
    ended = log.final_state or {}
    if isinstance(ended.get("objects"), list):
        md += final_state.markdown(
            [r for r in ended["objects"] if isinstance(r, dict)], str(ended.get("source", ""))
        )
    executed = result.get("executed") or []
    nothing = (
        "(nothing: the goal already held in the observed scene)"
        if result.get("success")
        else "(nothing)"
    )
    md += [f"Executed: {', '.join(f'`{a}`' for a in executed) or nothing}", ""]
    md += [
        f"Task `{plan.get('task', start.get('task', '?'))}`, seed {plan.get('seed', start.get('seed', '?'))}, "
        f"constraint generator `{start.get('vlm', '?')}`, perception `{start.get('perception', '?')}`, "
        f"arm `{start.get('robot', '?')}` on `{start.get('backend', 'sim')}`"
        + (" (dry run: the arm was not moved)" if start.get("dry_run") else ""),
        "",
        "| attempts | wall clock | model time | samples (all attempts) | skeletons | model queries | tick rate |",
        "|---|---|---|---|---|---|---|",
        f"| {result.get('attempts', len(log.attempts))} | {result.get('wall_s', '?')} s | {result.get('model_s', '?')} s "
        f"| {result.get('samples', '?')} | {result.get('skeletons', '?')} | {result.get('queries', '?')} "
        f"| {result.get('tick_hz', '?')} Hz |",
        "",
    ]
    md += ["## Goal", "", _fence(instruction), ""]
    if speech:
        audio = " ([goal.wav](goal.wav))" if (folder / "goal.wav").exists() else ""
        md += [
            f"Spoken{audio}: heard **“{speech.get('text', '')}”** by `{speech.get('backend', '?')}` from "
            f"`{speech.get('source', '?')}` ({speech.get('audio_s', '?')} s of audio, decoded in "
            f"{speech.get('decode_s', '?')} s); "
            + (
                "confirmed at the prompt."
                if speech.get("confirmed")
                else "not confirmed (no --interactive)."
            ),
            "",
        ]
    md += ["## Scene", ""]
    first = log.attempts[0].perceived if log.attempts else None
    if (folder / "initial.png").exists():
        seen = (
            " The perceive stage's own camera view is [perception-1.png](perception-1.png)."
            if (folder / "perception-1.png").exists()
            else ""
        )
        md += [
            "![the scene before the run, from the overview camera](initial.png)",
            "",
            DIRECTIONS + seen,
            "",
        ]
    if first and first.get("objects"):
        md += [
            f"Perceived by `{first.get('source', '?')}` (x, y, z m; roll, pitch, yaw rad):",
            "",
            "| object | pose |",
            "|---|---|",
        ]
        md += [f"| {_cell(n)} | {_cell(tuple(p))} |" for n, p in first["objects"].items()]
        md += [""]
    shown: dict[tuple[str, str], int] = {}  # (function, source) → the attempt that printed it
    for att in log.attempts:
        md += _attempt(att, shown)
    steps = plan.get("steps") or []
    if steps:
        md += ["## Grounded plan", ""]
        kept = sum(s.get("samples") or 0 for s in steps)
        total = result.get("samples")
        rest = (
            f" The kept steps drew {kept} of the run's {total} samples; the others went to draws refused on the way "
            "(backtracking to earlier steps, other skeletons, earlier attempts)."
            if isinstance(total, int) and total > kept
            else ""
        )
        md += [
            "Grounded plan of the last attempt (sampled parameters; samples: the draws of each step's kept "
            f"refinement).{rest}",
            "",
            "| # | action | samples | parameters |",
            "|---|---|---|---|",
        ]
        for i, s in enumerate(steps, 1):
            params = ", ".join(f"{k}={_short(v)}" for k, v in (s.get("params") or {}).items())
            md.append(
                f"| {i} | `{_cell(s.get('action'))}` | {s.get('samples', '')} | {_cell(params)} |"
            )
        md += [""]
    md += ["## Tree", ""]
    final = log.final_tree
    if final:
        md += [_fence(final.get("text", "")), ""]
        if (folder / "tree.png").exists():
            md += ["![the final tree (Graphviz)](tree.png)", ""]
        md += ["Graphviz source: [tree.dot](tree.dot); text: [tree.txt](tree.txt)", ""]
    elif (folder / "tree.txt").exists():
        md += [_fence((folder / "tree.txt").read_text(encoding="utf-8")), ""]
    md += ["## Timings", ""]
    if log.started and log.ended:
        md += [
            f"From the first to the last event: {(log.ended - log.started).total_seconds():.2f} s.",
            "",
        ]
    md += ["| attempt | stage | seconds |", "|---|---|---|"]
    for att in log.attempts:
        md += [
            f"| {att.number} | {_cell(stage)} | {secs:.2f} |" for stage, secs in stage_times(att)
        ]
    tick = result.get("tick") or {}
    if tick:
        md += [
            "",
            f"The tree ticked {tick.get('ticks', '?')} times at {tick.get('hz', '?')} Hz on average, "
            f"{tick.get('busy_hz', '?')} Hz while a worker ran (perception, planning, a model call, a motion: "
            f"{tick.get('busy_ticks', '?')} ticks); 95 % of the gaps between ticks were at most "
            f"{tick.get('p95_gap_s', '?')} s, the longest {tick.get('max_gap_s', '?')} s.",
        ]
    faults = result.get("faults") or {}
    if faults:
        md += [
            "",
            "## Injected faults",
            "",
            f"`--faults {faults.get('spec', '?')} --fault-seed {faults.get('seed', '?')}`: "
            + (
                ", ".join(f"{k} {v}" for k, v in (faults.get("counts") or {}).items())
                or "none fired"
            )
            + ".",
            "",
        ]
        injected = faults.get("injected") or []
        if injected:
            md += ["| kind | during / after | object | details |", "|---|---|---|---|"]
            for rec in injected:
                details = ", ".join(
                    f"{k}={_short(v)}"
                    for k, v in rec.items()
                    if k not in ("kind", "step", "object")
                )
                md.append(
                    f"| {_cell(rec.get('kind'))} | `{_cell(rec.get('step', ''))}` | {_cell(rec.get('object', ''))} "
                    f"| {_cell(details)} |"
                )
    md += ["", "## Files", ""]
    notes = {
        "events.jsonl": "every event, one JSON object a line",
        "plan.json": "sketch, checkers, grounded steps, result",
        "transcript.json": "prompts and model answers, one list per attempt",
        "speech.json": "the spoken goal",
        "tree.txt": "the final tree",
        "tree.dot": "the final tree (Graphviz)",
        "report.html": "this report as HTML",
        "run.gif": "the execution, from the overview camera",
        "run.rrd": "the run in 3D for the rerun viewer (run --rerun): `rerun run.rrd`",
    }
    names = {p.name for p in folder.iterdir() if p.is_file() and not p.name.endswith(".tmp")} | {
        "report.html"
    }
    for name in sorted(names - {"report.md"}):
        md.append(f"- [{name}]({name})" + (f" — {notes[name]}" if name in notes else ""))
    return "\n".join(md) + "\n"


def _outcome_pictures(folder: Path) -> list[str]:
    """The video of the execution (run.gif) and the before/after images, where the folder has them."""
    md: list[str] = []
    if (folder / "run.gif").exists():
        md += ["![the execution, from the overview camera (run.gif)](run.gif)", ""]
    if (folder / "final.png").exists():
        md += [
            "| before | after |",
            "|---|---|",
            "| ![before](initial.png) | ![after](final.png) |",
            "",
        ]
    return md


def _short(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, list | tuple):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    return str(v)


def _step_result(ok: bool | str) -> str:
    """A step's row in an attempt's table: done, failed, or what happened in words."""
    return ok if isinstance(ok, str) else "done" if ok else "failed"


def _attempt(att, shown: dict[tuple[str, str], int]) -> list[str]:
    """One attempt's section. A checker or helper whose source an earlier attempt printed is named,
    not printed again (`shown`: (name, source) → that attempt, updated here)."""
    md = [f"## Attempt {att.number}", ""]
    c = att.constraints
    if c:
        md += ["**Plan sketch**", "", _fence(c.get("sketch", "")), ""]
        sources = c.get("checkers") if isinstance(c.get("checkers"), dict) else {}
        helpers = set(split_checkers(sources)[1])
        unused = helpers - set(
            called_helpers(sources)
        )  # named, not printed: the checkers do not call them
        md += [f"**Generated code**: {count_line(sources)}", ""]
        if unused:
            md += [
                "Defined but not called by the checkers (source in transcript.json): "
                + ", ".join(f"`{n}`" for n in sources if n in unused),
                "",
            ]
        sources = {n: src for n, src in sources.items() if n not in unused}
        again: dict[int, list[str]] = {}
        # the checkers first (what this attempt asked for), then the helper functions they call
        for name, src in sorted(sources.items(), key=lambda kv: kv[0] in helpers):
            first = shown.setdefault((name, str(src)), att.number)
            if first != att.number:
                again.setdefault(first, []).append(f"`{name}`")
                continue
            md += [
                f"**{'Helper' if name in helpers else 'Checker'} `{name}`**",
                "",
                _fence(src, "python"),
                "",
            ]
        for first, names in again.items():
            md += [f"The same as in attempt {first} (source there): {', '.join(names)}", ""]
    p = att.planned
    if p:
        steps = " → ".join(f"`{a}`" for a in p.get("plan") or [])
        md += [
            f"**Plan** ({p.get('samples', '?')} continuous samples drawn): {steps}"
            if steps
            else "**Plan**: nothing to do (the goal already holds)",
            "",
        ]
    if att.edits:
        md += ["Skeleton edits: " + "; ".join(att.edits), ""]
    if att.steps:
        md += ["| step | seconds | result |", "|---|---|---|"]
        md += [
            f"| `{_cell(a)}` | {'' if s is None else f'{s:.2f}'} | {_step_result(ok)} |"
            for a, s, ok in att.steps
        ]
        md += [""]
    for f in att.failures:
        md += [
            f"**Failure** — stage `{f.get('stage')}`"
            + (f", action `{f.get('action')}`" if f.get("action") else "")
            + f": {f.get('reason', '')}",
            "",
        ]
        extra = {k: f[k] for k in ("offending_objects", "observed") if f.get(k)}
        if extra:
            md += [_fence(json.dumps(extra, indent=1, default=str), "json"), ""]
    if att.replan:
        md += [
            f"Replan: {att.replan.get('line', '')}"
            + (" — giving up" if att.replan.get("give_up") else ""),
            "",
        ]
    if att.snapshot:
        md += [
            f"Tree at the {att.snapshot.get('label', 'end of the attempt')}:",
            "",
            _fence(att.snapshot.get("text", "")),
            "",
        ]
    return md


def _broken(exc: Exception) -> str:
    return (
        f"# Run report\n\nThe report could not be made: {type(exc).__name__}: {exc}\n\n"
        + _fence(traceback.format_exc())
    )


def write_report(folder: Path) -> None:
    """Write report.md, report.html, tree.dot and tree.png into a run folder. Never raises: if the
    report cannot be made, report.md says why (a run's results matter more than its report), except
    for lack of space (OSError with an errno in NO_SPACE), which is raised."""
    folder = Path(folder)
    try:
        log = (
            read_events(folder / "events.jsonl") if (folder / "events.jsonl").exists() else RunLog()
        )
        note = render_tree_files(folder, (log.final_tree or {}).get("dot"))
        md = build_markdown(folder, log)
        if note:
            md += f"\nNote: {note}\n"
        title = html.unescape(
            md.splitlines()[0].lstrip("# ")
        )  # the page title is escaped once, there
    except OSError as exc:
        if exc.errno in NO_SPACE:
            raise  # no room for the report: the run folder is not complete (RunFolder.finish says so)
        md, title = _broken(exc), "Run report"
    except Exception as exc:  # a bug here must not lose the run: say so in the report
        md, title = _broken(exc), "Run report"
    (folder / "report.md").write_text(md, encoding="utf-8")
    (folder / "report.html").write_text(markdown_to_html(md, title), encoding="utf-8")
