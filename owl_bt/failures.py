"""Typed failure records (pyrobosim-style kinds): what the replan subtree reads and reports.

A `Failure` names the stage that failed, its kind, the ground operator, a one-line reason, the
objects that caused it and, in `observed`, the measured facts behind it (`Evidence`). `to_dict()` is
the record written to events.jsonl and plan.json: stage and kind as their strings, `observed` with
only the facts that were recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

Pose6 = tuple[float, ...]  # (x, y, z m, roll, pitch, yaw rad), world frame, rounded to mm


class Stage(StrEnum):
    """The stage of the executive that failed."""

    PERCEIVE = "perceive"
    CONSTRAINTS = "constraints"
    PLAN = "plan"
    EXECUTE = "execute"
    MONITOR = "monitor"
    SAFETY = "safety"


class FailureKind(StrEnum):
    """pyrobosim's ExecutionStatus kinds: an action could not start (its preconditions do not hold),
    no plan was found, the action failed while it ran, or it ran and its effects are not what was
    expected."""

    PRECONDITION = "PRECONDITION"
    PLANNING = "PLANNING"
    EXECUTION = "EXECUTION"
    POSTCONDITION = "POSTCONDITION"


KIND_OF_STAGE = {
    Stage.PERCEIVE: FailureKind.PRECONDITION,
    Stage.CONSTRAINTS: FailureKind.PLANNING,
    Stage.PLAN: FailureKind.PLANNING,
    Stage.EXECUTE: FailureKind.EXECUTION,
    Stage.MONITOR: FailureKind.POSTCONDITION,
    Stage.SAFETY: FailureKind.EXECUTION,
}


class Evidence(BaseModel):
    """The measured facts behind a failure. Every field is optional; only those given are recorded
    (`to_dict`), so a record carries what its stage measured and nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # whether another attempt may help (False: the replan subtree gives up at once)
    retryable: bool | None = None
    # planning: continuous samples drawn for the failing step, the most frequent rejection
    # reasons (reason → count), the step's index in the skeleton, what rests on or in each of its
    # arguments, "no sample can ever work", gen_plan's values, the planning time limit (s)
    samples: int | None = None
    reasons: dict[str, int] | None = None
    step: int | None = None
    around_target: dict[str, list[str]] | None = None
    hopeless: bool | None = None
    values: list[int | float] | None = None
    timeout_s: float | None = None
    # the earlier attempt this failure repeats (same sketch and checkers)
    repeat_of: int | None = None
    # monitoring: where an object is and where the plan had it, other objects' poses, the checkers
    # that do not hold, the objects seen, objects caught on the hand, what the hand holds (the
    # held-object check made the judgement), a step whose effect was undone, a later step blocked,
    # why the end state is not sound (`owl_bt.tamp.sanity.insane`)
    pose: Pose6 | None = None
    planned: Pose6 | None = None
    poses: dict[str, Pose6] | None = None
    failed: list[str] | None = None
    seen: list[str] | None = None
    caught: list[str] | None = None
    held: str | None = None
    held_check: bool | None = None
    undone: str | None = None
    blocks: str | None = None
    sanity: str | None = None
    # the arm: the fault it reported, whether it went home after the fault was cleared
    fault: str | None = None
    home: bool | None = None
    # grounding: an object the instruction names that the scene lacks
    unknown_object: str | None = None
    # an unexpected error: the end of its traceback, for whoever mends it
    traceback: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The facts given, by name (JSON-ready: tuples become lists when serialised)."""
        return self.model_dump(exclude_unset=True)

    def with_(self, **facts: Any) -> Evidence:
        """A copy with `facts` added (validated like the constructor's)."""
        return Evidence(**{**self.to_dict(), **facts})


@dataclass(frozen=True)
class Failure:
    """stage: the executive stage that failed; reason: one factual line; action: the ground
    operator (or '' for the whole stage); offending_objects: names that caused it; observed: the
    measured facts; kind: by default from the stage (`KIND_OF_STAGE`).

    Strings are accepted for `stage` and `kind` (and converted); an unknown one raises ValueError."""

    stage: Stage
    reason: str
    action: str = ""
    offending_objects: tuple[str, ...] = ()
    observed: Evidence = field(default_factory=Evidence)
    kind: FailureKind | None = None

    def __post_init__(self) -> None:
        stage = Stage(self.stage)
        object.__setattr__(self, "stage", stage)
        kind = FailureKind(self.kind) if self.kind else KIND_OF_STAGE[stage]
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "offending_objects", tuple(self.offending_objects))

    def line(self) -> str:
        """One line for the instruction augmentation and the terminal."""
        where = f"{self.action} " if self.action else ""
        return f"{self.stage}: {where}failed — {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        """The record for events.jsonl and plan.json (stage and kind as strings)."""
        return {
            "stage": str(self.stage),
            "reason": self.reason,
            "action": self.action,
            "offending_objects": self.offending_objects,
            "observed": self.observed.to_dict(),
            "kind": str(self.kind),
        }
