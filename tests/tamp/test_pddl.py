"""PDDL export and Fast Downward through unified-planning, with sketch compilation."""

from __future__ import annotations

import pytest

from owl_bt.state import ObjectState, Pose, WorldState
from owl_bt.tamp import pddl
from owl_bt.tamp.grounding import ground_operators
from owl_bt.tamp.operators import GroundOp, static_types


def test_two_object_problem_has_a_plan(berry_world, schemas):
    plan = pddl.solve(berry_world, schemas, goal=[("On", ("strawberry", "light_grey_region"))])
    assert [str(s) for s in plan.steps] == [
        "pick(strawberry)",
        "place_ontop(strawberry, light_grey_region)",
    ]
    assert "(:action place_ontop" in plan.domain_pddl and "strawberry" in plan.problem_pddl


def test_incomplete_sketch_gets_missing_pick_inserted(berry_world, schemas):
    sketch = [GroundOp("place_ontop", ("strawberry", "light_grey_region"))]
    plan = pddl.solve(berry_world, schemas, sketch)
    assert [str(s) for s in plan.steps] == [
        "pick(strawberry)",
        "place_ontop(strawberry, light_grey_region)",
    ]
    assert plan.sketch_steps == [1]


def test_sketch_order_is_kept(berry_world, schemas):
    sketch = [
        GroundOp("place_ontop", ("strawberry", "table")),
        GroundOp("place_ontop", ("strawberry", "light_grey_region")),
    ]
    plan = pddl.solve(berry_world, schemas, sketch)
    steps = [str(s) for s in plan.steps]
    assert steps.index("place_ontop(strawberry, table)") < steps.index(
        "place_ontop(strawberry, light_grey_region)"
    )
    assert len(plan.sketch_steps) == 2 and plan.sketch_steps[0] < plan.sketch_steps[1]


def test_initial_supports_and_ground_operators(berry_world, schemas):
    assert ("strawberry", "table") in pddl.supports(berry_world)
    ops = {str(g) for g in ground_operators(berry_world, schemas)}
    assert "pick(strawberry)" in ops and "place_ontop(strawberry, light_grey_region)" in ops
    assert "pick(table)" not in ops and "pick(light_grey_region)" not in ops


def _replay(
    world: WorldState, schemas, steps: list[GroundOp], held: str | None
) -> set[tuple[str, tuple[str, ...]]]:
    """Execute a skeleton symbolically (types, distinct objects, pre, delete then add); the final state."""
    by_name = {s.name: s for s in schemas}
    state = {("On", pair) for pair in pddl.supports(world) if held not in pair}
    state.add(("AtGrasp", (held,)) if held else ("HandEmpty", ()))
    for g in steps:
        s = by_name[g.name]
        b = dict(zip((p for p, _ in s.params), g.args, strict=True))
        assert len(set(g.args)) == len(g.args), str(g)
        assert all(
            t in static_types(world.get(b[p]).category, world.get(b[p]).fixed) for p, t in s.params
        ), str(g)
        assert all((pred, tuple(b[a] for a in args)) in state for pred, args in s.pre), (
            f"{g} not applicable in {state}"
        )
        state -= {(pred, tuple(b[a] for a in args)) for pred, args in s.delete}
        state |= {(pred, tuple(b[a] for a in args)) for pred, args in s.add}
    return state


@pytest.fixture()
def kitchen() -> WorldState:
    """strawberry, plate and bowl on the table, a region, and a can held above the table."""

    def o(name, cat, xyz, size, fixed=False):
        return ObjectState(name, cat, Pose(*xyz), size, fixed=fixed)

    objs = [
        o("table", "table", (0.5, 0.0, -0.01), (1.0, 1.0, 0.02), fixed=True),
        o("region", "region", (0.5, 0.0, 0.0005), (0.1, 0.1, 0.001), fixed=True),
        o("strawberry", "strawberry", (0.4, 0.2, 0.02), (0.04, 0.04, 0.04)),
        o("plate", "plate", (0.5, -0.2, 0.01), (0.2, 0.2, 0.02)),
        o("bowl", "bowl", (0.7, 0.2, 0.03), (0.15, 0.15, 0.06)),
        o("can", "potted_meat_can", (0.6, 0.0, 0.3), (0.1, 0.06, 0.08)),
    ]
    return WorldState({x.name: x for x in objs})


