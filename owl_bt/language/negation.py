"""Negation in an instruction, which the offline grounder does not handle: found so that it is refused
naming the words, rather than the goal carried out as if the words were not there ("don't put the X on
the Y" read as "put the X on the Y"). A "not" that leaves objects out ("all the fruit but not the apple")
is not a negation: the reader leaves those objects out."""

from __future__ import annotations

from owl_bt.language import vocabulary as V
from owl_bt.language.mentions import SEPARATORS

AUXILIARIES = {
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "be",
    "should",
    "must",
    "will",
    "would",
    "could",
    "can",
    "may",
    "might",
    "shall",
    "need",
}
# what follows a "not" that negates the action or the goal state ("do not put", "should not be", "is not on")
NEGATED = (
    V.ACTION_FORMS
    | V.PICK_VERBS
    | V.POUR_FORMS
    | V.DISCARD
    | V.TURN
    | V.BY_FORMS
    | V.SETUP
    | {"be", "ever", "go", "end", "stay", "leave", "touch", "move", "let", "make", "have", "keep"}
)
PLACES = {
    "in",
    "on",
    "inside",
    "into",
    "onto",
    "near",
    "left",
    "right",
    "behind",
    "next",
    "under",
    "above",
    "over",
    "at",
    "by",
    "beside",
    "between",
    "upright",
    "far",
    "close",
    "touching",
    "within",
    "to",
    "there",
    "here",
}


# negations written without the apostrophe ("dont put", "shouldnt be"), and words that negate by themselves
NEGATIVES = {
    "never",
    "cannot",
    "nor",
    "nowhere",
    "no",
    "none",
    "nothing",
    "neither",
    "nobody",
    "dont",
    "doesnt",
    "didnt",
    "isnt",
    "arent",
    "wasnt",
    "werent",
    "shouldnt",
    "wouldnt",
    "couldnt",
    "cant",
    "wont",
    "mustnt",
    "neednt",
    "havent",
    "hasnt",
    "aint",
}
# words that may stand between "not" and what it negates ("do not ever put", "not simply onto")
ADVERBS = {
    "ever",
    "just",
    "simply",
    "really",
    "even",
    "yet",
    "quite",
    "exactly",
    "directly",
    "necessarily",
    "actually",
}


def negation(toks: list[str]) -> str | None:
    """The words that negate the goal or a place in it — "do not put", "dont put", "never", "should not be",
    "is not on", "not onto the region", "shouldn't", "without touching", "avoid putting" — or None. A "not"
    that leaves objects out ("all the fruit but not the apple", "not vegan") is not one."""
    for i, t in enumerate(toks):
        if t in NEGATIVES or t.endswith(
            "n't"
        ):  # "no fruit", "never put"; "No, in the bowl" (a correction): "no"
            return " ".join(w for w in toks[i : i + 2] if w not in SEPARATORS and w != ",")
        if (
            t in {"without", "avoid"} and i + 1 < len(toks) and toks[i + 1].endswith("ing")
        ):  # "without touching it"
            return " ".join(toks[i : i + 2])
        if t == "not" and (i + 1 >= len(toks) or toks[i + 1] in SEPARATORS or toks[i + 1] == ","):
            return "not"  # "put the strawberry not": a "not" that rules out nothing named
        if t != "not":
            continue
        j = i + 1
        while j + 1 < len(toks) and toks[j] in ADVERBS:
            j += 1
        if (
            toks[j] in NEGATED or toks[j] in PLACES
        ):  # "do not put", "is not on", "not onto the region"
            return " ".join(
                toks[max(0, i - 1) if toks[i - 1 : i] and toks[i - 1] in AUXILIARIES else i : j + 1]
            )
    return None
