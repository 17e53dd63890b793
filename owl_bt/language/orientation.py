"""Orientation words beyond upright, read out of a clause before its places are: "lay the spoon
straight", "bowl facing away", "tines up", "handles toward me", "pointing away from me".

A clause's orientation phrases are taken out of its tokens (`take_orientation`) and, once the clause
is read, given to the goals it made (`orient_goals`) as spatial entries with no reference object:
('straight', ()) — the long side along the robot's x, lying flat — and ('points:<end>:<direction>',
()) — the object's end `<end>` (an end its kind declares in the catalogue, `sim.catalog.ENDS`, or
'front') pointing `<direction>` (away, toward, up, down, left, right: the robot's frame). "Parallel
to" and "perpendicular to" are spatial relations with a reference object (the lexicon's
[relations.spatial]). Every word is the lexicon's `[orientation]` data; an end the object does not
have is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.goals import Goal
from owl_bt.language.scene_view import Thing
from sim.catalog import ENDS

_LEX = V.LEXICON["orientation"]
STRAIGHT = set(_LEX["straight"])
DIRECTLY_BEFORE = set(_LEX["directly_before"])
LAY_VERBS = set(_LEX["lay_verbs"])
VERBS = set(_LEX["verbs"])
END_WORDS: dict[str, str] = dict(_LEX["ends"])
DIRECTIONS = sorted(
    ((tuple(p.split()), d) for p, d in _LEX["directions"].items()), key=lambda pd: -len(pd[0])
)
VECTORS: dict[str, tuple[float, float, float]] = {
    d: tuple(float(c) for c in v) for d, v in _LEX["vectors"].items()
}
DIRECTION_WORDS = {
    "away": "away from the robot",
    "toward": "toward the robot",
    "up": "up",
    "down": "down",
    "left": "to the robot's left",
    "right": "to the robot's right",
}
OBJECT_WORDS = set(_LEX["object_words"])
_LEADS = {"its", "their", "the", "with", "and", "so", "that"}


@dataclass(frozen=True)
class Orientation:
    """An orientation a clause asks of what it moves: `end` pointing `direction` ('away', 'up', …),
    or straight when `end` is empty; `said`: the words, for refusals."""

    end: str
    direction: str
    said: str

    def entry(self) -> tuple[str, tuple[str, ...]]:
        """The goal's spatial entry: ('straight', ()) or ('points:<end>:<direction>', ())."""
        if not self.end:
            return ("straight", ())
        return (f"points:{self.end}:{self.direction}", ())


def _direction(toks: list[str], i: int) -> tuple[str, int] | None:
    """(direction, tokens it spans) of the direction phrase starting at toks[i], if one does."""
    for phrase, d in DIRECTIONS:
        if tuple(toks[i : i + len(phrase)]) == phrase:
            return d, len(phrase)
    return None


def take_orientation(toks: list[str]) -> tuple[list[str], list[Orientation]]:
    """The clause's tokens without its orientation phrases, and those phrases read. An end phrase is
    an end word, optionally a verb (facing, pointing, toward …), then a direction ("tines up", "bowl
    facing away from me", "handles toward me"); a bare verb and direction ("pointing away") names the
    front end; 'straight' is straight unless it means 'directly' ("straight into the bowl"), which it
    never does after 'lay' or 'set' ("lay the fork straight on the tray")."""
    out: list[str] = []
    found: list[Orientation] = []
    laid = bool(set(toks[:2]) & LAY_VERBS)  # "lay the fork straight on …": how it lies
    i = 0
    while i < len(toks):
        t = toks[i]
        directly = toks[i + 1 : i + 2] and toks[i + 1] in DIRECTLY_BEFORE and not laid
        if t in STRAIGHT and not directly:
            found.append(Orientation("", "", t))
            i += 1
            continue
        end = END_WORDS.get(t)
        j = i + 1 if end else i
        verb = j < len(toks) and toks[j] in VERBS
        d = _direction(toks, j) if end else None  # "handle toward me": 'toward' starts it
        if d is None:
            j += verb
            d = _direction(toks, j) if j > i else None
        # an end word that also names objects ("the bowl to the left") needs a verb or "its"
        thing_word = t in OBJECT_WORDS and not verb and not (out and out[-1] in {"its", "their"})
        if d is not None and (end or toks[i] in VERBS) and not thing_word:
            k = j + d[1]
            while out and out[-1] in _LEADS:  # "its bowl …", "with the tines …"
                out.pop()
            found.append(Orientation(end or "front", d[0], " ".join(toks[i:k])))
            i = k
            continue
        out.append(t)
        i += 1
    while found and out and out[-1] in {",", "and", "with", "both"}:
        out.pop()
    return out, found


def orient_goals(goals: list[Goal], said: list[Orientation], things: dict[str, Thing]) -> None:
    """Give each final goal in `goals` (one clause's) the orientations `said`; raises GroundingError
    when there is no goal to give them to or an object lacks the end named."""
    targets = [g for g in goals if g.final and g.how != "pour"]
    if not targets:
        words = ", ".join(repr(o.said) for o in said)
        raise GroundingError(f"{words} says how something should lie, but not which object")
    for g in targets:
        kind = things[g.obj].category if g.obj in things else g.obj
        ends = ENDS.get(kind, {})
        for o in said:
            if not o.end and not _long(things.get(g.obj)):
                raise GroundingError(
                    f"the {g.obj.replace('_', ' ')} has no long side to lie {o.said!r}; "
                    f"say where to put it without it"
                )
            if o.end and o.end not in ends:
                known = ", ".join(k for k in ends if k != "front") or "no named ends"
                raise GroundingError(
                    f"the {g.obj.replace('_', ' ')} has no {o.end if o.end != 'front' else 'front end'}"
                    f" to point {o.direction} ({known}); say how it should lie another way"
                )
            if o.end and o.direction in ("up", "down") and not _stands_in(g, things):
                raise GroundingError(
                    f"{o.said!r}: the {g.obj.replace('_', ' ')} would have to stand on its end "
                    f"on the {g.support.replace('_', ' ')}, where it cannot stay; an end up or down "
                    f"is for standing it in a container (e.g. 'in the mug, {o.said}')"
                )
            entry = o.entry()
            if entry not in g.spatial:
                g.spatial.append(entry)


def _stands_in(g: Goal, things: dict[str, Thing]) -> bool:
    """Can goal g's object stand on an end where it goes: in a container (a fork in a mug, tines
    up), or anything when the object is not long (a bottle, cap up) or sizes are unknown."""
    t = things.get(g.obj)
    return g.how == "inside" or t is None or len(t.size) < 3 or max(t.size) < 2.5 * min(t.size[:2])


def _long(t: Thing | None) -> bool:
    """Is the thing longer one way than the other across (a fork, a mug with its handle), so that
    which way it lies can be seen? True when the prompt gives no sizes."""
    if t is None or len(t.size) < 2:
        return True
    a, b = sorted(t.size[:2])
    return b >= 1.3 * a
