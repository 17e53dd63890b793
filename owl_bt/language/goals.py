"""What the offline grounder reads an instruction as: goals over the scene's objects."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Goal:
    """`obj` ends `how` ('ontop' | 'inside' | 'pour') `support`; spatial: (relation, reference objects);
    final: must hold at the end (False: a step on the way); only: in no other container at the end."""

    obj: str
    how: str
    support: str
    spatial: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    upright: bool = False
    final: bool = True
    only: bool = False
    contents: tuple[str, ...] = ()  # pour: what falls out of obj into support
    note: str = (
        ""  # which of a counted group this is and why ("2 of the 4 asked for by 'two fruits': …")
    )


@dataclass
class Reading:
    goals: list[Goal]
    upright_needed: set[str] = field(default_factory=set)  # containers someone will pour into
