"""Pieces the everyday tasks share: oracle answers written from a list of steps, ground-truth
judgements about ends and start positions, and the "nothing moved" check of impossible requests.

World frame: x away from the robot, y to its left, z up; metres and radians.
"""

from __future__ import annotations

import math

from sim import catalog
from sim.tasks.common import axis_tilt, notes, to_world
from sim.world import SimWorld

FLAT = math.radians(15.0)  # a thing lying flat: its own z axis within this of up
STRAIGHT = math.radians(20.0)  # "straight": its front end within this of +x


def sketch(scene: str, steps: list[tuple[str, str]], goal: str) -> str:
    """An oracle sketch answer: the scene in words, then `Plan:` and one line per (op, description)."""
    lines = [scene, "", "Plan:"] + [f"{op}; {what}" for op, what in steps] + [goal]
    return "\n".join(lines) + "\n"


def checkers(helpers: str, goals: list[str], actions: dict[int, str]) -> str:
    """An oracle checker answer: helper functions, goal_check<i> returning goals[i], action_check<k>
    returning actions[k]."""
    out = [helpers.strip(), ""] if helpers.strip() else []
    for i, g in enumerate(goals):
        out += [f"def goal_check{i}():", f"    return {g}", ""]
    for k, a in sorted(actions.items()):
        out += [f"def action_check{k}():", f"    return {a}", ""]
    return "```python\n" + "\n".join(out) + "```\n"


def end_direction(world: SimWorld, name: str, end: str) -> tuple[float, ...]:
    """The unit vector (world) from the object's centre to its named end (catalogue ENDS data)."""
    ends = catalog.ENDS[world.bodies[name].spec.kind]
    local = ends[ends["front"] if end == "front" else end]
    a = to_world(world, name, (0.0, 0.0, 0.0))
    b = to_world(world, name, tuple(local))
    return tuple(q - p for p, q in zip(a, b, strict=True))


def lies_flat(world: SimWorld, name: str) -> bool:
    return axis_tilt(world, name) <= FLAT


def remember_start(world: SimWorld, *names: str) -> None:
    """Record the objects' start positions in the episode notes (read by `start_of`, `unmoved`)."""
    notes(world)["start"] = {n: world.pose(n).position for n in names}


def start_of(world: SimWorld, name: str) -> tuple[float, ...]:
    return notes(world)["start"][name]


def unmoved(world: SimWorld, *names: str, tol: float = 0.01) -> list[tuple[bool, str]]:
    """Checks that each object is within `tol` m of where it started."""
    return [
        (math.dist(world.pose(n).position, start_of(world, n)) <= tol, f"the {n} was moved")
        for n in names
    ]
