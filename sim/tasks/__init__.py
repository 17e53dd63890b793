"""The benchmark task registry: each task builds its scene for a seed and judges success.

`get(name)` returns a Task; `TASKS` maps names to tasks. Task-specific knowledge lives only here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from owl_bt.errors import UnknownTaskError
from sim.world import SimWorld


@dataclass(frozen=True)
class Verdict:
    """A detector's judgement: success and a one-line reason."""

    success: bool
    reason: str


@dataclass(frozen=True)
class Task:
    """name; the instruction (docs/benchmark.md); build(world, seed) adds and settles the objects;
    detect(world) judges the final simulated state (ground truth), watching the run through
    `observe(world)` (called after every executed step; for constraints on the way, e.g. BerryCook's
    visit to the skillet) when given; oracle_sketch / oracle_checkers: the hand-written ground-truth
    answers in a VLM's text format (the `oracle` method); objects / moved: how many
    objects stand on the table and how many the goal moves, for tasks of a family that measures cost
    against clutter (0: not said)."""

    name: str
    instruction: str
    build: Callable[[SimWorld, int], None]
    detect: Callable[[SimWorld], Verdict]
    optimal_length: int
    oracle_sketch: str = ""
    oracle_checkers: str = ""
    observe: Callable[[SimWorld], None] | None = None
    objects: int = 0
    moved: int = 0
    impossible: bool = False  # the right answer is an honest "cannot": done only if the run says so


def _registry() -> dict[str, Task]:
    from sim.tasks import (
        berry1,
        berry2,
        berrycook,
        citrus,
        coffee,
        fruitsort,
        mug1,
        mug2,
        mug3,
        souppour,
    )

    order = (
        berry1,
        citrus,
        berry2,
        berrycook,
        fruitsort,
        coffee,
        mug1,
        mug2,
        mug3,
        souppour,
    )  # the benchmark's order
    return {m.TASK.name: m.TASK for m in order}


TASKS: dict[str, Task] = _registry()  # the ten benchmark tasks (`--tasks all`)


def _families() -> dict[str, tuple[Task, ...]]:
    from sim.tasks import scaling

    return {"scaling": scaling.FAMILY}


# task families beside the benchmark: a family's name stands for its tasks (`--tasks scaling`)
FAMILIES: dict[str, tuple[Task, ...]] = _families()


def all_tasks() -> dict[str, Task]:
    """The ten benchmark tasks, the everyday set (sim/tasks/everyday) and the families' tasks
    (e.g. scaling-n24), by name."""
    from sim.tasks.everyday import EVERYDAY

    family_tasks = {t.name: t for family in FAMILIES.values() for t in family}
    return {**TASKS, **EVERYDAY, **family_tasks}


def get(name: str) -> Task:
    """The task called `name` (case-insensitive; a benchmark, an everyday or a family's task); raises
    UnknownTaskError listing known tasks."""
    key = name.strip().lower()
    known = all_tasks()
    if key not in known:
        raise UnknownTaskError(name, sorted(known))
    return known[key]
