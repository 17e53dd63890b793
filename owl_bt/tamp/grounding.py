"""Ground operators shown to the VLM (SPEC §3 step 1).

Our operators' parameters are constrained only by static type predicates (Movable, Surface,
Container) and by dynamic ones every object can reach (HandEmpty → AtGrasp(o) → On/Inside), so the
relaxed-reachable ground operators are exactly the type-consistent bindings, with distinct objects.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from owl_bt.state import WorldState
from owl_bt.tamp.operators import GroundOp, OperatorSchema, static_types


def ground_operators(world: WorldState, schemas: Sequence[OperatorSchema]) -> list[GroundOp]:
    """Every ground operator whose arguments have the types its schema asks for (sorted)."""
    types = {n: static_types(o.category, o.fixed) for n, o in world.objects.items()}
    out = []
    for schema in schemas:
        pools = [[n for n in sorted(types) if t in types[n]] for _, t in schema.params]
        for combo in itertools.product(*pools):
            if len(set(combo)) == len(combo):
                out.append(GroundOp(schema.name, combo))
    return out
