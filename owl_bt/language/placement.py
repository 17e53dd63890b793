"""The placement clause's pure stages, around its resolution against the scene
(`reading.Reader._placement`).

Parsed before any object is resolved: the clause as a typed record (`parse_placement`: its verb,
whether it says an action or a state, whether its objects are to stand upright, where its relations
begin, whether it speaks of objects in general) and the words it may hold (`placement_words`).
Read from it and the resolved units: the place a clause with none implies (`implied_place`), a
"where" said in the present (`said_in_present`), the landmark a unit shares with the one before it
(`opposite_landmark`), a unit's orientation and source modifiers (`unit_modifiers`), its mass-noun
phrase (`mass_phrase`) and the order of the units' objects (`object_ranks`). A unit's resolved destination is a `Destination`.
"""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.language import vocabulary as V
from owl_bt.language.mentions import Mention


@dataclass(frozen=True)
class PlacementClause:
    """What a placement clause says as a whole.

    `verb`: its first action, set-up or turning verb, or None; `state`: it says how things are to
    be ("make sure …", "… is …") rather than what to do; `only`: "only … at the end";
    `upright_verb`: its verb stands things upright ("set up", "stand", "standing the …");
    `first_rel`: the index of its first relation (the number of tokens when it has none);
    `everything`: a generic word ("everything") before the first relation outside any mention;
    `generic`: a generic word before the first relation, or "whatever/whichever … fits";
    `fits`: it says something fits."""

    toks: tuple[str, ...]
    verb: str | None
    state: bool
    only: bool
    upright_verb: bool
    first_rel: int
    everything: bool
    generic: bool
    fits: bool


@dataclass(frozen=True)
class Destination:
    """Where a placement unit puts its objects: `how` ('inside' | 'ontop', or None when only
    relations say it), on or in `support` (None: the default support), with the `spatial` entries
    ((relation, landmark names)) that place them there."""

    how: str | None
    support: str | None
    spatial: list


def parse_placement(toks: list[str], ments: list[Mention], rels: list) -> PlacementClause:
    """The record of the placement clause `toks` with mentions `ments` (excepted ones removed) and
    relations `rels` ((start, end, kind, relation) in token order). Raises nothing."""
    words = set(toks)
    first_rel = rels[0][0] if rels else len(toks)
    before = toks[:first_rel]
    return PlacementClause(
        toks=tuple(toks),
        verb=next((t for t in toks if t in V.ACTION_FORMS | V.SETUP | V.TURN), None),
        state=_says_state(toks),
        only=bool(words & V.FINAL_ONLY) and bool(words & V.END_WORDS),
        upright_verb=_stands_upright(toks),
        first_rel=first_rel,
        everything=any(
            t in V.GENERIC and not any(m.start <= i < m.end for m in ments)  # not "the red things"
            for i, t in enumerate(before)
        ),
        generic=any(t in V.GENERIC for t in before)
        or bool(set(before) & {"whatever", "whichever"} and words & V.FITS),
        fits=bool(words & V.FITS),
    )


def placement_words(rels: list) -> set[str]:
    """The words a placement clause may hold besides its mentions and relations: verbs, set-up and
    turning words, fitting, generic, "initially" and "except" words, and, when it names a place, the
    verbs saying how ("heat the strawberry in the pan", "fry the mushroom in the skillet")."""
    manner = V.BY_FORMS | set(V.IMPLIED) if any(r[2] != "source" for r in rels) else set()
    return (
        V.ACTION_FORMS
        | V.SETUP
        | V.FITS
        | V.GENERIC
        | V.INITIALLY
        | V.TURN
        | V.EXCEPT
        | {w for p in V.EXCEPT_PHRASES for w in p.split()}
        | manner
    )


def implied_place(clause: PlacementClause, place_said: bool) -> str | None:
    """The place a clause with no place said (`place_said` False) implies: 'back' ("put it back":
    where it was), 'down' ("set it down": the table), else None. A state implies none."""
    if place_said or clause.state:
        return None
    if "back" in clause.toks:
        return "back"
    if "down" in clause.toks and clause.verb:
        return "down"
    return None


def object_ranks(subjects: list[list[Mention]], ranks: list[int]) -> dict[str, int]:
    """object → the rank of the unit it is the subject of ("put the apple on the plate last and the
    lemon first": the lemon first), given each unit's subject mentions and its rank; a rank other
    than 1 (the default) said of an object wins over a later 1."""
    rank: dict[str, int] = {}
    for subject, r in zip(subjects, ranks, strict=True):
        for x in (x for m in subject for x in m.names):
            rank[x] = r if r != 1 or x not in rank else rank[x]
    return rank


def mass_phrase(toks: list[str], subject: list[Mention]) -> str:
    """The phrase of a unit's one subject mention when it is a mass noun said in the singular ("the
    fruit"), with the word before it; else ""."""
    mass = (
        len(subject) == 1
        and subject[0].many
        and toks[subject[0].end - 1] == V.singular(toks[subject[0].end - 1])
    )
    return " ".join(toks[subject[0].start - 1 : subject[0].end]) if mass else ""


def unit_modifiers(
    clause: PlacementClause, rels: list, urels: list, source: list[str], dest: list
) -> tuple[bool, list]:
    """A unit's orientation and source modifiers: whether its objects end upright (the clause's
    verb stands them, or the unit says "upright"), and the spatial entries they start with: off
    the place they are taken from when the unit has no destination, upside down when said."""
    upright = clause.upright_verb or any(rels[k][2:] == ("orient", "upright") for k, _ in urels)
    spatial = [("off", (source[0],))] if source and not dest else []
    spatial += (
        [("upside_down", ())]
        if any(rels[k][2:] == ("orient", "upside_down") for k, _ in urels)
        else []
    )
    return upright, spatial


def _says_state(toks: list[str]) -> bool:
    return bool(set(toks[:3]) & V.STATE_LEADS) or any(t in V.STATE_VERBS for t in toks)


def _stands_upright(toks: list[str]) -> bool:
    if set(toks) & V.UPRIGHT_VERBS or "set up" in " ".join(toks):
        return True
    return any(
        t == "standing" and toks[i + 1 : i + 2] and toks[i + 1] in {"the", "a", "it", "them"}
        for i, t in enumerate(toks)
    )


def said_in_present(toks: list[str], k: int) -> bool:
    """Is the reference of "where" at toks[k-1] said in the present ("where the strawberry is"), not
    the past ("was", "were", "is at the start")?"""
    after = toks[k : k + 4]
    return bool(after) and after[0] in V.PRESENT_VERBS and not set(after) & V.EARLIER


_OPPOSITE = {
    "left_of": "right_of",
    "right_of": "left_of",
    "behind": "in_front_of",
    "in_front_of": "behind",
}


def opposite_landmark(rel: str, last_dest: tuple | None) -> str | None:
    """The landmark of the unit before when it put its object on the side opposite `rel` of it ("the
    fork left of the plate and the knife right of it": the plate, both sides of one thing), else None."""
    if rel not in _OPPOSITE or last_dest is None:
        return None
    return next((refs[0] for r, refs in last_dest[2] if r == _OPPOSITE[rel] and refs), None)
