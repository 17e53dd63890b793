"""The task plan: export the symbolic problem to PDDL through unified-planning and solve it with
Fast Downward (`up-fast-downward`). Plan-sketch compilation with Executed(i) is here.

Compilation: sketch action i becomes its own zero-parameter action `sketch_i` with the schema's
pre and effects bound to the sketch's arguments, plus Executed(i−1) as a precondition and
Executed(i) as an effect; the goal gets Executed(n). Every plan then contains the sketch, in
order, with other (generic) actions inserted anywhere.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from owl_bt.state import WorldState
from owl_bt.tamp.operators import GroundOp, OperatorSchema, static_types

if TYPE_CHECKING:
    import unified_planning as up
    from unified_planning.shortcuts import InstantaneousAction, Problem

# unified-planning is imported on first use (its engines pull in ConfigSpace and scipy.stats, about
# 1.2 s): `owl-bt run` answers a usage error, and the grounder its refusals, without it.


def _environment() -> up.environment.Environment:
    """unified-planning's global environment, its credits silenced."""
    from unified_planning.shortcuts import get_environment

    env = get_environment()
    env.credits_stream = None
    return env


def engine_names() -> list[str]:
    """The names of the unified-planning engines installed (planners and compilers)."""
    return list(_environment().factory.engines)


def engine(name: str) -> up.engines.Engine:
    """A new unified-planning engine (planner or compiler) registered as `name`, made directly from its
    class: the factory's OneshotPlanner/Compiler walk `inspect.stack()` to print credits even when they
    are silenced, about 40 ms a call on the worker thread (an eighth of an oracle's constraint generation).
    Like the factory given a name, it warns rather than fails on an unsupported problem kind. Raises
    KeyError for an unknown name."""
    made = _environment().factory.engine(name)()
    made.error_on_failed_checks = False
    return made


DYNAMIC = {"HandEmpty": 0, "AtGrasp": 1, "On": 2, "Inside": 2, "Poured": 2}
STATIC = ("Movable", "Surface", "Stackable", "Container", "Receptacle")
# An inserted (non-sketch) action putting something into a container costs this, the rest 1: freeing the
# hand at a replan, Fast Downward would otherwise choose place_inside(fork, mug) for a fork slipped in
# the hand, or place_inside(mustard_bottle, mug), as readily as a place on the table.
INSIDE_COST = 2


@dataclass
class TaskPlan:
    """A skeleton: ground operators in order; `sketch_steps[i]` is the plan index of sketch action i."""

    steps: list[GroundOp]
    sketch_steps: list[int]
    domain_pddl: str
    problem_pddl: str


_FD_LOCK = threading.Lock()


@contextlib.contextmanager
def fd_scratch():
    """Run a Fast Downward call alone, in a private temporary directory: its translator writes
    scratch files (output.sas, sas_plan) into the current directory, so parallel runs from one
    folder (bench workers, two terminals) would read each other's problems, and a read-only
    current directory would make every call fail."""
    with _FD_LOCK, tempfile.TemporaryDirectory(prefix="owl-fd-") as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(here)


class NoTaskPlan(Exception):
    """The symbolic problem has no plan (reason in the message)."""


