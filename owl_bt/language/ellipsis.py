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


def _kind_with(toks: list[str], scene: SceneAliases, colours: list[str]) -> str | None:
    """The kind of the latest object phrase in `toks` of which the scene has an object of each colour,
    else the scene's only kind that has; None when none or several."""
    for m in reversed(find_mentions(toks, scene, set())):
        kind = scene.things[m.names[0]].category
        have = {t.colour for t in scene.things.values() if t.category == kind}
        if all(c in have for c in colours):
            return kind
    kinds = {  # else the one kind of the scene that has them all
        k
        for k in {t.category for t in scene.things.values()}
        if all(
            any(t.category == k and t.colour == c for t in scene.things.values()) for c in colours
        )
    }
    return kinds.pop() if len(kinds) == 1 else None


def _ones(toks: list[str], scene: SceneAliases) -> list[str]:
    """'the yellow and green ones': 'the yellow <kind> and the green <kind>', 'the yellow one':
    'the yellow <kind>', the kind of the object phrase before it that has objects of those colours."""
    for i in range(len(toks) - 1):
        a = toks[i]
        if a not in V.COLOURS:
            continue
        if toks[i + 1] == "one":
            kind = _kind_with(toks[:i], scene, [a])
            if kind is None:
                continue
            return _ones([*toks[:i], a, *kind.split("_"), *toks[i + 2 :]], scene)
        if toks[i + 1 : i + 2] not in (["and"], ["or"]) or toks[i + 3 : i + 4] != ["ones"]:
            continue
        b = toks[i + 2]
        kind = _kind_with(toks[:i], scene, [a, b])
        if b not in V.COLOURS or kind is None:
            continue
        noun = kind.split("_")
        start = i - 1 if i > 0 and toks[i - 1] == "the" else i
        return toks[:start] + ["the", a, *noun, toks[i + 1], "the", b, *noun] + toks[i + 4 :]
    return toks


def resolve_ellipsis(toks: list[str], scene: SceneAliases) -> list[str]:
    """The instruction's tokens with its elliptic phrases said in full; raises GroundingError when
    'the other two' or 'the rest' does not fit the scene."""
    return _others(_ones(toks, scene), scene)
