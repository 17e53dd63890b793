"""No unrequested moves: a plan sketch may move objects the goal never names out of the way (the
lemon lifted off a plate that has room for the strawberry). Such moves are tried last: the planner
first plans the sketch without them — its failure-driven edits still move a blocker aside when a
step truly fails for it — and falls back to the sketch as written only when no plan was found, saying
why the object moved.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from owl_bt.tamp.search import SketchItem


def unrequested(
    items: Sequence[SketchItem], goal_names: Iterable[str], goal_sources: Iterable[str], table: str
) -> list[str]:
    """Objects the sketch picks and only puts on `table` (a move out of the way) that neither the goal's
    objects (`goal_names`) nor the goal checkers' source code name, in sketch order."""
    named = set(goal_names)
    text = "\n".join(goal_sources)
    placed: dict[str, set[str]] = {}
    for it in items:
        if it.op.name == "pick":
            placed.setdefault(it.op.args[0], set())
        elif it.op.args:
            placed.setdefault(it.op.args[0], set()).add(
                it.op.name if it.op.args[-1] == table else "elsewhere"
            )
    return [
        o
        for o, how in placed.items()
        if how <= {"place_ontop"}
        and o not in named
        and not re.search(rf"(?<![A-Za-z0-9_]){re.escape(o)}(?![A-Za-z0-9_])", text)
    ]


def spared(items: Sequence[SketchItem], names: Iterable[str]) -> list[SketchItem]:
    """The sketch without the picks and places of `names` (their checkers go with them)."""
    drop = set(names)
    return [it for it in items if not (it.op.args and it.op.args[0] in drop)]