def _pddl_name(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def build_problem(
    world: WorldState,
    schemas: Sequence[OperatorSchema],
    sketch: Sequence[GroundOp] = (),
    goal: Iterable[tuple[str, tuple[str, ...]]] = (),
    held: str | None = None,
    stack_freely: bool = True,
) -> tuple[Problem, dict[str, str]]:
    """The unified-planning Problem for world + schemas, with the sketch compiled in.

    stack_freely=False: an inserted (non-sketch) action never puts something onto a Stackable object
    (a block, a can): with a sketch, only the sketch stacks.

    Initial On(o, s) facts come from geometry: o's box bottom within 2 cm of s's top and o's centre
    over s's footprint. Returns the problem and a map from PDDL object names to scene names.
    """
    from unified_planning.shortcuts import (
        BoolType,
        Fluent,
        InstantaneousAction,
        Not,
        Object,
        Problem,
        UserType,
    )

    _environment()
    obj_t = UserType("Obj")
    fl = {
        n: Fluent(n, BoolType(), **{f"a{i}": obj_t for i in range(k)}) for n, k in DYNAMIC.items()
    }
    for n in STATIC:
        fl[n] = Fluent(n, BoolType(), a0=obj_t)
    executed = [Fluent(f"Executed{i}", BoolType()) for i in range(len(sketch))]
    pb = Problem("owl")
    for f in list(fl.values()) + executed:
        pb.add_fluent(f, default_initial_value=False)
    names = {_pddl_name(n): n for n in world.objects}
    objs = {n: Object(p, obj_t) for p, n in names.items()}
    pb.add_objects(objs.values())
    for name, o in world.objects.items():
        for t in static_types(o.category, o.fixed):
            pb.set_initial_value(fl[t](objs[name]), True)
    pb.set_initial_value(fl["HandEmpty"](), held is None)
    if held is not None:
        pb.set_initial_value(fl["AtGrasp"](objs[held]), True)
    for a, s in supports(world):
        if a == held:
            continue
        pb.set_initial_value(fl["On"](objs[a], objs[s]), True)
    by_name = {s.name: s for s in schemas}
    for schema in schemas:
        act = InstantaneousAction(schema.name, **{p: obj_t for p, _ in schema.params})
        binding = {p: act.parameter(p) for p, _ in schema.params}
        _fill(act, schema, binding, fl)
        for p, t in schema.params:
            if t == "Surface" and not stack_freely:
                act.add_precondition(Not(fl["Stackable"](binding[p])))
        pb.add_action(act)
    for i, g in enumerate(sketch):
        schema = by_name[g.name]
        act = InstantaneousAction(f"sketch{i}_{g.name}")
        binding = {p: objs[a] for (p, _), a in zip(schema.params, g.args, strict=True)}
        _fill(act, schema, binding, fl)
        if i > 0:
            act.add_precondition(executed[i - 1]())
        act.add_precondition(~executed[i]())
        act.add_effect(executed[i](), True)
        pb.add_action(act)
    for pred, args in goal:
        pb.add_goal(fl[pred](*(objs[a] for a in args)))
    if sketch:
        pb.add_goal(executed[-1]())
    return pb, names


def _fill(act: InstantaneousAction, schema: OperatorSchema, binding: dict, fl: dict) -> None:
    if not schema.add and not schema.delete:
        raise ValueError(
            f"operator {schema.name} has no effects: give it at least one add or delete atom"
        )
    from unified_planning.shortcuts import Equals, Not, Object

    for p, t in schema.params:
        act.add_precondition(fl[t](binding[p]))
    names = [p for p, _ in schema.params]
    for i, a in enumerate(names):  # distinct objects per ground operator
        for b in names[i + 1 :]:
            if not (isinstance(binding[a], Object) and isinstance(binding[b], Object)):
                act.add_precondition(Not(Equals(binding[a], binding[b])))
    for pred, args in schema.pre:
        act.add_precondition(fl[pred](*(binding[a] for a in args)))
    for pred, args in schema.delete:
        act.add_effect(fl[pred](*(binding[a] for a in args)), False)
    for pred, args in schema.add:
        act.add_effect(fl[pred](*(binding[a] for a in args)), True)


def supports(world: WorldState, tol: float = 0.02) -> list[tuple[str, str]]:
    """(o, s) pairs where movable o rests on s: the most specific (highest) support under o."""
    out = []
    boxes = {name: o.aabb() for name, o in world.objects.items()}
    for name, o in world.objects.items():
        if o.fixed:
            continue
        lo, hi = boxes[name]
        cx, cy = o.pose.x, o.pose.y
        best, best_top = None, -1e9
        for sname in world.objects:
            if sname == name:
                continue
            slo, shi = boxes[sname]
            if (
                slo[0] <= cx <= shi[0]
                and slo[1] <= cy <= shi[1]
                and abs(lo[2] - shi[2]) <= tol
                and shi[2] > best_top
            ):
                best, best_top = sname, shi[2]
        if best is not None:
            out.append((name, best))
    return out


def relevant(
    world: WorldState,
    sketch: Sequence[GroundOp] = (),
    goal: Iterable[tuple[str, tuple[str, ...]]] = (),
    held: str | None = None,
) -> set[str]:
    """The objects a skeleton can involve: those the sketch and goal name, the held one, every fixed
    object (the table, regions: where an inserted place may free the hand), and, transitively, what
    each of them rests on and what rests on each movable one of them. The operators' preconditions
    name only their own arguments (HandEmpty, AtGrasp(o), the argument types), so an action on any
    other object never enables a sketch action or the goal. With neither sketch nor goal: every
    object."""
    goal = list(goal)
    if not sketch and not goal:
        return set(world.objects)
    keep = {n for n, o in world.objects.items() if o.fixed}
    keep |= {a for op in sketch for a in op.args} | {a for _, args in goal for a in args}
    if held is not None:
        keep.add(held)
    keep &= set(world.objects)
    pairs = supports(world)
    while True:
        more = {s for o, s in pairs if o in keep} | {
            o for o, s in pairs if s in keep and not world.objects[s].fixed
        }
        if more <= keep:
            return keep
        keep |= more


def solve(
    world: WorldState,
    schemas: Sequence[OperatorSchema],
    sketch: Sequence[GroundOp] = (),
    goal: Iterable[tuple[str, tuple[str, ...]]] = (),
    held: str | None = None,
) -> TaskPlan:
    """A skeleton from Fast Downward for the compiled problem over the `relevant` objects (on a
    table of 24 objects and a three-object sketch, a problem of 6 objects instead of 25); raises
    NoTaskPlan when unsolvable."""
    from unified_planning.io import PDDLWriter
    from unified_planning.model.metrics import MinimizeActionCosts

    goal = list(goal)
    keep = relevant(world, sketch, goal, held)
    if len(keep) < len(world.objects):
        world = dataclasses.replace(
            world, objects={n: o for n, o in world.objects.items() if n in keep}
        )
    pb, names = build_problem(world, schemas, sketch, goal, held, stack_freely=not sketch)
    name = "fast-downward"
    dear = [pb.action(s.name) for s in schemas if any(pred == "Inside" for pred, _ in s.add)]
    if held is not None and dear:
        # holding something: the cheapest way to free the hand, an inserted place into a container only
        # when needed (the optimal search heeds the costs; the greedy one counts every action as 1); on
        # these small compiled problems it takes a few tenths of a second
        pb.add_quality_metric(MinimizeActionCosts({a: INSIDE_COST for a in dear}, default=1))
        name = "fast-downward-opt"
    writer = PDDLWriter(pb)
    with fd_scratch(), engine(name) as planner:
        result = planner.solve(pb)
    if result.plan is None:
        raise NoTaskPlan(f"Fast Downward found no task plan ({result.status.name})")
    steps, sketch_steps = [], []
    for ai in result.plan.actions:
        aname = ai.action.name
        m = re.fullmatch(r"sketch(\d+)_(.+)", aname)
        if m:
            sketch_steps.append(len(steps))
            steps.append(sketch[int(m.group(1))])
        else:
            steps.append(GroundOp(aname, tuple(names[str(p)] for p in ai.actual_parameters)))
    return TaskPlan(steps, sketch_steps, writer.get_domain(), writer.get_problem())
