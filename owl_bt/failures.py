"""Typed failure records (pyrobosim-style kinds): what the replan subtree reads and reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Failure:
    """stage: 'perceive' | 'constraints' | 'plan' | 'execute' | 'monitor';
    action: the ground operator (or '' for the whole stage); reason: one factual line;
    offending_objects: names that caused it; observed: measured facts (poses, counts)."""

    stage: str
    reason: str
    action: str = ""
    offending_objects: tuple[str, ...] = ()
    observed: dict = field(default_factory=dict)

    def line(self) -> str:
        """One line for the instruction augmentation and the terminal."""
        where = f"{self.action} " if self.action else ""
        return f"{self.stage}: {where}failed — {self.reason}"

    def to_dict(self) -> dict:
        return asdict(self)
