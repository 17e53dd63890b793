"""Constraint-guided sampling: the region generated checkers accept for an object.

`guide` evaluates a step's checkers once while `bounds_record.record_bounds()` listens and
intersects the bounds they test the moved object's centre against: a hint refinement draws part of
its samples from (metres, world frame).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from owl_bt.state import WorldState
from owl_bt.tamp.bounds_record import Bounds, record_bounds
from sim.robot import WORKSPACE

Checker = Callable[[WorldState], bool]


def guide(state: WorldState, moved: str, checks: Sequence[tuple[str, Checker]]) -> Bounds | None:
    """The intersection of the bounds `checks` test `moved`'s centre against (None: no hint)."""
    with record_bounds() as found:
        for _, chk in checks:
            chk(state)
    boxes = [b for name, b in found if name == moved]
    if not boxes:
        return None
    lo = [max(b[0][i] for b in boxes) for i in range(3)]
    hi = [min(b[1][i] for b in boxes) for i in range(3)]
    if any(lo[i] > hi[i] for i in range(3)):
        return None
    # within the arm's comfortable workspace, where that leaves any room
    wlo = [max(lo[i], WORKSPACE[0][i]) for i in range(2)]
    whi = [min(hi[i], WORKSPACE[1][i]) for i in range(2)]
    if all(wlo[i] < whi[i] for i in range(2)):
        lo[:2], hi[:2] = wlo, whi
    return (tuple(lo), tuple(hi))
