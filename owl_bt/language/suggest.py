"""`did you mean "strawberry"?` for a word the offline grounder does not know: the known words one
typing slip away, or two for a word of seven letters or more (rapidfuzz's optimal-string-alignment
distance: a wrong, missing, extra or swapped letter is one slip) — the scene's own words (object
names, categories, colours) first, then the verbs, then the common little words ('the', 'and' …),
then the rest of the grounder's vocabulary (relations, quantifiers, liquids …):
'teh' → "the", 'pur' → "pour" or "put", 'plce' → "place", 'plaet' → "plate", 'straberyy' →
"strawberry"; a second word is offered only when it too names an object of the scene or an action
('plase': "plate" or "place"). Two slips away only a scene word or a verb is offered: a little word
that far off is a guess, not a help ('square' is not "sure")."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import cache

from rapidfuzz.distance import OSA

from owl_bt.language import vocabulary as V

MAX_SHOWN = 2  # 'pur': "pour" or "put"


@cache
def vocabulary_words() -> frozenset[str]:
    """Every single word of the grounder's vocabulary tables (owl_bt.language.vocabulary)."""
    words: set[str] = set()
    for name, value in vars(V).items():
        tables = (
            isinstance(value, dict | set | frozenset | tuple)
            and value
            and all(isinstance(k, str) for k in value)
        )
        if name.isupper() and tables:  # the vocabulary's tables, not the module's __builtins__
            for phrase in value:
                words.update(phrase.replace("_", " ").split())
    return frozenset(w for w in words if len(w) > 2)


@cache
def verbs() -> frozenset[str]:
    """The action words: what a slip in the first word of a request most likely meant."""
    groups = (V.ACTIONS, V.POUR, V.DISCARD, V.REMOVE, V.SETUP, V.TURN, V.PICK_VERBS, V.BY_VERBS)
    return frozenset(w for g in groups for p in g for w in p.split() if len(w) > 2)


def slips_allowed(word: str) -> int:
    """How many typing slips a word of this length may carry and still be recognised: 1 up to six
    letters ('teh', 'plce', 'plaet'), 2 from seven ('straberyy'); two in six letters leave a third of
    the word changed ('square' and 'sure')."""
    return 1 if len(word) <= 6 else 2


def did_you_mean(word: str, scene_words: Iterable[str]) -> list[str]:
    """Up to MAX_SHOWN known words closest to `word` (fewest slips; then scene words, verbs, little
    words, other vocabulary; then difflib's similarity), or [] when none is close, or when `word` is itself a
    word of the vocabulary (not misspelt, only used in a way not understood: 'left' is no typo of 'let')."""
    word = word.lower()
    if word in vocabulary_words():
        return []
    scene = set(scene_words)
    limit = slips_allowed(word)
    ranked = []
    for cand in scene | vocabulary_words():
        if cand == word:
            continue
        slips = OSA.distance(word, cand, score_cutoff=limit)
        if slips <= limit:
            rank = 0 if cand in scene else 1 if cand in verbs() else 2 if cand in V.FILLER else 3
            if slips > 1 and rank > 1:
                continue  # two slips from a little word or a relation: more likely another word than a typo
            ranked.append((slips, rank, -difflib.SequenceMatcher(None, word, cand).ratio(), cand))
    ranked.sort()
    best = [r for r in ranked if r[0] == ranked[0][0]]
    return [
        r[3] for r in best[:1] + [r for r in best[1:MAX_SHOWN] if r[1] <= 1]
    ]  # a second: an object or a verb


def phrase(words: list[str]) -> str:
    """' (did you mean "pour" or "put"?)' for the suggestions, '' for none."""
    return (
        f" (did you mean {' or '.join(repr(w).replace(chr(39), chr(34)) for w in words)}?)"
        if words
        else ""
    )
