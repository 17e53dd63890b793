"""The everyday task set: every task builds its scene, its detector does not call the untouched scene
done (except where the right answer is to touch nothing), and its oracle answers parse against the
scene's ground operators and compile in the checker sandbox."""

from __future__ import annotations

import pytest

from owl_bt.bench.config import parse_tasks
from owl_bt.language.parser import parse_checkers, parse_sketch
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state
from owl_bt.tamp.grounding import ground
from sim import tasks
from sim.tasks.everyday import EVERYDAY
from sim.world import SimWorld


def test_the_set_is_benchable_by_name():
    assert parse_tasks("everyday") == tuple(EVERYDAY)
    assert len(EVERYDAY) >= 17 and not set(EVERYDAY) & set(tasks.TASKS)
    assert tasks.get("tower_hue") is EVERYDAY["tower_hue"]


@pytest.mark.parametrize("name", sorted(EVERYDAY))
def test_each_task_builds_and_its_oracle_answers_fit_the_scene(name, schemas):
    task = EVERYDAY[name]
    world = SimWorld()
    try:
        task.build(world, 3)
        verdict = task.detect(world)
        assert verdict.success is task.impossible, verdict.reason
        state = world.ground_truth()
    finally:
        world.close()
    g = ground(state, schemas)
    sketch = parse_sketch(task.oracle_sketch, g.ops, state.names())
    assert bool(sketch.impossible) is task.impossible
    code = parse_checkers(task.oracle_checkers)
    checkers = CheckerSet.compile(code, state, env_from_state(state))
    for goal in (n for n in checkers.names() if n.startswith("goal_check")):
        assert not checkers.evaluate(goal, state), f"{goal} holds before anything was done"
    assert not checkers.errors, checkers.errors
