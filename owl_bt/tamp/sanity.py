"""Implicit physical sanity of an end state: what nobody has to ask for but a success needs.

Judged on an observed WorldState after a plan was carried out, besides the goal checkers:
- nothing is in the hand unless the plan was asked to end holding it, and then that thing is;
- nothing movable is off the table (its centre beyond the table's edge, or fallen below its top);
- each object the plan last put into a container has its bottom below the rim, its centre over it;
- each object the plan last put onto a surface rests on that surface (not on a neighbour, not leaning
  on something else), judged as the planner's initial On facts are (`pddl.supports`: its box bottom
  within 2 cm of the support's top, its centre over it); on the table, a flat marker lying on it counts;
- nothing put down stands on end leaning on a neighbour: a thing taller than LEANING times its
  narrowest width whose box comes within TOUCH of another movable thing's (not its support) leans;
- each object the plan put down is not tipped from the face it was put down on: its height (the
  vertical extent of its box) within TIPPED_SHARE (at least TIPPED_MIN) of the planned one — a fork
  stood on end, a carton on its side, a bottle lying down (a ball: any way up). Heights, not axes: a
  cube seen with another face up is still a cube resting on a face. A container (whose shape
  perception fits, opening and all) also counts as tipped when its opening turned over 45°;
- nothing the plan did not put down was knocked over since the plan's observation (the same tests).

World frame, metres and radians. Every judgement tolerates the perception error of a few millimetres.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from owl_bt.state import Pose, WorldState, rotation_matrix
from owl_bt.tamp.operators import CONTAINER_CATEGORIES
from owl_bt.tamp.pddl import supports

TIPPED_SHARE, TIPPED_MIN = 0.25, 0.015  # a height off the planned one by more than this: tipped
CONTAINER_TURN = math.radians(45.0)  # a container's opening turned further than this: tipped over
LEANING = 2.0  # taller than this many times its narrowest width: it stands on end
TOUCH = 0.005  # m between boxes that counts as touching (perception error of a few millimetres)
FALLEN = 0.03  # m below the table top: an object's bottom this low has fallen off


@dataclass(frozen=True)
class Placement:
    """A place step of the plan: operator name ('place_ontop' | 'place_inside'), the object, its
    support or container, and the pose (world frame) the plan expected it to come to rest in."""

    op: str
    obj: str
    support: str
    expected: Pose | None


def last_placements(placements: Sequence[Placement]) -> list[Placement]:
    """Each object's last placement, in plan order (an object put down twice is judged where it ended)."""
    last = {p.obj: p for p in placements}
    return [p for p in placements if last[p.obj] is p]


def placements_from(executed: Sequence[str]) -> list[Placement]:
    """The place steps among executed action strings like 'place_ontop(fork, table)' (no expected
    poses: only where they rest is judged)."""
    out = []
    for text in executed:
        name, _, rest = text.partition("(")
        args = [a.strip() for a in rest.rstrip(")").split(",")]
        if name in ("place_ontop", "place_inside") and len(args) == 2:
            out.append(Placement(name, args[0], args[1], None))
    return out


def insane(
    world: WorldState,
    placements: Sequence[Placement],
    table: str = "table",
    before: WorldState | None = None,
    hold: str | None = None,
) -> str | None:
    """Why the end state `world` is not physically sane (one line), or None when it is. `before`: the
    world the plan started from; a thing the plan did not put down must not have been knocked over
    (its height changed as a tipped thing's does). `hold`: the one object the plan was asked to end
    holding (its last step a pick); anything else still in the hand, or nothing when `hold` is
    named, is not sane (judged when `world` says what the hand holds)."""
    held = world.robot.held if world.robot is not None else None
    if world.robot is not None and held != hold:
        return f"{held} is still in the hand" if held else f"{hold} is not in the hand"
    off = _off_table(world, table, hold)
    if off:
        return off
    if before is not None:
        placed = {p.obj for p in placements}
        for name, was in before.objects.items():
            if name in placed or name in (hold, held) or was.fixed or name not in world.objects:
                continue  # (what is in the hand hangs as it was gripped, not as it stood)
            knocked = _tipped(world, Placement("", name, "", was.pose))
            if knocked:
                return knocked.replace("tipped over from how it was put down", "was knocked over")
    under = dict(supports(world))
    for p in last_placements(placements):
        if p.obj not in world.objects:
            return f"{p.obj} is not seen after it was put down on {p.support}"
        why = _not_on(world, under, p, table) if p.op == "place_ontop" else _not_in(world, p)
        if why:
            return why
        tipped = _tipped(world, p) or _leaning(world, p, under)
        if tipped:
            return tipped
    return None


