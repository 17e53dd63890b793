"""The planner on the benchmark tasks: each task's oracle answers (SPEC §8.1), parsed and sandboxed
as a model's would be, are planned by the full search (Fast Downward skeletons, search-then-sample,
failure-driven edits) from the task's initial scene. Execution on the simulated arm is measured by
`owl-bt bench`; this checks that planning itself finds a plan whose final state meets the goal."""

from __future__ import annotations

import numpy as np
import pytest

from owl_bt.language.constraints import generate
from owl_bt.language.scripted import ScriptedVLM
from owl_bt.tamp.grounding import ground
from owl_bt.tamp.search import SketchItem, plan
from sim import tasks
from sim.world import SimWorld


def _plan(name: str, seed: int, skills):
    task = tasks.get(name)
    world = SimWorld()
    try:
        task.build(world, seed)
        state = world.ground_truth()
    finally:
        world.close()
    schemas = [s.schema for s in skills.values()]
    vlm = ScriptedVLM("oracle", task.oracle_sketch, task.oracle_checkers)
    c = generate(vlm, state, task.instruction, schemas, ground(state, schemas).ops)
    by_index = c.action_checkers()
    sketch = [SketchItem(a.op, [(by_index[i], c.checkers.as_callable(by_index[i]))] if i in by_index else [])
              for i, a in enumerate(c.sketch.actions)]
    goal = [(n, c.checkers.as_callable(n)) for n in c.goal_checkers()]
    return plan(state, skills, sketch, goal, np.random.default_rng(seed)), c


@pytest.mark.slow
@pytest.mark.parametrize("name", ["berry1", "berry2", "citrus", "berrycook", "fruitsort", "coffee", "mug1"])
def test_oracle_answers_are_planned_from_the_initial_scene(name, skills):
    res, c = _plan(name, 0, skills)
    assert res.failure is None, res.failure.line()
    steps = [str(s.op) for s in res.refinement.steps]
    sketch = [str(a.op) for a in c.sketch.actions]
    it = iter(steps)
    assert all(any(s == a for s in it) for a in sketch), (steps, sketch)  # the sketch, in order
