"""Superlatives of distance, which need a reference object: "the fruit closest to the mug", "the
closest fruit to the mug", "the fruit that is farthest from the plate", "the fruit nearest the bowl"
— the one object of a group whose centre is nearest to (farthest from) the reference's centre on
the table; "the fruit nearest to the robot": to the robot's base. Without a reference ("the
closest fruit") the grounder asks "closest to what?" rather than guess."""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.mentions import Mention

DISTANCE = frozenset(w for w, (what, _pick) in V.SUPERLATIVES.items() if what == "distance")
LINKS = {"that", "which", "is", "are", "one"}  # "the fruit that is closest to …"
ARTICLES = {"the", "a", "an"}


def distance_superlatives(
    toks: list[str], ments: list[Mention]
) -> tuple[dict[int, tuple[str, Mention | None]], set[int], list[Mention]]:
    """For each group mention (more than one object) with a distance superlative before it ("the
    closest fruit to …") or after it ("the fruit (that is) closest to …"): {its start token:
    (the superlative word, the reference mention, or None for the robot)}; the token indices the superlative phrase
    covers after the group (the word, 'to'/'from', the reference); and the mentions without the
    references. Raises GroundingError for such a superlative with no reference object."""
    found: dict[int, tuple[str, Mention | None]] = {}
    covered: set[int] = set()
    refs: set[int] = set()
    starts = {m.start: m for m in ments}
    for m in ments:
        if len(m.names) < 2 or m.start in refs:
            continue
        word = next((w for w in toks[max(0, m.start - 3) : m.start] if w in DISTANCE), None)
        j = m.end
        while j < len(toks) and toks[j] in LINKS:
            j += 1
        if word is None and j < len(toks) and toks[j] in DISTANCE:
            word, j = toks[j], j + 1
        if word is None:
            continue
        if j < len(toks) and toks[j] in {"to", "from"}:
            j += 1
        while j < len(toks) and toks[j] in ARTICLES:
            j += 1
        if toks[j : j + 1] == [
            "robot"
        ]:  # "the fruit nearest to the robot": to its base, at the table's near edge
            found[m.start] = (word, None)
            covered |= set(range(m.end, j + 1))
            continue
        ref = starts.get(j)
        if ref is None:
            raise GroundingError(
                f"'{word}' to what? {' '.join(toks)!r}; say e.g. 'the fruit {word} to the plate'"
            )
        found[m.start] = (word, ref)
        covered |= set(range(m.end, ref.end))
        refs.add(ref.start)
    return found, covered, [m for m in ments if m.start not in refs]
