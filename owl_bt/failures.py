"""Typed failure records (pyrobosim-style kinds): what the replan subtree reads and reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# pyrobosim's ExecutionStatus kinds: an action could not start (its preconditions do not hold), no
# plan was found, the action failed while it ran, or it ran and its effects are not what was expected.
PRECONDITION, PLANNING, EXECUTION, POSTCONDITION = (
    "PRECONDITION",
    "PLANNING",
    "EXECUTION",
    "POSTCONDITION",
)
KINDS = (PRECONDITION, PLANNING, EXECUTION, POSTCONDITION)
KIND_OF_STAGE = {
    "perceive": PRECONDITION,
    "constraints": PLANNING,
    "plan": PLANNING,
    "execute": EXECUTION,
    "monitor": POSTCONDITION,
    "safety": EXECUTION,
}


@dataclass(frozen=True)
class Failure:
    """stage: 'perceive' | 'constraints' | 'plan' | 'execute' | 'monitor' | 'safety';
    action: the ground operator (or '' for the whole stage); reason: one factual line;
    offending_objects: names that caused it; observed: measured facts (poses, counts);
    kind: PRECONDITION | PLANNING | EXECUTION | POSTCONDITION (by default from the stage)."""

    stage: str
    reason: str
    action: str = ""
    offending_objects: tuple[str, ...] = ()
    observed: dict = field(default_factory=dict)
    kind: str = ""

    def __post_init__(self) -> None:
        if not self.kind:
            object.__setattr__(self, "kind", KIND_OF_STAGE.get(self.stage, EXECUTION))

    def line(self) -> str:
        """One line for the instruction augmentation and the terminal."""
        where = f"{self.action} " if self.action else ""
        return f"{self.stage}: {where}failed — {self.reason}"

    def to_dict(self) -> dict:
        return asdict(self)
