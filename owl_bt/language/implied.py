"""Verbs that say where their object ends ("sauté the mushroom": in the cookware; "weigh the lemon":
on the scale; "wipe the tray": the cleaning tool placed on it), read from the lexicon's `[verbs]`.

A pure stage before the clause is read: a clause led by such a verb with no place of its own is
rewritten as the placement it implies, over the scene's one object of the landmark's category. It
refuses in one line when the scene has none of that category, or several (which one is asked).
"""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.goals import ImpossibleGoal
from owl_bt.language.mentions import SceneAliases

# words that may come before the verb ("please sauté …", "could you weigh …", "now serve …")
_LEAD = {"please", "can", "could", "would", "will", "you", "kindly", "now", "just", "go", "and"}


@dataclass(frozen=True)
class Implied:
    """The placement an implying verb stands for: `toks`, the clause said as a placement; `tool`: the
    object moved instead of the one named (a cleaning tool) and `note`, how the sketch says it."""

    toks: list[str]
    tool: str = ""
    note: str = ""


def verb_at(toks: list[str]) -> int | None:
    """The index of the clause's leading implying verb, if it has one."""
    for i, t in enumerate(toks):
        if t in _LEAD or t == ",":
            continue
        return i if t in V.IMPLIED else None
    return None


def _of_category(scene: SceneAliases, category: str) -> list[str]:
    kinds = V.ONTOLOGY.get(category, set()) | {category}
    return [n for n, t in scene.things.items() if t.category in kinds]


def _one(scene: SceneAliases, category: str, verb: str, what: str) -> str:
    found = _of_category(scene, category)
    said = category.replace("_", " ")
    if not found:
        kinds = ", ".join(
            sorted(k.replace("_", " ") for k in V.ONTOLOGY.get(category, {category}))[:4]
        )
        place = V.IMPLIED[verb]
        how = _RELATION_SAID[place.relation]
        does = (
            f"places a {said} ({kinds}) {how} it"
            if place.tool
            else f"puts it {how} a {said} ({kinds})"
        )
        hint = "" if place.tool else "; say where to put it"  # a tool verb moves no named object
        raise ImpossibleGoal(f"to {verb} {what} the robot {does}, and the scene has none{hint}")
    if len(found) > 1:
        names = " or the ".join(n.replace("_", " ") for n in found)
        raise GroundingError(f"to {verb} {what}: which {said}, the {names}? name one")
    return found[0]


_RELATION_SAID = {"inside": "in", "ontop": "on"}


def implied_placement(toks: list[str], k: int, scene: SceneAliases) -> Implied:
    """The clause `toks`, whose verb at `k` implies a place, said as the placement it means; raises
    GroundingError when the scene has no landmark (or tool) of the category, or several."""
    verb = toks[k]
    place = V.IMPLIED[verb]
    rest = toks[k + 1 :]
    what = " ".join(rest) or "it"
    said = _RELATION_SAID[place.relation]
    if place.tool:
        tool = _one(scene, place.tool, verb, what)
        if set(rest) & {"table", "tabletop", "counter"}:
            raise ImpossibleGoal(
                f"to {verb} the table needs a {verb} skill the robot lacks (it can only place the "
                f"{tool.replace('_', ' ')} somewhere); say where to put it"
            )
        done = place.verb + ("d" if place.verb.endswith("e") else "ed")
        note = (
            f"{place.said} on it, not {done}: the robot has no {place.verb} skill"
            if place.said
            else ""
        )
        return Implied(["put", "the", *tool.split("_"), said, *rest], tool, note)
    landmark = _one(scene, place.landmark, verb, what)
    return Implied(["put", *rest, said, "the", *landmark.split("_")])
