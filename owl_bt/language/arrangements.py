"""Instructions about several objects at once that one rule reads, as pure stages over a clause's
tokens and the scene: matching by an attribute ("each ball into the cup of its own colour"),
orderings ("line the cans up from shortest to tallest", "stack the blocks largest first", "in
rainbow order") and swaps ("swap the bowl and the mug"). Each returns the placements it means, or
None when the clause is not of its kind (or has a word it does not know: the reader then names it);
it raises GroundingError when the clause is of its kind but cannot be met as said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.goals import ImpossibleGoal
from owl_bt.language.mentions import Mention, SceneAliases, find_mentions
from owl_bt.language.scene_view import container, measure

_LEX = V.LEXICON
_MATCH = {a: [p.split() for p in ps] for a, ps in _LEX["matching"].items()}
_ORDER = _LEX["ordering"]
_ADJ = {
    w: (scale, {"max": max, "min": min}[end]) for w, (scale, end) in _ORDER["adjectives"].items()
}
_SWAP = _LEX["swap"]
_MATCH_WORDS = {"sort", "into", "match", "pair"} | V.TOWARDS


@dataclass(frozen=True)
class Placement:
    """`obj` ends `how` ('ontop' | 'inside') `support` (None: where the reader decides), with
    `spatial` relations as the reader's goals have them."""

    obj: str
    how: str
    support: str | None
    spatial: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)


def _find(toks: list[str], phrase: list[str]) -> int | None:
    n = len(phrase)
    return next((i for i in range(len(toks) - n + 1) if toks[i : i + n] == phrase), None)


def _cut(toks: list[str], phrases: list[list[str]]) -> tuple[list[str], list[str]] | None:
    """The tokens without the first (longest) phrase found, and the phrase."""
    for p in sorted(phrases, key=len, reverse=True):
        i = _find(toks, p)
        if i is not None:
            return toks[:i] + toks[i + len(p) :], p
    return None


def _understood(toks: list[str], ments: list[Mention], extra: set[str]) -> bool:
    covered = {i for m in ments for i in range(m.start, m.end)}
    known = V.FILLER | V.ACTION_FORMS | extra | set(V.SUPPORT) | V.QUANT_ALL
    return all(i in covered or t in known for i, t in enumerate(toks))


def _support_at(toks: list[str]) -> tuple[int, str] | None:
    """The first support word ('in', 'into', 'on', 'onto', …) and its relation; else the first
    'to' ("match the balls to the cups": in a container, on anything else)."""
    for i, t in enumerate(toks):
        if t in V.SUPPORT and " " not in t:
            return i, V.SUPPORT[t]
    return next(((i, "inside") for i, t in enumerate(toks) if t in V.TOWARDS), None)


def _table(scene: SceneAliases, name: str) -> str:
    """The scene's table, where a row or a tower stands when no support is said; raises
    GroundingError for a scene with none (a prompt that lists no table)."""
    table = scene.table()
    if table is None:
        raise GroundingError(f"no surface to put the {name.replace('_', ' ')} on; say where")
    return table


def _how(rel: str, scene: SceneAliases, support: str) -> str:
    t = scene.things[support]
    if rel == "inside" and container(t):
        return "inside"
    return "ontop"


def matching(toks: list[str], scene: SceneAliases) -> list[Placement] | None:
    """'put each ball into the cup of its own colour': each moved object into (onto) the landmark
    sharing its attribute. Raises GroundingError when one has no landmark of its attribute, or two."""
    for attribute, phrases in _MATCH.items():
        cut = _cut(toks, phrases)
        if cut is None:
            continue
        rest, _ = cut
        at = _support_at(rest)
        if at is None:
            return None
        k, rel = at
        ments = find_mentions(rest, scene, set())
        movers = [n for m in ments if m.end <= k for n in m.names]
        places = [n for m in ments if m.start > k for n in m.names]
        if not movers and set(rest[:k]) & V.GENERIC:  # "sort the objects into the bins by colour"
            movers = [
                n
                for n in scene.movable()
                if n not in places and scene.things[n].category not in V.RECEPTACLES
            ]
        if not movers or not places or not _understood(rest, ments, _MATCH_WORDS):
            return None
        out = []
        for obj in movers:
            value = getattr(scene.things[obj], attribute)
            same = [p for p in places if getattr(scene.things[p], attribute) == value and p != obj]
            if len(same) != 1:
                said = obj.replace("_", " ")
                listed = " and the ".join(p.replace("_", " ") for p in places)
                which = "none" if not same else f"{len(same)}"
                raise (GroundingError if same else ImpossibleGoal)(
                    f"the {said} is {value or 'of no known ' + attribute}, and {which} of the "
                    f"{listed} {'is' if not same else 'are'} {value}; say where the {said} goes"
                )
            out.append(Placement(obj, _how(rel, scene, same[0]), same[0]))
        return out
    return None


