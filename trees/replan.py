"""The replan subtree: turn the failure into one factual line appended to the instruction and go
round again, at most `max_attempts` attempts in all.

The failure it acts on: a pending interruption (a fault the safety guard cleared) first, else the
first stage (in pipeline order) that recorded one in this attempt. With `run --interactive` (the
services' `ask`), the person is shown the line and may add one line of feedback, which is appended
to the instruction too (and to the history the model reads) as one line of printable text, at most
500 characters (owl_bt.plain_text); the tree keeps ticking while they type.

An attempt that fails before executing anything (at the constraints or plan stage) exactly as an earlier
attempt did — the same stage, kind, action, offending objects and reason (counts aside) — with the same plan
sketch and checkers and no new feedback from the person would only fail again: the replan gives up at
once and says so in the failure's line.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from typing import Any

import py_trees

from owl_bt.plain_text import plain_line
from trees.blackboard import STAGES, client
from trees.blackboard import get as bb_get
from trees.worker import OwlBehaviour

SAMPLED_REPEATS = 3  # occurrences of the same sample-budget failure that end a run


class Replan(OwlBehaviour):
    """On activation: read the failure, write /owl/failure and /owl/failures, bump /owl/attempt and
    augment /owl/instruction. RUNNING lets the selector start a new attempt; FAILURE when out of attempts."""

    def __init__(self, name: str = "replan", max_attempts: int = 4) -> None:
        super().__init__(name=name)
        self.max_attempts = max_attempts
        self.bb = client(
            name,
            write=("instruction", "attempt", "failure", "failures", "history", "awaiting"),
            read=("interruption", "constraints", *(f"{s}_failure" for s in STAGES)),
        )
        self._seen: dict[
            tuple, tuple[int, int]
        ] = {}  # repeat signature → (first attempt failing that way, times)
        self.log = lambda event, **kw: None
        self.ask = None
        self._answer: list[str] = []
        self._asking: threading.Thread | None = None
        self._next = ""  # what the replan does next (its feedback line)

    def setup(self, **kwargs: Any) -> None:
        services = kwargs["services"]
        self.log, self.ask = services.log, services.ask

    def _pick(self):
        handled = bb_get(self.bb, "failures", [])
        pending = bb_get(self.bb, "interruption")
        if pending is not None and not any(f is pending for f in handled):
            return pending
        # Every stage clears its failure when it starts, so the first stage (in pipeline order) that
        # holds one is the stage that failed in this attempt; later ones may be left from before.
        for stage in STAGES:
            failure = bb_get(self.bb, f"{stage}_failure")
            if failure is not None and not any(f is failure for f in handled):
                return failure
        return None

    def _repeat_of(self, failure) -> int | None:
        """The earlier attempt that failed exactly like this one with the same constraints, if any
        (only failures before execution: then the world is as it was and the next try would be the same)."""
        if failure is None or failure.stage not in ("constraints", "plan"):
            return None
        constraints = bb_get(self.bb, "constraints") if failure.stage == "plan" else None
        signature = (
            failure.stage,
            failure.kind,
            failure.action,
            tuple(failure.offending_objects[:1]),  # (the rest: by chance)
            re.sub(
                r"\d+(?:\.\d+)?", "#", failure.reason
            ),  # "(455×)" and "(430×)" are the same failure
            constraints.sketch.text() if constraints is not None else None,
            tuple(sorted(constraints.checkers.sources.items()))
            if constraints is not None
            else None,
            tuple(h for h in self.bb.history if h.startswith("feedback after")),
        )  # a person's feedback is new
        first, times = self._seen.get(signature, (self.bb.attempt, 0))
        self._seen[signature] = (first, times + 1)
        # The planner samples: where one sample budget was spent in vain the next draws may succeed, so
        # such a failure ends the run on its third occurrence; a deterministic one (no task plan,
        # unreadable constraints) on its second.
        # (a hopeless one, e.g. an apple wider than the mug's opening, is deterministic too)
        sampled = (
            failure.stage == "plan"
            and failure.observed.samples is not None
            and not failure.observed.hopeless
        )
        return first if times + 1 >= (SAMPLED_REPEATS if sampled else 2) else None

    def initialise(self) -> None:
        failure = self._pick()
        repeat_of = self._repeat_of(failure)
        if repeat_of is not None:
            failure = dataclasses.replace(
                failure,
                reason=(
                    f"{failure.reason}; the same failure as attempt {repeat_of} with the same plan sketch and checkers, "
                    "so no more attempts (they would fail the same way)"
                ),
                observed=failure.observed.with_(repeat_of=repeat_of),
            )
        self.bb.failure = failure
        self.bb.failures = [
            *bb_get(self.bb, "failures", []),
            *([failure] if failure is not None else []),
        ]
        self._line = f"attempt {self.bb.attempt}: " + (
            failure.line() if failure else "failed for an unknown reason"
        )
        self.bb.history = list(self.bb.history) + [self._line]
        self._give_up = (
            self.bb.attempt >= self.max_attempts
            or repeat_of is not None
            or (failure is not None and failure.observed.retryable is False)
        )
        self.log(
            "replan", line=self._line, give_up=self._give_up, kind=failure.kind if failure else None
        )
        self._asking = None
        self.bb.awaiting = False
        # the failure itself is on its stage's line already: this one says what happens next
        if self._give_up:
            n = self.bb.attempt  # the attempt that repeated, named as such
            self.feedback_message = (
                f"giving up: attempt {n} failed as attempt {repeat_of} did, with the same plan sketch and checkers"
                if repeat_of is not None
                else f"no more attempts: all {self.max_attempts} used"
                if n >= self.max_attempts
                else f"giving up after attempt {n}: a replan cannot mend this"
            )
            return
        self._attempt = self.bb.attempt
        self.bb.attempt = self._attempt + 1
        self._next = f"replanning for attempt {self.bb.attempt} of {self.max_attempts}"
        self.feedback_message = self._next
        self.bb.instruction = self.bb.instruction + "\n" + self._line
        if self.ask is not None:
            self._answer = []
            question = f"{self._line}\nadd one line of feedback for attempt {self._attempt + 1} (Enter: none): "
            self._asking = threading.Thread(
                target=self._ask, args=(question,), daemon=True, name="owl-replan-prompt"
            )
            self._asking.start()
            self.bb.awaiting = (
                True  # the attempt waits (the ready check fails) until the person answers
            )
            self.feedback_message = self._next + " — waiting for feedback"

    def _ask(self, question: str) -> None:
        try:
            answer = self.ask(question)
        except (
            EOFError,
            OSError,
            RuntimeError,
            ValueError,
        ):  # ValueError: bytes that are not text (UnicodeDecodeError)
            answer = ""
        self._answer.append(
            plain_line(str(answer or ""))
        )  # no terminal escapes or NULs into the instruction and report

    def _augment(self, feedback: str) -> None:
        attempt = self._attempt
        if feedback:
            note = f"feedback after attempt {attempt}: {feedback}"
            self.bb.instruction = self.bb.instruction + "\n" + note
            self.bb.history = list(self.bb.history) + [note]
            self.log("feedback", attempt=attempt, text=feedback)
            self.feedback_message = f"{self._next} — {note}"
        else:
            self.feedback_message = self._next

    def update(self) -> py_trees.common.Status:
        if self._give_up:
            return py_trees.common.Status.FAILURE
        if self._asking is not None:
            if not self._answer:
                return (
                    py_trees.common.Status.RUNNING
                )  # the person is typing; the tree keeps ticking
            self._asking = None
            self.bb.awaiting = False
            self._augment(self._answer[0])
        return py_trees.common.Status.RUNNING


def create_replan_subtree(max_attempts: int = 4) -> py_trees.behaviour.Behaviour:
    return Replan("replan", max_attempts)
