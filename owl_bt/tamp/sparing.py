"""No unrequested moves: a plan sketch may move objects the goal never names out of the way (the
lemon lifted off a plate that has room for the strawberry). Such moves are tried last: the planner
first plans the sketch without them — its failure-driven edits still move a blocker aside when a
step truly fails for it — and falls back to the sketch as written only when no plan was found, saying
why the object moved.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from owl_bt.state import WorldState
from owl_bt.tamp.search import SketchItem


def unrequested(
    items: Sequence[SketchItem],
    goal_names: Iterable[str],
    goal_sources: Iterable[str],
    table: str,
    world: WorldState | None = None,
) -> list[str]:
    """Objects the sketch picks and only puts on `table` (a move out of the way) that neither the goal's
    objects (`goal_names`) nor the goal checkers' source code name, in sketch order. Not one resting
    on or in something the sketch picks later (an orange on a mug's rim must come off before the mug
    is carried), as `world` shows."""
    named = set(goal_names)
    picked = {it.op.args[0] for it in items if it.op.name == "pick"}
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
        and not (world is not None and _held_by(world, o) & picked)
        and not re.search(rf"(?<![A-Za-z0-9_]){re.escape(o)}(?![A-Za-z0-9_])", text)
    ]


def spared(items: Sequence[SketchItem], names: Iterable[str]) -> list[SketchItem]:
    """The sketch without the picks and places of `names` (their checkers go with them)."""
    drop = set(names)
    return [it for it in items if not (it.op.args and it.op.args[0] in drop)]


def _held_by(world: WorldState, o: str) -> set[str]:
    """The movable things o rests on or in: o's centre over its footprint and o's bottom between its
    bottom and 2 cm above its top (an orange sunk into a mug's rim is both)."""
    if o not in world.objects:
        return set()
    lo, _ = world.get(o).aabb()
    x, y, _ = world.get(o).pose.position
    out = set()
    for name, s in world.objects.items():
        if name == o or s.fixed:
            continue
        slo, shi = s.aabb()
        if s.over_footprint(x, y) and slo[2] <= lo[2] <= shi[2] + 0.02:
            out.add(name)
    return out