def _scale(toks: list[str]) -> tuple[list[str], str, bool] | None:
    """The ordering a clause asks for: (its tokens without the ordering words, the scale, ascending)."""
    if "from" in toks and "to" in toks[toks.index("from") :]:
        i = toks.index("from")
        j = toks.index("to", i)
        lo, hi = toks[i + 1 : j], toks[j + 1 : j + 2]
        first = next((w for w in lo if w in V.SUPERLATIVES or w in _ADJ), None)
        last = hi[0] if hi and (hi[0] in V.SUPERLATIVES or hi[0] in _ADJ) else None
        if first and last:
            scale, pick = V.SUPERLATIVES.get(first) or _ADJ[first]
            if scale == "distance":
                return None
            return toks[:i] + toks[j + 2 :], scale, pick is min
        hues = V.HUE_ORDER  # "from red to yellow": in hue order, that way round
        if lo[-1:] and hi and lo[-1] in hues and hi[0] in hues and lo[-1] != hi[0]:
            return toks[:i] + toks[j + 2 :], "hue", hues.index(lo[-1]) < hues.index(hi[0])
    for phrase in _ORDER["hue_phrases"]:
        cut = _cut(toks, [phrase.split()])
        if cut:
            return cut[0], "hue", True
    for word, scale in _ORDER["by"].items():
        cut = _cut(toks, [["by", word]])
        if cut:
            return cut[0], scale, True
    return None


def _hue(colour: str) -> int:
    order = V.HUE_ORDER
    if colour not in order:
        raise GroundingError(
            f"a {colour or 'colourless'} object has no place in rainbow order "
            f"({', '.join(order)}); say the order"
        )
    return order.index(colour)


def ordering(toks: list[str], scene: SceneAliases) -> list[Placement] | None:
    """'line the cans up from shortest to tallest' (a row left to right as the robot sees it, each
    beside and in line with the one before), 'stack the blocks from largest to smallest' (a tower,
    the first at the bottom; with no order said, the largest at the bottom), 'in rainbow order'; on
    the support said, else the table."""
    found = _scale(toks)
    stack = bool(set(toks) & {"stack", "pile", "tower"})
    if found is None and stack:  # "stack the blocks": a tower, the largest at the bottom
        found = (toks, "volume", False)
    if found is None:
        return None
    rest, scale, ascending = found
    at = _support_at(rest)
    ments = find_mentions(rest, scene, set())
    k = at[0] if at else len(rest)
    movers = [n for m in ments if m.end <= k for n in m.names]
    base = [n for m in ments if m.start > k for n in m.names]
    words = set(_ORDER["row_words"]) | set(_ORDER["stack_words"]) | set(_ORDER["numbers"])
    if len(movers) < 2 or len(base) > 1 or not _understood(rest, ments, words):
        return None
    if scale == "hue":
        movers.sort(key=lambda n: _hue(scene.things[n].colour), reverse=not ascending)
    else:
        movers.sort(key=lambda n: measure(scene.things[n], scale), reverse=not ascending)
    support = base[0] if base else _table(scene, movers[0])
    how = _how(at[1], scene, support) if at else "ontop"
    out = [Placement(movers[0], how, support)]
    for prev, obj in zip(movers, movers[1:], strict=False):
        if stack:
            out.append(Placement(obj, "ontop", prev))
        else:
            out.append(Placement(obj, how, support, [("right_of", (prev,)), ("aligned", (prev,))]))
    return out


