"""Elliptic noun phrases, as a pure stage over the instruction's tokens before its clauses are
read: "the yellow and green ones" (the head noun said once for two modifiers) and "the other two",
"the rest", "the others" (the objects of the kind just named that are not named yet). Each is
rewritten into the objects' own names; one whose objects cannot be told is refused."""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.mentions import SceneAliases, find_mentions

_E = V.LEXICON["ellipsis"]
_OTHERS = sorted((p.split() for p in _E["others"]), key=len, reverse=True)
_COUNTS: dict[str, int] = _E["counts"]


def _name_words(name: str) -> list[str]:
    return ["the", *name.split("_")]


def _others(toks: list[str], scene: SceneAliases) -> list[str]:
    for i in range(len(toks)):
        for p in _OTHERS:
            if toks[i : i + len(p)] != p:
                continue
            before = find_mentions(toks[:i], scene, set())
            if not before:
                raise GroundingError(f"{' '.join(p)!r} of what? name the objects first")
            named = {n for m in before for n in m.names}
            said = " ".join(p)
            count = next((_COUNTS[w] for w in p if w in _COUNTS), None)
            groups = []  # the latest object phrase whose kind has others not named yet
            for m in reversed(before):
                kind = scene.things[m.names[0]].category
                group = [
                    n
                    for n, t in scene.things.items()
                    if t.category == kind and n not in named and not t.fixed
                ]
                groups.append((kind, group))
                if group and (count is None or count == len(group)):
                    break
            kind, group = groups[-1]
            if not group or count is not None and count != len(group):
                raise GroundingError(
                    f"{said!r} would be {len(group) or 'no'} other {kind.replace('_', ' ')}"
                    f"{'s' if len(group) != 1 else ''} in the scene"
                    f"{' (' + ', '.join(n.replace('_', ' ') for n in group) + ')' if group else ''}"
                    f"; name them"
                )
            words: list[str] = []
            for n in group:
                words += ([] if not words else ["and"]) + _name_words(n)
            return _others(toks[:i] + words + toks[i + len(p) :], scene)
    return toks


def _ones(toks: list[str], scene: SceneAliases) -> list[str]:
    """'the yellow and green ones': 'the yellow <noun> and the green <noun>' with the noun of the
    object phrase before it."""
    for i in range(len(toks) - 3):
        a, conj, b, ones = toks[i : i + 4]
        if ones != "ones" or conj not in {"and", "or"} or a not in V.COLOURS or b not in V.COLOURS:
            continue
        before = find_mentions(toks[:i], scene, set())
        if not before:
            return toks
        noun = toks[before[-1].end - 1]
        noun = V.singular(noun)
        start = i - 1 if i > 0 and toks[i - 1] == "the" else i
        return toks[:start] + ["the", a, noun, conj, "the", b, noun] + toks[i + 4 :]
    return toks


def resolve_ellipsis(toks: list[str], scene: SceneAliases) -> list[str]:
    """The instruction's tokens with its elliptic phrases said in full; raises GroundingError when
    'the other two' or 'the rest' does not fit the scene."""
    return _others(_ones(toks, scene), scene)
