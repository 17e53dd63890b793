"""Reads a run folder's event log (`events.jsonl`) into attempts for the report."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from owl_bt import safe_json


@dataclass
class Attempt:
    """What one perceive → constraints → plan → execute round logged (events in order)."""

    number: int
    start: dt.datetime | None = None
    marks: list[tuple[str, dt.datetime]] = field(default_factory=list)  # (stage finished, when)
    perceived: dict | None = None
    constraints: dict | None = None
    planned: dict | None = None
    edits: list[str] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    # (action, seconds, True done | False failed | what happened in words)
    steps: list[tuple[str, float | None, bool | str]] = field(default_factory=list)
    replan: dict | None = None
    snapshot: dict | None = None


@dataclass
class RunLog:
    start: dict = field(default_factory=dict)
    end: dict = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    final_tree: dict | None = None
    final_state: dict | None = None  # where everything ended ("final_state": objects, source)
    started: dt.datetime | None = None
    ended: dt.datetime | None = None


def _when(ev: dict) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(ev["timestamp"].replace("Z", "+00:00"))
    except (KeyError, ValueError, AttributeError, TypeError):  # missing or not an ISO time string
        return None


def read_events(path: Path) -> RunLog:
    """The run log of `events.jsonl` (lines that are not JSON objects are skipped; bytes that are not
    UTF-8 are replaced)."""
    log = RunLog()
    current = Attempt(1)
    log.attempts.append(current)
    open_steps: dict[str, dt.datetime] = {}
    last: dt.datetime | None = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            ev = safe_json.loads(line)
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        kind, when = ev.get("event"), _when(ev)
        if kind == "start":
            log.start, log.started = ev, when
            current.start = when
        elif kind == "perceived":
            current.perceived = ev
            current.marks.append(("perceive", when))
        elif kind == "constraints":
            current.constraints = ev
            current.marks.append(("generate-constraints", when))
        elif kind == "skeleton_edit":
            current.edits.append(str(ev.get("edit")))
        elif kind == "planned":
            current.planned = ev
            current.marks.append(("plan", when))
        elif kind == "step_start":
            open_steps[ev.get("action", "")] = when
        elif kind == "step_done":
            t0 = open_steps.pop(ev.get("action", ""), None)
            current.steps.append(
                (ev.get("action", ""), (when - t0).total_seconds() if t0 and when else None, True)
            )
            if current.marks and current.marks[-1][0] == "execute":
                current.marks.pop()  # the execute stage ends with its last step
            current.marks.append(("execute", when))
        elif kind == "failure":
            current.failures.append(ev)
            current.marks.append((f"{ev.get('stage', '?')} (failed)", when))
            for action, t0 in open_steps.items():
                # a step the arm did whose effects the monitor then found not as planned: done, not failed
                checked = ev.get("stage") == "monitor" and ev.get("action") == action
                current.steps.append(
                    (
                        action,
                        (when - t0).total_seconds() if t0 and when else None,
                        "done; the check after it failed" if checked else False,
                    )
                )
            open_steps.clear()
        elif kind == "tree_snapshot":
            label = str(ev.get("label", ""))
            if label == "final":
                log.final_tree = ev
            else:  # "end of attempt N": logged just after the tick in which attempt N+1 began
                number = (
                    int(label.rsplit(" ", 1)[-1])
                    if label.rsplit(" ", 1)[-1].isdigit()
                    else current.number
                )
                target = next((a for a in log.attempts if a.number == number), current)
                target.snapshot = ev
        elif kind == "replan":
            current.replan = ev
            current.marks.append(("replan", when))
            if not ev.get("give_up"):
                current = Attempt(len(log.attempts) + 1, start=when)
                log.attempts.append(current)
        elif kind == "final_state":
            log.final_state = ev
        elif kind == "end":
            log.end, log.ended = ev, when
        last = when or last
    log.ended = log.ended or last
    if len(log.attempts) > 1 and log.attempts[-1].perceived is None and not log.attempts[-1].marks:
        log.attempts.pop()  # a new attempt was announced but never started (Ctrl-C)
    return log


def stage_times(attempt: Attempt) -> list[tuple[str, float]]:
    """(stage, seconds) for each stage the attempt finished: the time since the previous mark."""
    out, prev = [], attempt.start
    for stage, when in attempt.marks:
        if prev is not None and when is not None:
            out.append((stage, (when - prev).total_seconds()))
        prev = when or prev
    return out