def swap(toks: list[str], scene: SceneAliases) -> tuple[str, str] | None:
    """'swap the bowl and the mug', 'switch the places of the apple and the pear': the two objects
    (each is to end where the other was). Raises GroundingError when it names other than two."""
    verb = next((i for i, t in enumerate(toks) if t in _SWAP["verbs"]), None)
    if verb is None:
        return None
    ments = find_mentions(toks, scene, set())
    if not _understood(toks, ments, set(_SWAP["verbs"]) | set(_SWAP["words"])):
        return None
    names = list(dict.fromkeys(n for m in ments for n in (m.names if m.many else m.names[:1])))
    ambiguous = [m for m in ments if len(m.names) > 1 and not m.many]
    if len(names) != 2 or ambiguous:
        said = ", ".join(n.replace("_", " ") for n in names) or "nothing"
        raise GroundingError(
            f"to {toks[verb]} needs two objects, each to end where the other was; "
            f"{' '.join(toks)!r} names {said}; name the two"
        )
    return names[0], names[1]


def respectively(toks: list[str], scene: SceneAliases) -> list[Placement] | None:
    """'put the apple and the pear in the bowl and on the plate respectively': the n-th object to
    the n-th place. Raises GroundingError when the counts differ."""
    if "respectively" not in toks:
        return None
    rest = [t for t in toks if t != "respectively"]
    at = _support_at(rest)
    if at is None:
        return None
    k = at[0]
    ments = find_mentions(rest, scene, set())
    movers = [n for m in ments if m.end <= k for n in m.names]
    places: list[tuple[str, str]] = []
    rel = at[1]
    for i, t in enumerate(rest[k:], start=k):
        if t in V.SUPPORT and " " not in t:
            rel = V.SUPPORT[t]
        m = next((m for m in ments if m.start == i), None)
        if m is not None:
            places += [(rel, n) for n in m.names]
    if not movers or not places or not _understood(rest, ments, set()):
        return None
    if len(movers) != len(places):
        raise GroundingError(
            f"'respectively' pairs each object with a place, and {' '.join(toks)!r} names "
            f"{len(movers)} objects and {len(places)} places; say where each goes"
        )
    return [Placement(o, _how(r, scene, p), p) for o, (r, p) in zip(movers, places, strict=True)]


def _said_order(toks: list[str], scene: SceneAliases, movers: list[str]) -> list[str] | None:
    """The movers in the order the words after the first one say them ("red at the bottom, then
    green, then blue, yellow on top": bottom first), each named once by its colour or name; None
    when they are not all named so."""
    named: list[tuple[int, str]] = []
    for n in movers:
        t = scene.things[n]
        at = [i for i, w in enumerate(toks) if w == t.colour]
        if len(at) != 1 or sum(scene.things[m].colour == t.colour for m in movers) != 1:
            return None
        named.append((at[0], n))
    order = [n for _, n in sorted(named)]
    first = min(i for i, _ in named)
    after = " ".join(toks[first + 1 : first + 4])
    if any(after.startswith(p) for p in _ORDER["top_words"]):
        order.reverse()
    elif not any(after.startswith(p) for p in _ORDER["bottom_words"]):
        return None
    return order


def said_stack(toks: list[str], scene: SceneAliases) -> list[Placement] | None:
    """'stack the blocks: red at the bottom, then green, then blue, yellow on top': a tower in the
    order said (read over the whole instruction, before it is cut into clauses); None when the
    instruction is not a stack with every object's place said by its colour."""
    if not set(toks) & {"stack", "pile", "tower"} or "then" not in toks and "," not in toks:
        return None
    head = next(i for i, t in enumerate(toks) if t in {"stack", "pile", "tower"})
    group = next((m for m in find_mentions(toks[head:], scene, set()) if m.many), None)
    if group is None or len(group.names) < 2:
        return None
    rest = toks[head + group.end :]
    said = {w for p in _ORDER["bottom_words"] + _ORDER["top_words"] for w in p.split()}
    known = V.FILLER | V.COLOURS | V.SEQUENCE | said | {",", ":", ";", ".", "!"}
    if any(t not in known for t in rest):  # anything else said: not only a tower's order
        return None
    order = _said_order(rest, scene, list(group.names))
    if order is None:
        return None
    return [Placement(order[0], "ontop", _table(scene, order[0]))] + [
        Placement(obj, "ontop", prev) for prev, obj in zip(order, order[1:], strict=False)
    ]
