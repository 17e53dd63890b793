"""Constraint repair during refinement (docs/architecture.md).

Before planning, `owl_bt.language.repair` catches checkers no candidate state satisfies. Some only
show during refinement: a placement checker that tests "above the bowl" is met by a candidate
hovering there, but every real placement settles into the bowl, below that region. When a
refinement round fails at a step whose samples mostly met the robot's own constraints (reachable,
collision-free, at rest) and were rejected by generated checkers, `CheckerRepair` sends the model
the evidence — the checkers' source, how many samples they rejected, where the tested objects
really ended up in those states and the regions the checkers test them against — and asks for the
whole corrected python block. The corrected checkers replace the old ones for the next round (the
search counts it as a skeleton tried); at most `rounds` repairs per plan stage. A model that sends
the same checkers back (the offline grounder knows no better) ends the repair: the search goes on
with its own skeleton edits.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from owl_bt.errors import ModelAnswerError, OwlError, UnsafeCodeError
from owl_bt.failures import Failure
from owl_bt.language.parser import parse_checkers
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.vlm import ask
from owl_bt.tamp.bounds_record import record_bounds
from owl_bt.tamp.search import SketchItem

REPAIR_ROUNDS = 2
CHECKER_SHARE = 0.5  # a failed step is the checkers' when at least this share of its samples was rejected by them
_CONSTRAINT = re.compile(r"^constraint (.+?) not satisfied")


def blamed_checkers(failure: Failure, known: set[str]) -> tuple[list[str], int, int]:
    """(generated checkers that rejected most of the failed step's samples, how many samples they
    rejected, samples of the step's last try) from a refinement failure record; ([], …) when the
    step failed for the robot's own reasons (no reachable grasp, collisions …)."""
    reasons = failure.observed.reasons or {}
    drawn = sum(
        int(c) for c in reasons.values()
    )  # the samples of the step's last try (a regrasp shares the budget)
    names: list[str] = []
    rejected = 0
    for reason, count in reasons.items():
        m = _CONSTRAINT.match(str(reason))
        if m:
            found = [n.strip() for n in m.group(1).split(",") if n.strip() in known]
            if found:
                rejected += int(count)
                names += [n for n in found if n not in names]
    if not names or drawn <= 0 or rejected < CHECKER_SHARE * drawn:
        return [], rejected, drawn
    return names, rejected, drawn


def _range(values: list[float]) -> str:
    return f"{min(values):.3f}..{max(values):.3f}" if values else "?"


def evidence(
    checkers: CheckerSet, names: list[str], failure: Failure, rejected: int, drawn: int
) -> str:
    """The message sent to the model: what was tried, what the checkers rejected, where the tested
    objects really were, the regions they were tested against, and the checkers' code."""
    total = failure.observed.samples if failure.observed.samples is not None else drawn
    lines = [
        f"During planning, {failure.action or 'a step'} was tried with {total} samples. In {rejected} of the last {drawn} "
        f"the robot could do it (reachable, collision-free, at rest), but {' and '.join(names)} rejected every such "
        "state: nothing the robot can do there satisfies it."
    ]
    for name in names:
        states = list((checkers.rejected or {}).get(name, ()))
        src = checkers.sources.get(name, "")
        if name in checkers.disabled:  # its calls were stopped: evaluating it again would hang too
            lines.append(f"{name} was disabled: {checkers.disabled[name]}.")
            lines.append(f"Its code:\n{src}")
            continue
        if states:
            with record_bounds() as found:
                checkers.evaluate(name, states[-1])
            tested = [
                o
                for o in states[-1].objects
                if f'"{o}"' in src
                or f"'{o}'" in src
                or f"{o}.pose" in src
                or any(o == f for f, _ in found)
            ]
            lines.append(f"In the last {len(states)} states {name} rejected:")
            for o in tested:
                poses = [s.get(o).pose for s in states if o in s.objects]
                lines.append(
                    f"- {o}: centre x {_range([p.x for p in poses])}, y {_range([p.y for p in poses])}, "
                    f"z {_range([p.z for p in poses])}; roll {_range([p.roll for p in poses])}, "
                    f"pitch {_range([p.pitch for p in poses])} (metres, radians)"
                )
            for o, (lo, hi) in found:
                box = ", ".join(
                    f"{a} {max(lo[i], -9.99):.3f}..{min(hi[i], 9.99):.3f}"
                    for i, a in enumerate("xyz")
                )
                lines.append(f"- it tests {o}'s centre against the region {box}")
        lines.append(f"Its code:\n{src}")
    lines.append(
        "Please send the whole corrected python block (every function, also the ones that were fine)."
    )
    return "\n".join(lines)


@dataclass
class CheckerRepair:
    """The search's `repair` callback for one plan stage: (failure, sketch items, goal checkers) →
    (items, goal checkers) with corrected checkers, or None. `constraints` (an
    `owl_bt.language.constraints.Constraints`) is updated in place — its checkers, transcript,
    conversation, queries and model time — so the run folder shows what was asked and answered;
    `log(event, **fields)` records a `checker_repair` event; `counters` gets queries and model_s."""

    constraints: object
    vlm: object
    log: Callable[..., None] = field(default=lambda event, **kw: None)
    counters: dict = field(default_factory=dict)
    rounds: int = REPAIR_ROUNDS
    used: int = 0

    def __post_init__(self) -> None:
        self.constraints.checkers.rejected = {}

    def _account(self, entry: dict, took: float) -> None:
        """Enter one repair query in the run's record: transcript, model time (also of a call that
        failed), queries and a `vlm_call` event."""
        c = self.constraints
        c.model_s += took
        c.queries += 1
        self.counters["model_s"] = self.counters.get("model_s", 0.0) + took
        self.counters["queries"] = self.counters.get("queries", 0) + 1
        call = getattr(self.vlm, "last_call", None)
        if call is not None:
            entry["call"] = call.to_dict()
            c.calls.append(call)
            self.log("vlm_call", **call.to_dict())
        c.transcript.append(entry)

    def __call__(
        self, failure: Failure, items: list[SketchItem], goal_checkers: list
    ) -> tuple[list[SketchItem], list] | None:
        c = self.constraints
        old: CheckerSet = c.checkers
        names, rejected, drawn = blamed_checkers(failure, set(old.names()))
        if self.used >= self.rounds or not c.messages or not names:
            return None
        self.used += 1
        note = evidence(old, names, failure, rejected, drawn)
        messages = c.messages + [{"role": "user", "content": note}]
        t0 = time.monotonic()
        entry = {"prompt": note, "answer": "", "repair": names, "during": "refinement"}
        try:
            answer = entry["answer"] = ask(self.vlm, "checker", messages, [])
        except (
            OwlError
        ) as exc:  # the endpoint is down, a recording has no more answers …: plan on without
            entry["error"] = exc.reason
            self._account(entry, time.monotonic() - t0)
            self.log("checker_repair", checkers=names, changed=False, reason=exc.reason)
            return None
        self._account(entry, time.monotonic() - t0)
        c.messages = messages + [{"role": "assistant", "content": answer}]
        try:
            new = CheckerSet.compile(parse_checkers(answer, c.required), old.init_state, old.env)
        except (ModelAnswerError, UnsafeCodeError) as exc:
            entry["rejected"] = exc.reason
            self.log("checker_repair", checkers=names, changed=False, reason=exc.reason)
            return None
        if new.sources == old.sources:
            self.log(
                "checker_repair",
                checkers=names,
                changed=False,
                reason="the model sent the same checkers back",
            )
            return None
        new.on_error, new.rejected = old.on_error, {}
        c.checkers = new
        self.log(
            "checker_repair",
            checkers=names,
            changed=True,
            sources={n: new.sources[n] for n in names if n in new.sources},
        )
        defined = set(new.names())
        fresh = [
            SketchItem(
                it.op,
                [
                    (n, new.as_callable(n)) if n in defined else (n, chk)
                    for n, chk in it.checks
                    if n in defined or n not in old.names()
                ],
                it.why,
            )
            for it in items
        ]
        return fresh, [(n, new.as_callable(n)) for n in c.goal_checkers()]
