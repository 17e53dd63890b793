"""The workspace generated checker code sees as `env`: the table-top box, metres, world frame."""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.state import WorldState


@dataclass(frozen=True)
class Env:
    """The workspace: table-top box (lower xyz, upper xyz), metres, world frame."""

    table_lower: tuple[float, float, float]
    table_upper: tuple[float, float, float]


def env_from_state(state: WorldState) -> Env:
    """The workspace from the scene's `table` object (or the union of objects when there is none)."""
    if "table" in state.objects:
        lo, hi = state.get("table").aabb()
        return Env((lo[0], lo[1], hi[2]), (hi[0], hi[1], hi[2] + 0.5))
    boxes = [o.aabb() for o in state.objects.values()]
    lo = tuple(min(b[0][i] for b in boxes) for i in range(3))
    hi = tuple(max(b[1][i] for b in boxes) for i in range(3))
    return Env(lo, (hi[0], hi[1], hi[2] + 0.5))
