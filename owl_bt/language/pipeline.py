"""The offline grounder's direct Python API: an instruction and the scene's objects in, goal
literals and the plan sketch with its checkers out, through stages run in order:

1. normalise (`stages.normalise`) and refuse early what must never be done in part (negation,
   abilities the robot lacks: `stages.refuse_early`);
2. elliptic phrases said in full (`ellipsis.resolve_ellipsis`);
3. clauses in the order they are to happen (`sequencing.split_clauses`);
4. each clause read by the first rule that fits — a swap, 'respectively', matching by an attribute,
   an ordering (`arrangements`), a verb that implies a place (`implied`), throwing away, removing,
   pouring, an intention (`clause_kinds`), else a placement — with its object phrases resolved
   against the scene (names, kinds, colours, categories, superlatives, counts, earlier mentions,
   where things were at the start) into goals (`reading.Reader`);
5. goal literals (`goals.literals`), then the plan sketch and checkers (`offline_plan.make_plan`).

Every stage raises GroundingError (or UnknownObjectError for an absent object) with one line saying
what it did understand; nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.language.goals import Reading, reading_literals
from owl_bt.language.offline_plan import Plan, make_plan
from owl_bt.language.reading import Reader
from owl_bt.language.scene_view import Thing


@dataclass(frozen=True)
class Grounding:
    """What an instruction grounds to: the reading's goals, their literals ('On(apple, plate)',
    'step In(strawberry, skillet)', …) and the plan sketch with its checkers."""

    reading: Reading
    literals: tuple[str, ...]
    plan: Plan


def read(instruction: str, things: list[Thing]) -> Reading:
    """Stages 1–4: the goals `instruction` asks for over `things`."""
    return Reader(things).read(instruction)


def ground(instruction: str, things: list[Thing], held: str | None = None) -> Grounding:
    """Every stage: the goals, literals and plan for `instruction` over `things` (`held`: the object
    in the hand now, whose own goal comes first). Raises GroundingError / UnknownObjectError."""
    reading = read(instruction, things)
    plan = make_plan(
        reading, things, held
    )  # (it may add what the plan needs: a filled mug upright)
    return Grounding(reading, tuple(reading_literals(reading)), plan)
