"""Everyday stacking tasks: towers of four blocks in a requested order (by hue, by size).

Seeded: the spots and yaws of the blocks (5 cm cubes, or 6/5/4/3 cm for the size tower). Success: each
block rests on the one named below it (touching it, its centre over its top), the bottom one on the
table, all four upright (not tipped onto an edge) and none held.
"""

from __future__ import annotations

import math

from sim.tasks import Task, Verdict
from sim.tasks.common import axis_tilt, first_failure, new_layout, not_held, put, rests_on
from sim.world import SimWorld

HUES = ("red", "green", "blue", "yellow")  # bottom to top
SIZES = {"big": 0.06, "medium": 0.05, "small": 0.04, "tiny": 0.03}  # m, bottom to top
TIPPED = math.radians(10.0)  # a block tilted more than this is not standing on a face


def tower_verdict(world: SimWorld, order: tuple[str, ...]) -> Verdict:
    """Verdict for a tower of `order` (bottom first) standing on the table."""
    checks = [(rests_on(world, order[0], "table"), f"the {order[0]} is not on the table")]
    for below, above in zip(order, order[1:], strict=False):
        checks.append((rests_on(world, above, below), f"the {above} is not resting on the {below}"))
    checks += [
        (
            axis_tilt(world, b) % (math.pi / 2) < TIPPED
            or axis_tilt(world, b) % (math.pi / 2) > math.pi / 2 - TIPPED,
            f"the {b} is tipped",
        )
        for b in order
    ]
    checks += not_held(world, *order)
    return first_failure(checks, f"the tower stands: {', '.join(order)} from the bottom up")


def _tower_sketch(order: tuple[str, ...], what: str) -> str:
    lines = [f"{what}\n\nPlan:"]
    for below, above in zip(order, order[1:], strict=False):
        lines.append(f"pick({above}); grasp the {above.replace('_', ' ')}")
        lines.append(
            f"place_ontop({above}, {below}); set it squarely on the middle of the "
            f"{below.replace('_', ' ')}'s top"
        )
    lines.append(f"achieve_goal({', '.join(order)}); the blocks stand in one tower, bottom to top")
    return "\n".join(lines) + "\n"


def _tower_checkers(order: tuple[str, ...]) -> str:
    steps = []
    for i, (below, above) in enumerate(zip(order, order[1:], strict=False)):
        steps.append(f"def goal_check{i}():\n    return stacked({above!r}, {below!r})\n")
    for i in range(1, len(order)):
        clauses = " and ".join(
            f"stacked({a!r}, {b!r})" for b, a in list(zip(order, order[1:], strict=False))[:i]
        )
        steps.append(f"def action_check{2 * i - 1}():\n    return {clauses}\n")
    return (
        "```python\n"
        "def stacked(top, base):\n"
        "    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, top, base)\n"
        "    c = get_obj_center(state, env, top)\n"
        "    s = get_obj_center(state, env, base)\n"
        "    square = abs(c[0] - s[0]) < 0.015 and abs(c[1] - s[1]) < 0.015\n"
        "    return position_within_bounds(c, b) and square\n\n" + "\n".join(steps) + "```\n"
    )


def _hue_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    for colour in HUES:
        put(world, layout, "block", f"{colour}_block", colour=colour)
    world.settle(0.5)


HUE_ORDER = tuple(f"{c}_block" for c in HUES)

TOWER_HUE = Task(
    name="tower_hue",
    instruction="stack the blocks into one tower: red at the bottom, then green, then blue, yellow on top",
    build=_hue_build,
    detect=lambda world: tower_verdict(world, HUE_ORDER),
    optimal_length=6,
    oracle_sketch=_tower_sketch(HUE_ORDER, "Four 5 cm blocks lie apart on the table."),
    oracle_checkers=_tower_checkers(HUE_ORDER),
)


def _size_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed + 1000)
    colours = ("blue", "red", "green", "yellow")
    for (name, side), colour in zip(SIZES.items(), colours, strict=True):
        put(world, layout, "block", f"{name}_block", colour=colour, size=(side,))
    world.settle(0.5)


SIZE_ORDER = tuple(f"{n}_block" for n in SIZES)

TOWER_SIZE = Task(
    name="tower_size",
    instruction="stack the four blocks into a tower, biggest at the bottom and smallest on top",
    build=_size_build,
    detect=lambda world: tower_verdict(world, SIZE_ORDER),
    optimal_length=6,
    oracle_sketch=_tower_sketch(
        SIZE_ORDER, "Four blocks of 6, 5, 4 and 3 cm lie apart on the table."
    ),
    oracle_checkers=_tower_checkers(SIZE_ORDER),
)

TASKS = (TOWER_HUE, TOWER_SIZE)