def _leaning(world: WorldState, p: Placement, under: dict[str, str]) -> str | None:
    if p.op != "place_ontop":  # (cutlery stood in a mug leans on its rim and on each other)
        return None
    lo, hi = world.get(p.obj).aabb()
    if hi[2] - lo[2] <= LEANING * min(hi[0] - lo[0], hi[1] - lo[1]):
        return None
    for name, other in world.objects.items():
        if name in (p.obj, p.support) or other.fixed or under.get(name) == p.obj:
            continue
        olo, ohi = other.aabb()
        if all(lo[i] - TOUCH <= ohi[i] and olo[i] <= hi[i] + TOUCH for i in range(3)):
            return f"{p.obj} stands on end leaning on {name}"
    return None


def _off_table(world: WorldState, table: str, hold: str | None = None) -> str | None:
    if table not in world.objects:
        return None
    tlo, thi = world.get(table).aabb()
    for name, obj in world.objects.items():
        if obj.fixed or name == hold:
            continue
        x, y, _ = obj.pose.position
        lo, _ = obj.aabb()
        if not (tlo[0] <= x <= thi[0] and tlo[1] <= y <= thi[1]) or lo[2] < thi[2] - FALLEN:
            return f"{name} is off the table"
    return None


def _not_on(world: WorldState, under: dict[str, str], p: Placement, table: str) -> str | None:
    got = under.get(p.obj)
    if got == p.support:
        return None
    if p.support == table and got is not None and world.get(got).fixed:
        return None  # on a flat marker lying on the table
    if got is None:
        return f"{p.obj} is not resting on {p.support} (it leans or hangs on something)"
    return f"{p.obj} rests on {got}, not on {p.support} as it was put"


def _not_in(world: WorldState, p: Placement) -> str | None:
    """A thing put into a container has its bottom below the rim and its centre over it."""
    if p.support not in world.objects:
        return None
    lo, _ = world.get(p.obj).aabb()
    clo, chi = world.get(p.support).aabb()
    x, y, _ = world.get(p.obj).pose.position
    if lo[2] < chi[2] - 0.005 and clo[0] <= x <= chi[0] and clo[1] <= y <= chi[1]:
        return None
    return f"{p.obj} is not in {p.support} (it rests on its rim or beside it)"


def _tipped(world: WorldState, p: Placement) -> str | None:
    obj = world.get(p.obj)
    if p.expected is None or obj.shape == "sphere":
        return None
    if obj.category in CONTAINER_CATEGORIES:  # an opening that no longer faces the way it did
        a, b = rotation_matrix(*p.expected.euler), rotation_matrix(*obj.pose.euler)
        cos = sum(a[i][2] * b[i][2] for i in range(3))
        if cos < math.cos(CONTAINER_TURN):
            angle = math.degrees(math.acos(max(-1.0, min(1.0, cos))))
            return f"{p.obj} tipped over from how it was put down (its opening turned {angle:.0f}°)"
    lo, hi = obj.aabb()
    plo, phi = obj.moved(p.expected).aabb()
    now, planned = hi[2] - lo[2], phi[2] - plo[2]
    if abs(now - planned) > max(TIPPED_MIN, TIPPED_SHARE * planned):
        return (
            f"{p.obj} tipped over from how it was put down ({now * 100:.0f} cm tall, planned "
            f"{planned * 100:.0f} cm)"
        )
    return None
