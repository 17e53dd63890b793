"""The decoding grammar for spoken goals: a JSGF grammar built from the scene and the offline
grounder's vocabulary (`owl_bt.language.vocabulary`), so that pocketsphinx only hears goals that
name things in front of the robot, in the shape the offline grounder reads:

    [please | can you | could you | would you] <action> <object> (and <object>)* <relation> <object>
        [at the <location word> of the <object>] [please]

An <object> is a scene object said the way people say it: its name, its category, colour and
category, or an ontology category that has members in the scene ("the citrus fruit"), with an
optional article ("the", "a", "all the"). Words the pronouncing dictionary lacks are left out
(`Grammar.dropped` names them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from owl_bt.language import vocabulary as V

POLITE = ("please", "can you", "could you", "would you")
ARTICLES = ("the", "a", "an")


SPOKEN_SKIPS = (V.PICK_VERBS - {"take", "get", "pick"}) | {"carry", "relocate", "shift"}


@dataclass(frozen=True)
class SceneName:
    """What the grammar needs of one scene object: its name, category and colour (snake_case)."""

    name: str
    category: str
    colour: str = ""
    fixed: bool = False  # part of the scene that does not move (the table, a painted region)


@dataclass(frozen=True)
class Grammar:
    """A JSGF grammar (`jsgf`, public rule `goal`), the words it uses, and the words left out
    because the pronouncing dictionary has no entry for them."""

    jsgf: str
    words: frozenset[str]
    dropped: tuple[str, ...]


def _words(name: str) -> str:
    return " ".join(w for w in re.split(r"[_\s-]+", name.lower()) if w)


def object_phrases(objects: Iterable[SceneName]) -> list[str]:
    """Ways to say each scene object: name, category, colour + category (light grey region), an
    ontology category with a member in the scene (fruit, citrus, cutlery …) and its plural, sorted."""
    phrases: set[str] = set()
    objects = list(objects)
    for o in objects:
        cat = _words(o.category)
        phrases |= {_words(o.name), cat}
        if o.colour:
            phrases.add(f"{_words(o.colour)} {cat}")
    categories = {o.category for o in objects}
    for group, members in V.ONTOLOGY.items():
        if categories & set(members):
            phrases.add(group)
    plural = {
        v: k for k, v in V.PLURALS.items()
    }  # only the plurals the grounder knows (berries, knives …)
    for p in list(phrases):
        last = p.split()[-1]
        if last in plural:
            phrases.add(" ".join([*p.split()[:-1], plural[last]]))
    phrases |= {
        f"{p} fruit"
        for p in phrases
        if p in V.ONTOLOGY and p != "fruit" and V.ONTOLOGY[p] <= V.ONTOLOGY["fruit"]
    }
    return sorted(phrases)


def build_grammar(
    objects: Iterable[SceneName], known: Callable[[str], bool] = lambda w: True
) -> Grammar:
    """The JSGF grammar for a scene; `known(word)` says whether the recogniser can pronounce a word
    (phrases with an unknown word are dropped). Raises ValueError when no object can be said."""
    dropped: set[str] = set()

    def keep(phrases: Iterable[str]) -> list[str]:
        out = []
        for p in phrases:
            bad = [w for w in p.split() if not known(w)]
            dropped.update(bad)
            if not bad and p:
                out.append(p)
        return sorted(set(out))

    objs = keep(object_phrases(objects) + ["table"])
    if not objs:
        raise ValueError("no object of the scene can be said with the recogniser's dictionary")
    # verbs of a one-clause goal "<verb> <object> <relation> <object>"; the grounder's verbs that only take
    # hold of something (grab, lift …) or are rare spoken are left out: each extra verb is one more thing to mishear
    actions = keep(sorted(V.ACTIONS - SPOKEN_SKIPS))
    # one spelling per sound: "on to" is heard as "onto"
    relations = keep(
        sorted(r for r in V.RELATIONS if " " not in r or r.replace(" ", "") not in V.RELATIONS)
    )
    locations = keep(sorted(V.LOCATION_WORDS))
    polite = keep(POLITE)
    articles = keep(ARTICLES)
    alt = " | ".join
    rules = [
        "#JSGF V1.0;",
        "grammar owl;",
        "public <goal> = [<polite>] <action> <object> (and <object>)* <relation> <object> [<where>] [please];",
        f"<polite> = {alt(polite)};",
        f"<action> = {alt(actions)};",
        f"<relation> = {alt(relations)};",
        f"<object> = [{alt(articles)}] <thing>;",
        f"<thing> = {alt(objs)};",
        f"<where> = (at | in | on | near) the ({alt(locations)}) of <object>;",
    ]
    words = {
        w
        for line in rules[2:]
        for w in re.findall(r"(?<![<#])\b[a-z']+\b(?![>])", line.split("=", 1)[1])
    }
    return Grammar("\n".join(rules) + "\n", frozenset(words), tuple(sorted(dropped)))
