"""PDDL export and Fast Downward through unified-planning, with sketch compilation (SPEC §3)."""

from __future__ import annotations

from owl_bt.tamp import pddl
from owl_bt.tamp.grounding import ground_operators
from owl_bt.tamp.operators import GroundOp


def test_two_object_problem_has_a_plan(berry_world, schemas):
    plan = pddl.solve(berry_world, schemas, goal=[("On", ("strawberry", "light_grey_region"))])
    assert [str(s) for s in plan.steps] == ["pick(strawberry)", "place_ontop(strawberry, light_grey_region)"]
    assert "(:action place_ontop" in plan.domain_pddl and "strawberry" in plan.problem_pddl


def test_incomplete_sketch_gets_missing_pick_inserted(berry_world, schemas):
    sketch = [GroundOp("place_ontop", ("strawberry", "light_grey_region"))]
    plan = pddl.solve(berry_world, schemas, sketch)
    assert [str(s) for s in plan.steps] == ["pick(strawberry)", "place_ontop(strawberry, light_grey_region)"]
    assert plan.sketch_steps == [1]


def test_sketch_order_is_kept(berry_world, schemas):
    sketch = [GroundOp("place_ontop", ("strawberry", "table")), GroundOp("place_ontop", ("strawberry", "light_grey_region"))]
    plan = pddl.solve(berry_world, schemas, sketch)
    steps = [str(s) for s in plan.steps]
    assert steps.index("place_ontop(strawberry, table)") < steps.index("place_ontop(strawberry, light_grey_region)")
    assert len(plan.sketch_steps) == 2 and plan.sketch_steps[0] < plan.sketch_steps[1]


def test_initial_supports_and_ground_operators(berry_world, schemas):
    assert ("strawberry", "table") in pddl.supports(berry_world)
    ops = {str(g) for g in ground_operators(berry_world, schemas)}
    assert "pick(strawberry)" in ops and "place_ontop(strawberry, light_grey_region)" in ops
    assert "pick(table)" not in ops and "pick(light_grey_region)" not in ops
