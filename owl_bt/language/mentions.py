"""Object phrases of an instruction for the offline grounder: tokens, the scene's aliases (name
parts, categories, colours, synonyms, the ontology) and mentions (longest match first, "citrus
fruit" intersects). The cut into clauses is owl_bt.language.sequencing's."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from owl_bt.language import vocabulary as V
from owl_bt.language.scene_view import Thing, held_in, inside, resting_on


@dataclass
class Mention:
    start: int
    end: int
    names: list[str]
    many: bool  # plural, a category or quantified: every name is meant
    generic: bool = False  # "the red things": whatever has the colour (the reader keeps the items, not receptacles)


def tokens_of(text: str) -> list[str]:
    # fullwidth and other compatibility forms as plain letters; zero-width and other format characters dropped
    text = re.sub(
        r"(?<=[^\W\d_])[’‘`´](?=[^\W\d_])", "'", text
    )  # "don’t", "don`t", "don´t": an apostrophe
    text = "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf"
    )
    text = text.lower().replace("-", " ")
    for a, b in (
        ("it's", "it is"),
        ("let's", "let us"),
        ("that's", "that is"),
        ("i'd", "i would"),
        ("don't", "do not"),
        ("can't", "cannot"),
        ("i'm", "i am"),
    ):
        text = re.sub(rf"\b{re.escape(a)}\b", b, text)
    # "near where the other fruit are": near them (what is said of where a thing is now, not was)
    text = re.sub(
        r"\b(near|next to|beside|close to|by|alongside) where ((?:[^\W\d_]+ ){1,5}?)(?:is|are|sits?|lies?|stands?)"
        r"(?! (?:initially|originally|at first|at the start|to begin with))\b",
        r"\1 \2",
        text,
    )
    text = re.sub(
        r"\bmaking sure\b", "make sure", text
    )  # "…, making sure the mug is upright": a state
    text = re.sub(
        r"\bcan (you|i|we|they|it|be|one)\b", r"could \1", text
    )  # the modal verb, not a can
    text = re.sub(r"\b(i|you|we|they|one) can\b", r"\1 could", text)
    toks = re.findall(
        r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+|[.,;!?()]", text
    )  # digits kept: "2 apples" counts
    return _bare_centre(_half_of(_robot_side(toks)))


_SIDES = {"left", "right"}
_SUPPORT_WORDS = {"on", "onto", "in", "into", "inside", "atop", "upon"}
_CLAUSE_END = {".", ";", "!", "?", "then", "and", ","}


def _robot_side(toks: list[str]) -> list[str]:
    """ "on the robot's right side of the plate": the robot's own left and right are the only ones the
    reader knows ("right of" is always the robot's), so the word goes."""
    return [
        t
        for i, t in enumerate(toks)
        if not (t == "robot's" and toks[i + 1 : i + 2] and toks[i + 1] in _SIDES)
    ]


def _bare_centre(toks: list[str]) -> list[str]:
    """ "put the apple in the center": of the table, when the clause names no other support before it
    ("put the apple on the plate in the middle" is left to the reader)."""
    out = list(toks)
    i = 0
    while i + 2 < len(out):
        if (
            out[i] in {"in", "at"}
            and out[i + 1] == "the"
            and out[i + 2] in V.CENTRE
            and out[i + 3 : i + 4] != ["of"]
        ):
            j = i - 1
            while j >= 0 and out[j] not in _CLAUSE_END and out[j] not in _SUPPORT_WORDS:
                j -= 1
            if j < 0 or out[j] in _CLAUSE_END:
                out[i + 3 : i + 3] = ["of", "the", "table"]
        i += 1
    return out


_HALVES = {"left": "left", "right": "right", "back": "back", "rear": "back", "front": "front"}
_NP_END = {
    ".",
    ",",
    ";",
    "!",
    "?",
    "(",
    ")",
    "and",
    "then",
    "but",
    "before",
    "after",
    "next",
    "near",
    "beside",
    "behind",
}


def _half_of(toks: list[str]) -> list[str]:
    """ "on the left half of the plate" read as "on the plate, to the left" (the plate's left half), which the
    reader knows (read word by word it is "the far left of the table", the plate lost). "the front
    left corner of the tray": its front half and its left half."""
    for i in range(len(toks) - 2):
        corner = (  # "the front left corner of the tray": its front half and its left half
            toks[i] in _HALVES
            and toks[i + 1 : i + 2] != [toks[i]]
            and toks[i + 1] in _HALVES
            and toks[i + 2 : i + 4] == ["corner", "of"]
        )
        if corner or toks[i] in _HALVES and toks[i + 1] in {"half", "part"} and toks[i + 2] == "of":
            k = i + 1 + corner  # the word before "half" / "corner"
            start = i - 1 if i > 0 and toks[i - 1] == "the" else i
            end = k + 2 + (toks[k + 2 : k + 3] in (["the"], ["a"]))
            while end < len(toks) and toks[end] not in _NP_END and end - i < 9:
                end += 1
            noun = toks[k + 2 : end]
            rest = _half_of(toks[end:])
            sides = [w for t in toks[i:k] for w in [",", "to", "the", _HALVES[t]]]
            return toks[:start] + noun + sides + rest
    return toks


class SceneAliases:
    def __init__(self, things: list[Thing]) -> None:
        self.things = {t.name: t for t in things}
        self.aliases: dict[tuple[str, ...], set[str]] = {}
        self.collective: set[tuple[str, ...]] = set()
        for t in things:
            for words in _suffixes(t.words) + _suffixes(tuple(t.category.split("_"))):
                self._add(words, t.name)
                if t.colour:
                    self._add(tuple(t.colour.split("_")) + words, t.name)
        for phrase, target in V.SYNONYMS.items():
            hit = {t.name for t in things if t.category == target or t.name == target}
            for n in hit:
                self._add(tuple(phrase.split()), n)
                for c in {self.things[n].colour} - {""}:  # "the grey area"
                    self._add(tuple(c.split("_")) + tuple(phrase.split()), n)
                    self._add(tuple(c.split("_"))[-1:] + tuple(phrase.split()), n)
        for t in (t for t in things if t.category in V.MARKER_CATEGORIES):
            for c in (
                [tuple(t.colour.split("_")), tuple(t.colour.split("_"))[-1:]] if t.colour else []
            ):
                for noun in V.MARKER_NOUNS | V.COLOURED_MARKER_NOUNS:
                    self._add(c + (noun,), t.name)  # "the grey square", "the light grey spot"
            for noun in V.MARKER_NOUNS:
                self._add((noun,), t.name)  # "the square"
        for cat, members in V.ONTOLOGY.items():
            hit = {t.name for t in things if t.category in members}
            said = tuple(cat.split("_"))  # "animal_product": "animal product"
            for n in hit:
                self._add(said, n)
                self.collective.add(said)
                for c in {self.things[n].colour} - {""}:
                    self._add(tuple(c.split("_")) + said, n)
                    self.collective.add(tuple(c.split("_")) + said)

    def _add(self, words: tuple[str, ...], name: str) -> None:
        self.aliases.setdefault(words, set()).add(name)

    def movable(self) -> list[str]:
        return [n for n, t in self.things.items() if not t.fixed]

    def table(self) -> str | None:
        return next((n for n, t in self.things.items() if t.category == "table"), None)

    def at(self, name: str, place: str) -> bool:
        """Whether object `name` is on or in `place` in this scene (never in what is smaller: the mug
        is not in its ball)."""
        t, p = self.things[name], self.things[place]
        return name != place and (
            resting_on(t, p) or t.volume < p.volume and (held_in(t, p) or inside(t, p))
        )

    def holder(self, name: str) -> list[str]:
        """What object `name` is in or on in this scene, other than the table: [that one] or []."""
        table = self.table()
        return [p for p in self.things if p not in (name, table) and self.at(name, p)][:1]


def _suffixes(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [words[i:] for i in range(len(words))]


def find_mentions(toks: list[str], scene: SceneAliases, skip: set[int]) -> list[Mention]:
    """Object phrases, longest match first; consecutive collective words intersect ('citrus fruit')."""
    words = [V.singular(t) for t in toks]
    out: list[Mention] = []
    kinds: set[int] = set()  # starts of the mentions naming a category ('citrus', 'red fruit')
    i = 0
    while i < len(toks):
        if i in skip:
            i += 1
            continue
        if (
            toks[i] == "can"
            and i + 1 < len(toks)
            and toks[i + 1] in {"you", "i", "we", "it", "they", "be"}
        ):
            i += 1  # the modal verb
            continue
        if (
            toks[i] in V.COLOURS
            and words[i + 1 : i + 2]
            and words[i + 1] in V.GENERIC | {"one"}
            and not skip & {i, i + 1}
        ):
            coloured = [
                n
                for n, t in scene.things.items()
                if toks[i] in t.colour.split("_") and t.category != "table"
            ]
            # what is red among the things, else the red place ("on the grey one": the light-grey region)
            names = [n for n in coloured if not scene.things[n].fixed] or coloured
            out.append(
                Mention(
                    i, i + 2, names, toks[i + 1] != words[i + 1] or toks[i + 1] in {"stuff"}, True
                )
            )
            i += 2  # "the red things", "the red one": what is red
            continue
        if (
            toks[i] in V.COLOURS
            and toks[i + 1 : i + 2] in (["and"], ["or"], [","])
            and not skip & {i, i + 1}
            and (m := _elided(toks, words, i, scene, skip))
        ):
            out.append(m)  # "the yellow and the orange fruit": the yellow fruit
            i += 1
            continue
        if toks[i] == "non" and (m := _complement(toks, words, i, scene, skip)):
            out.append(m)
            i = m.end
            continue
        for n in (4, 3, 2, 1):
            key = tuple(words[i : i + n])
            if len(key) == n and key in scene.aliases and not skip & set(range(i, i + n)):
                names = set(scene.aliases[key])
                prev = out[-1] if out else None
                if prev and prev.end == i and prev.start in kinds and key in scene.collective:
                    prev.names = sorted(set(prev.names) & names) or prev.names  # "citrus fruit"
                    prev.end = i + n
                    prev.many = _meant_all(toks, words, prev.start, prev.end)
                else:
                    out.append(
                        Mention(
                            i,
                            i + n,
                            sorted(names, key=list(scene.things).index),
                            _meant_all(toks, words, i, i + n),
                        )
                    )
                    if key in scene.collective:
                        kinds.add(i)
                i += n
                break
        else:
            i += 1
    return out


def _elided(
    toks: list[str], words: list[str], i: int, scene: SceneAliases, skip: set[int]
) -> Mention | None:
    """The colour at i with the noun of the next phrase ("the yellow and the orange fruit"), when the scene
    has an object of that colour and noun."""
    found = find_mentions(toks[i + 2 : i + 7], scene, {k - i - 2 for k in skip})
    if not found:
        return None
    end = i + 2 + found[0].end
    key = (toks[i], words[end - 1])
    if key not in scene.aliases:
        return None
    names = sorted(scene.aliases[key], key=list(scene.things).index)
    plural = toks[end - 1] != words[end - 1]
    return Mention(
        i,
        i + 1,
        names,
        plural or words[end - 1] in V.MASS_NOUNS and not (i > 0 and toks[i - 1] == "the"),
    )


def _meant_all(toks: list[str], words: list[str], start: int, end: int) -> bool:
    """Whether the phrase toks[start:end] means every object it matches: a plural ("the limes", "the red
    fruits") or a mass noun ("the fruit", "the citrus fruit", "cutlery", "red fruit") — but not a mass noun
    singled out by a colour after 'the' ("the red fruit" points at one fruit: with two red fruits it is
    ambiguous) and not a singular count noun ("the berry", "the can", "the condiment")."""
    if toks[end - 1] != words[end - 1]:
        return True
    coloured = any(w in V.COLOURS for w in words[start : end - 1])
    definite = start > 0 and toks[start - 1] in {"the", "this", "that"}
    return words[end - 1] in V.MASS_NOUNS and not (coloured and definite)


def _collective(words: list[str], i: int, scene: SceneAliases) -> int:
    """How many words from i name a category ('citrus', 'red fruit'), 0 when none does."""
    return next(
        (
            n
            for n in (3, 2, 1)
            if tuple(words[i : i + n]) in scene.collective
            or n == 1
            and i < len(words)
            and words[i] in V.ONTOLOGY
        ),
        0,
    )


def _complement(
    toks: list[str], words: list[str], i: int, scene: SceneAliases, skip: set[int]
) -> Mention | None:
    """ "non-citrus fruit", "non-vegan food", "the non-vegan items": the objects of the category after it
    (or any movable object) that are not of the category after 'non'."""
    n = _collective(words, i + 1, scene)
    if not n or skip & set(range(i, i + 1 + n)):
        return None
    key = tuple(words[i + 1 : i + 1 + n])
    if key == ("vegan",):
        left = {name for name, t in scene.things.items() if t.category in V.NOT_VEGAN}
    else:
        left = set(scene.movable()) - scene.aliases.get(key, set())
    end = i + 1 + n
    m = _collective(words, end, scene)
    if m:
        left &= scene.aliases.get(tuple(words[end : end + m]), set())
        end += m
    return Mention(i, end, sorted(left, key=list(scene.things).index), True)


SEPARATORS = {".", ";", "!", "?", "(", ")"}


def phrases(table: dict[str, str], toks: list[str], taken: set[int]) -> list[tuple[int, int, str]]:
    found, i = [], 0
    keys = sorted(table, key=lambda p: -len(p.split()))
    while i < len(toks):
        for p in keys:
            n = len(p.split())
            if " ".join(toks[i : i + n]) == p and not taken & set(range(i, i + n)):
                found.append((i, i + n, table[p]))
                i += n - 1
                break
        i += 1
    return found