SKETCHES = [
    ([], None),
    (["place_ontop(strawberry, region)"], None),  # incomplete: the pick is missing
    (["place_inside(strawberry, bowl)", "place_ontop(plate, region)"], None),  # two picks missing
    (["pick(strawberry)", "pick(plate)"], None),  # a place must go between
    (
        [
            "place_ontop(strawberry, plate)",
            "place_ontop(strawberry, table)",
            "place_inside(strawberry, bowl)",
        ],
        None,
    ),
    (
        ["pick(strawberry)", "place_ontop(strawberry, region)"],
        "can",
    ),  # hand full: the can must go first
    (["place_ontop(can, plate)", "pick(can)", "place_inside(can, bowl)"], "can"),
]


@pytest.mark.parametrize(("sketch", "held"), SKETCHES)
def test_plan_contains_sketch_as_ordered_subsequence(kitchen, schemas, sketch, held):
    by_str = {str(g): g for g in ground_operators(kitchen, schemas, held)}
    ops = [by_str[s] for s in sketch]
    plan = pddl.solve(kitchen, schemas, ops, goal=[("HandEmpty", ())], held=held)
    assert [plan.steps[i] for i in plan.sketch_steps] == ops
    assert plan.sketch_steps == sorted(set(plan.sketch_steps))
    assert ("HandEmpty", ()) in _replay(kitchen, schemas, plan.steps, held)
    if held and sketch[0].startswith("pick"):
        assert plan.sketch_steps[0] > 0 and plan.steps[0].args[0] == "can"


@pytest.mark.parametrize(
    "sketch", [["pick(table)"], ["place_inside(strawberry, plate)"], ["place_ontop(region, table)"]]
)
def test_impossible_sketch_raises_no_task_plan(kitchen, schemas, sketch):
    ops = [
        GroundOp(s.split("(")[0], tuple(a.strip() for a in s[s.index("(") + 1 : -1].split(",")))
        for s in sketch
    ]
    with pytest.raises(pddl.NoTaskPlan):
        pddl.solve(kitchen, schemas, ops)


def test_the_problem_holds_only_the_objects_a_skeleton_can_involve(kitchen, schemas):
    """Distractors on the table stay out of the PDDL problem; what a named object rests on, and what
    rests on a named movable object, stay in; the plan is the same as over every object."""

    def o(name, cat, xyz, size):
        return ObjectState(name, cat, Pose(*xyz), size)

    extra = [
        o("apple", "apple", (0.3, -0.3, 0.04), (0.08, 0.08, 0.08)),  # a distractor on the table
        o("peach", "peach", (0.5, -0.2, 0.055), (0.07, 0.07, 0.07)),  # resting on the plate
        o("lemon", "lemon", (0.25, 0.3, 0.03), (0.06, 0.05, 0.05)),
    ]
    world = WorldState({**kitchen.objects, **{x.name: x for x in extra}})
    sketch = [GroundOp("pick", ("plate",)), GroundOp("place_ontop", ("plate", "region"))]
    keep = pddl.relevant(world, sketch)
    assert keep == {"table", "region", "plate", "peach"}
    assert pddl.relevant(world, sketch, held="can") == keep | {"can"}
    assert pddl.relevant(world) == set(world.objects)  # no sketch, no goal: everything
    plan = pddl.solve(world, schemas, sketch)
    assert [str(s) for s in plan.steps] == ["pick(plate)", "place_ontop(plate, region)"]
    assert "apple" not in plan.problem_pddl and "lemon" not in plan.problem_pddl
    assert "peach" in plan.problem_pddl
