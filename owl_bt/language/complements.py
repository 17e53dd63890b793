"""Categories said by what they are not, as a pure stage over the instruction's tokens before
negation is looked for: "everything that isn't dairy", "the non-vegan food", "the dairy-free
things", "everything that isn't dairy free" (the dairy). The phrase is rewritten into the objects'
own names; when none is left it is impossible in the scene, said in one line."""

from __future__ import annotations

from owl_bt.language import vocabulary as V
from owl_bt.language.goals import ImpossibleGoal
from owl_bt.language.mentions import SceneAliases

_C = V.LEXICON["complements"]
_NOT_BE = sorted((p.split() for p in _C["not_be"]), key=len, reverse=True)
_CATS = {tuple(c.split("_")): c for c in V.ONTOLOGY}


def _category_at(toks: list[str], i: int) -> tuple[str, int] | None:
    """The ontology category said at token i (singular or plural, one or two words) and its end."""
    for n in (2, 1):
        words = tuple(V.singular(t) for t in toks[i : i + n])
        if len(words) == n and words in _CATS:
            return _CATS[words], i + n
    return None


def _members(scene: SceneAliases, category: str) -> set[str]:
    kinds = V.ONTOLOGY[category] | {category}
    return {n for n, t in scene.things.items() if t.category in kinds}


def _items(scene: SceneAliases) -> list[str]:
    return [
        n
        for n in scene.movable()
        if scene.things[n].category not in V.RECEPTACLES and scene.things[n].category != "table"
    ]


def _said(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        out += ([] if not out else ["and"]) + ["the", *n.split("_")]
    return out


def _scope(toks: list[str], end: int, scene: SceneAliases) -> tuple[int, list[str]]:
    """Where the phrase the complement narrows begins, and its objects: a category before it ("the
    food that isn't vegan") or anything ("everything", "the things", "the items")."""
    start = end
    while start > 0 and toks[start - 1] in V.GENERIC | {"the", "all", "every", "any"}:
        start -= 1
    if start > 0:
        for n in (2, 1):
            hit = _category_at(toks, start - n)
            if hit is not None and hit[1] == start:
                cat = hit[0]
                start -= n
                while start > 0 and toks[start - 1] in {"the", "all", "every", "any"}:
                    start -= 1
                return start, [n_ for n_ in _items(scene) if n_ in _members(scene, cat)]
    return start, _items(scene)


def resolve_complements(toks: list[str], scene: SceneAliases) -> list[str]:
    """The tokens with each complement phrase said as the objects it means; raises ImpossibleGoal
    when it leaves none."""
    for i in range(len(toks)):
        negate, cat_at = None, None
        for p in _NOT_BE:
            if toks[i : i + len(p)] == p:
                negate, cat_at = i, i + len(p)
                break
        if negate is None and toks[i] in _C["non"]:
            negate, cat_at = i, i + 1
        hit = _category_at(toks, cat_at) if cat_at is not None else None
        free_after = hit is not None and toks[hit[1] : hit[1] + 1] == _C["free"]
        if hit is None:  # "the dairy free things": the category, then "free"
            hit = _category_at(toks, i)
            if hit is None or toks[hit[1] : hit[1] + 1] != _C["free"]:
                continue
            negate, free_after = i, True
            keep = False  # dairy free: not dairy
        else:
            keep = free_after  # "isn't dairy free": dairy
        category, end = hit
        end += free_after
        after = end
        while after < len(toks) and toks[after] in V.GENERIC:  # "the non-dairy items"
            after += 1
        start, group = _scope(toks, negate, scene)
        noun = _category_at(toks, after)  # "the non-vegan food": of the food
        if noun is not None:
            group = [n for n in _items(scene) if n in _members(scene, noun[0])]
            after = noun[1]
        inside = _members(scene, category)
        chosen = [n for n in group if (n in inside) == keep]
        said = " ".join(toks[start:after])
        if not chosen:
            raise ImpossibleGoal(f"nothing in the scene is {said!r}")
        return resolve_complements(toks[:start] + _said(chosen) + toks[after:], scene)
    return toks
