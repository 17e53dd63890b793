"""Checkers' `init_state` is the run's first observation, kept across replans: "put X where Y was"
compares with where Y stood at the start, not where a replan's observation finds it."""

from __future__ import annotations

from dataclasses import replace

from owl_bt.language.constraints import generate
from owl_bt.language.scripted import ScriptedVLM
from owl_bt.state import ObjectState, Pose, WorldState
from owl_bt.tamp.grounding import ground

SKETCH = """Plan:
pick(apple); grasp the apple
place_ontop(apple, table); put it where the lemon was
achieve_goal(apple); the apple stands where the lemon was at the start
"""
CHECKERS = """```python
def where_lemon_was():
    was = get_obj_center(init_state, env, "lemon")
    now = get_obj_center(state, env, "apple")
    return abs(was[0] - now[0]) < 0.03 and abs(was[1] - now[1]) < 0.03

def goal_check0():
    return where_lemon_was()

def action_check1():
    return where_lemon_was()
```"""


def _world(lemon_y: float) -> WorldState:
    table = ObjectState("table", "table", Pose(0.55, 0, -0.025), (0.7, 0.9, 0.05), fixed=True)
    apple = ObjectState("apple", "apple", Pose(0.5, -0.2, 0.035), (0.07, 0.07, 0.07), "sphere")
    lemon = ObjectState("lemon", "lemon", Pose(0.5, lemon_y, 0.027), (0.07, 0.054, 0.054), "sphere")
    return WorldState(objects={"table": table, "apple": apple, "lemon": lemon})


def test_checkers_judge_against_the_first_observation(schemas):
    first, now = _world(0.1), _world(0.25)  # the lemon was moved away between the two
    g = ground(now, schemas)
    c = generate(
        ScriptedVLM("test", SKETCH, CHECKERS),
        now,
        "put the apple where the lemon was",
        schemas,
        g.ops,
        literals=g.initial,
        repair_rounds=0,
        init_world=first,
    )
    apple_at = {"apple": replace(now.get("apple"), pose=Pose(0.5, 0.1, 0.035))}
    done = replace(now, objects={**now.objects, **apple_at})
    assert c.checkers.evaluate("goal_check0", done)
    apple_at = {"apple": replace(now.get("apple"), pose=Pose(0.5, 0.25, 0.035))}
    assert not c.checkers.evaluate("goal_check0", replace(now, objects={**now.objects, **apple_at}))


def test_without_a_first_observation_the_current_one_is_used(schemas):
    now = _world(0.25)
    g = ground(now, schemas)
    c = generate(
        ScriptedVLM("test", SKETCH, CHECKERS),
        now,
        "put the apple where the lemon is",
        schemas,
        g.ops,
        literals=g.initial,
        repair_rounds=0,
    )
    apple_at = {"apple": replace(now.get("apple"), pose=Pose(0.5, 0.25, 0.035))}
    assert c.checkers.evaluate("goal_check0", replace(now, objects={**now.objects, **apple_at}))
