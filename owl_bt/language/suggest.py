"""`did you mean "strawberry"?` for a word the offline grounder does not know: the closest of the
scene's own words (object names, categories, colours and the ontology words that apply to it), else
of the grounder's vocabulary (verbs, relations, quantifiers …), by difflib's similarity ratio."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import cache

from owl_bt.language import vocabulary as V

CUTOFF = 0.75  # 'strawbery'→'strawberry' 0.95, 'plaet'→'plate' 0.8; 'put'→'pot' 0.67 is not offered


@cache
def vocabulary_words() -> frozenset[str]:
    """Every single word of the grounder's vocabulary tables (owl_bt.language.vocabulary)."""
    words: set[str] = set()
    for name, value in vars(V).items():
        tables = isinstance(value, dict | set | frozenset | tuple) and value and all(isinstance(k, str) for k in value)
        if name.isupper() and tables:  # the vocabulary's tables, not the module's __builtins__
            for phrase in value:
                words.update(phrase.replace("_", " ").split())
    return frozenset(w for w in words if len(w) > 2)


def did_you_mean(word: str, scene_words: Iterable[str]) -> str | None:
    """The known word closest to `word` (scene words first), or None when none is close, or when `word`
    is itself a word of the vocabulary (not misspelt, only used in a way not understood: 'left' is no
    typo of 'let')."""
    word = word.lower()
    if word in vocabulary_words():
        return None
    for pool in (sorted(set(scene_words)), sorted(vocabulary_words())):
        close = difflib.get_close_matches(word, [w for w in pool if w != word], n=1, cutoff=CUTOFF)
        if close:
            return close[0]
    return None
