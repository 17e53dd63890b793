"""The object list a model reads: one line per object of a WorldState.

Kept apart from the prompts so that readers of a finished run (reports) need not load the planner."""

from __future__ import annotations

from owl_bt.state import WorldState


def describe_objects(world: WorldState, with_pose: bool = True) -> str:
    """One line per object: name, category, colour, fixed or movable, shape and (with_pose) its pose,
    own-frame size and world-frame box — metres and radians."""
    lines = []
    for name in world.names():
        o = world.get(name)
        line = (
            f"- {name} (category: {o.category}, colour: {o.colour or 'unknown'}, {'fixed' if o.fixed else 'movable'}, "
            f"shape: {o.shape})"
        )
        if with_pose:
            lo, hi = o.aabb()
            line += f" pose {_r(o.pose.as_tuple())}, size {_r(o.size)}, box {_r(lo)} to {_r(hi)}"
        lines.append(line)
    return "\n".join(lines)


def _r(values) -> tuple[float, ...]:
    return tuple(round(float(v), 3) + 0.0 for v in values)
