"""Goals the offline grounder can see no plan meets, answered `impossible(<reason>)` rather than
tried: a verb naming a skill the robot lacks ("open the milk carton"), an object the gripper cannot
take (a catalogue kind marked not pickable: wider than the 85 mm gripper every way), and a thing
put into a container whose opening it cannot pass (its second-smallest extent wider than the
opening). Words are the lexicon's `[no_skill]`; sizes are the prompt's (metres).
"""

from __future__ import annotations

from owl_bt.language import vocabulary as V
from owl_bt.language.goals import Goal, ImpossibleGoal, MovesFixed
from owl_bt.language.scene_view import Thing, container
from sim.catalog.everyday import EVERYDAY, PICKABLE_EVERYDAY

NO_SKILL: dict[str, str] = dict(V.LEXICON["no_skill"]["verbs"])
CLAUSE_LEADS = set(V.LEXICON["no_skill"]["leads"])
NOT_PICKABLE = frozenset(EVERYDAY) - PICKABLE_EVERYDAY


def refuse_no_skill(toks: list[str]) -> None:
    """Raise ImpossibleGoal when a clause is led by a verb naming a skill the robot lacks ("open the
    carton", "please cut the bread"); an adjective ("the open bin") is no request."""
    for i, t in enumerate(toks):
        after = toks[i + 1] if i + 1 < len(toks) else ""
        if t in NO_SKILL and (i == 0 or toks[i - 1] in CLAUSE_LEADS) and after not in {"to", "by"}:
            raise ImpossibleGoal(
                f"the robot can pick, place and pour, but has no skill that {NO_SKILL[t]}"
            )


def _w(name: str) -> str:
    return name.replace("_", " ")


def refuse_infeasible(goals: list[Goal], things: dict[str, Thing]) -> None:
    """Raise ImpossibleGoal for the first goal no plan can meet: its object fixed in place (the
    table, a region, a mat), a kind the gripper cannot take, or too wide for the container it is to
    go in."""
    for g in goals:
        t = things.get(g.obj)
        if t is None:
            continue
        if t.fixed:  # "put the table on the apple", "pick up the mat": fixed where it is
            raise MovesFixed(g.obj)
        if t.category in NOT_PICKABLE:
            raise ImpossibleGoal(
                f"the {_w(g.obj)} cannot be picked up: it is wider than the gripper's 85 mm "
                f"opening every way it could be taken"
            )
        c = things.get(g.support)
        if g.how != "inside" or c is None or not container(c) or not t.size or not c.size:
            continue
        small = sorted(t.size)[1]
        opening = min(c.size[0], c.size[1])
        if small > opening:
            raise ImpossibleGoal(
                f"the {_w(g.obj)} is {small * 100:.0f} cm across at its narrowest way in, wider "
                f"than the whole {_w(g.support)} ({opening * 100:.0f} cm across)"
            )
