"""Relaxed-reachability grounding: the ground operators A and literals Λ shown to the VLM.

The symbolic problem of `pddl.build_problem` (no sketch, no goal; continuous values are already
abstracted away in the schemas) is grounded by Fast Downward's translator: its Datalog
exploration computes the delete-relaxed reachable atoms and actions from s0 (Helmert 2009, "Concise
finite-domain representations for PDDL planning tasks", AIJ 173), exposed by `up-fast-downward` as the
unified-planning compiler "fast-downward-reachability-grounder". If that engine is missing we fall
back to unified-planning's own "up_grounder" (all type-consistent bindings) and keep the relaxed
reachable ones with a delete-relaxation fixpoint. Λ = s0 ∪ add effects of the reachable actions.
Distinct objects per ground operator: we add `o ≠ o'` for every pair of parameters before grounding.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from owl_bt.state import WorldState
from owl_bt.tamp import pddl
from owl_bt.tamp.operators import GroundOp, OperatorSchema

if TYPE_CHECKING:  # unified-planning itself is imported on first use, as in pddl
    from unified_planning.model import FNode, InstantaneousAction

FD_GROUNDER = "fast-downward-reachability-grounder"
UP_GROUNDER = "up_grounder"


@dataclass(frozen=True)
class Grounding:
    """Relaxed-reachable ground operators (sorted) and literals Λ (sorted strings like `On(a, b)`)."""

    ops: list[GroundOp]
    literals: list[str]
    initial: list[str]  # the s0 part of Λ


def _grounder() -> str:
    return FD_GROUNDER if FD_GROUNDER in pddl.engine_names() else UP_GROUNDER


def _atom(f: FNode, names: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    return f.fluent().name, tuple(names[a.object().name] for a in f.args)


def _text(atom: tuple[str, tuple[str, ...]]) -> str:
    return f"{atom[0]}({', '.join(atom[1])})"


def _positive_pre(action: InstantaneousAction) -> list[FNode]:
    """The positive fluent atoms in a ground action's precondition (a conjunction)."""
    out, todo = [], list(action.preconditions)
    while todo:
        c = todo.pop()
        if c.is_and():
            todo.extend(c.args)
        elif c.is_fluent_exp():
            out.append(c)
    return out


def ground(
    world: WorldState,
    schemas: Sequence[OperatorSchema],
    held: str | None = None,
    grounder: str | None = None,
) -> Grounding:
    """Ground `schemas` over `world` by relaxed reachability from s0 (`held`: the object in the hand).

    `grounder` picks the unified-planning engine (default: Fast Downward's, else "up_grounder").
    """
    from unified_planning.plans import ActionInstance
    from unified_planning.shortcuts import CompilationKind, Equals, Not

    pb, names = pddl.build_problem(world, schemas, held=held)
    for act in pb.actions:
        for p, q in itertools.combinations(act.parameters, 2):
            act.add_precondition(Not(Equals(p, q)))
    with pddl.fd_scratch(), pddl.engine(grounder or _grounder()) as comp:
        res = comp.compile(pb, CompilationKind.GROUNDING)
    facts = {f for f, v in pb.explicit_initial_values.items() if v.is_true()}
    initial = {_atom(f, names) for f in facts}
    reached, actions = set(facts), []
    while True:  # delete-relaxation fixpoint; Fast Downward's actions all pass it already
        actions = [a for a in res.problem.actions if all(c in reached for c in _positive_pre(a))]
        new = {e.fluent for a in actions for e in a.effects if e.value.is_true()} - reached
        if not new:
            break
        reached |= new
    ops = set()
    for a in actions:
        lifted = res.map_back_action_instance(ActionInstance(a))
        ops.add(
            GroundOp(
                lifted.action.name, tuple(names[p.object().name] for p in lifted.actual_parameters)
            )
        )
    literals = {_atom(f, names) for f in reached}
    return Grounding(
        ops=sorted(ops, key=lambda g: (g.name, g.args)),
        literals=[_text(a) for a in sorted(literals)],
        initial=[_text(a) for a in sorted(initial)],
    )


def ground_operators(
    world: WorldState, schemas: Sequence[OperatorSchema], held: str | None = None
) -> list[GroundOp]:
    """The relaxed-reachable ground operators A, distinct objects per operator, sorted."""
    return ground(world, schemas, held).ops


def reachable_literals(
    world: WorldState, schemas: Sequence[OperatorSchema], held: str | None = None
) -> list[str]:
    """Λ = s0 ∪ add effects of A as sorted strings such as `On(strawberry, plate)`."""
    return ground(world, schemas, held).literals
