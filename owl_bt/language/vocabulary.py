"""The offline grounder's vocabulary, loaded from the packaged lexicon (`lexicon.toml`): relations,
quantifiers, sequencing, actions, verbs that imply a place, an is-a ontology of object categories
with catalogue kinds as leaves, attribute scales, synonyms and filler words. Words outside it and the
scene's own names are reported, never guessed at.

Every name here is data read from the lexicon, except the few derived from it (inflected verb forms,
the ontology's transitive closure, what counts as a receptacle) and `singular`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib.resources import files

_LEX = tomllib.loads(files("owl_bt.language").joinpath("lexicon.toml").read_text("utf-8"))
LEXICON: dict = _LEX  # the whole lexicon, for the stages that read their own sections
_REL = _LEX["relations"]
_W = {k: set(v) for k, v in _LEX["words"].items() if k != "intent_openers"}

# phrase (space-separated, lower case) → relation
SUPPORT: dict[str, str] = dict(_REL["support"])
RELATIONS = (
    SUPPORT  # the name the speech grammar (owl_bt.speech.grammar) reads the support phrases by
)
SPATIAL: dict[str, str] = dict(_REL["spatial"])
SOURCE: dict[str, str] = dict(_REL["source"])
ABSOLUTE: dict[str, str] = dict(_REL["absolute"])
DIRECTION: dict[str, str] = dict(_REL["direction"])
HALF: dict[str, str] = dict(_REL["half"])
ORIENTATION: dict[str, str] = dict(_REL["orientation"])
RELATION_WORDS: dict[str, str] = dict(_REL["words"])
ROBOT_FRAME = {p for p in ABSOLUTE if "robot" in p}  # read before "near": the robot is no object

EXCEPT = _W["except"]
EXCEPT_PHRASES = _W["except_phrases"]
TOWARDS = _W["towards"]
PICK_VERBS = _W["pick_verbs"]
HOLD_VERBS = _W["hold_verbs"]
KEEP_VERBS = _W["keep_verbs"]
INITIALLY = _W["initially"]
ACTIONS = _W["actions"]
POUR = _W["pour"]
DISCARD = _W["discard"]
REMOVE = _W["remove"]
SETUP = _W["setup"]
TURN = _W["turn"]
BY_VERBS = _W["by_verbs"]
STATE_OPENERS = _W["state_openers"]
STATE_LEADS = _W["state_leads"]
STATE_VERBS = _W["state_verbs"]
UPRIGHT_VERBS = _W["upright_verbs"]
OWN_PLACE = _W["own_place"]
PRESENT_VERBS = _W["present_verbs"]
EARLIER = _W["earlier"]
INTENT_OPENERS: tuple[str, ...] = tuple(_LEX["words"]["intent_openers"])
LIQUIDS = _W["liquids"]
QUANT_ALL = _W["quant_all"]
QUANT_ONE = _W["quant_one"]
SEQUENCE = _W["sequence"]
FINAL_ONLY = _W["final_only"]
END_WORDS = _W["end_words"]
FITS = _W["fits"]
GENERIC = _W["generic"]
MASS_NOUNS = _W["mass_nouns"]
NOT_VEGAN = _W["not_vegan"]
MARKER_NOUNS = _W["marker_nouns"]
MARKER_CATEGORIES = _W["marker_categories"]
COLOURED_MARKER_NOUNS = _W["coloured_marker_nouns"]
KNOWN_NOUNS = _W["known_nouns"]
NOT_PLURAL = _W["not_plural"]
CENTRE = _W["centre"]
LOCATION_WORDS = _W["location_words"]
DESCRIBING = _W["describing"]
FILLER = _W["filler"]
COLOURS = _W["colours"]
HUE_ORDER: tuple[str, ...] = tuple(_LEX["scales"]["hue_order"])

SUPERLATIVES = {
    w: (scale, {"max": max, "min": min}[pick]) for w, (scale, pick) in _LEX["superlatives"].items()
}
SYNONYMS: dict[str, str] = dict(_LEX["synonyms"])
PLURALS: dict[str, str] = dict(_LEX["plurals"])


def _closure(isa: dict[str, list[str]]) -> dict[str, set[str]]:
    """category → every category and kind below it (its members, their members, …)."""
    out: dict[str, set[str]] = {}

    def below(cat: str, seen: frozenset[str]) -> set[str]:
        if cat in out:
            return out[cat]
        found: set[str] = set()
        for m in isa.get(cat, []):
            found.add(m)
            if m in isa and m not in seen:
                found |= below(m, seen | {m})
        return found

    for cat in isa:
        out[cat] = below(cat, frozenset({cat}))
    return out


# category → member categories and kinds, transitively (an object's own category always matches itself)
ONTOLOGY: dict[str, set[str]] = _closure(_LEX["ontology"])
# what "everything", "all the things", "the red objects" do not sweep up unless named: what things are put
# in or on (containers, dishes, surfaces, markers), not the things themselves
# nouns the grounder knows as objects (the lexicon's, and every one-word kind of the ontology): one
# named but absent from the scene is reported as absent, not as a word it does not know
KNOWN_NOUNS = KNOWN_NOUNS | {k for kinds in ONTOLOGY.values() for k in kinds if "_" not in k}
RECEPTACLES = ONTOLOGY["container"] | ONTOLOGY["dish"] | ONTOLOGY["surface"] | {"line", "trash_can"}


@dataclass(frozen=True)
class ImpliedPlace:
    """A verb that says where its object ends: `relation` ('inside' | 'ontop') a `landmark` of that
    category ("sauté the mushroom": inside cookware). `tool`: the object moved is the scene's one of
    this category, placed `relation` the named object ("wipe the tray": a cleaning tool placed on
    it); `said`: how the sketch says what it does instead ("placed", when no skill does the verb)."""

    verb: str
    relation: str
    landmark: str
    tool: str = ""
    said: str = ""


def _implied() -> dict[str, ImpliedPlace]:
    out = {}
    for verb, entry in _LEX["verbs"].items():
        place = ImpliedPlace(
            verb,
            entry["relation"],
            entry.get("landmark", ""),
            entry.get("tool", ""),
            entry.get("said", ""),
        )
        for form in _inflected({verb, *entry.get("forms", [])}):
            out[form] = place
    return out


def _inflected(verbs: set[str]) -> set[str]:
    """The verbs with their -s, -ing and -ed forms ("serves", "serving", "served"; "putting", "dropped",
    "carried")."""
    out = set(verbs)
    vowels = set("aeiou")
    for v in (
        v for v in verbs if " " not in v and not (v.endswith("ing") and len(v) > 5)
    ):  # not "putting"
        if v.endswith("y") and v[-2] not in vowels:  # carry → carries, carried
            out |= {v[:-1] + "ies", v + "ing", v[:-1] + "ied"}
            continue
        short = (
            len(v) <= 4 and v[-1] in "bdgmnpt" and v[-2] in vowels and v[-3] not in vowels
        )  # put → putting
        base = v + v[-1] if short else v[:-1] if v.endswith("e") and not v.endswith("ee") else v
        out |= {
            v + ("es" if v.endswith(("s", "sh", "ch", "x")) else "s"),
            base + "ing",
            v + "d" if v.endswith("e") else base + "ed",
        }
    return out


# the verbs as the reader meets them, inflected (the speech grammar hears only the base forms above)
ACTION_FORMS = _inflected(ACTIONS)
POUR_FORMS = _inflected(POUR)
BY_FORMS = _inflected(BY_VERBS)
# verb form → the place it implies ("weighed" → on a scale)
IMPLIED: dict[str, ImpliedPlace] = _implied()


def singular(word: str) -> str:
    """Crude English singular for object nouns."""
    if word in PLURALS:
        return PLURALS[word]
    if word in NOT_PLURAL or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    return word
