"""Numbers in object phrases for the offline grounder ("two fruits", "one of the fruits", "three of the
cans"): how many of a group are meant, which ones are taken (those nearest the robot's base — a
physical rule said in the step text; the scene's listing order is perception's, alphabetical),
and a one-line refusal when the scene has fewer."""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language.vocabulary import SUPERLATIVES

NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a pair of": 2,
}
WORDS = {w for p in NUMBERS for w in p.split()} - {"a", "of"}
_ALL = {"all", "every", "each", "everything"}
_LEADS = {"the", "these", "those", "my", "your"}  # "two of the fruits", "three of those cans"


def _value(tok: str) -> int | None:
    return int(tok) if tok.isdigit() else NUMBERS.get(tok)


def count_before(toks: list[str], start: int) -> tuple[int, int] | None:
    """(how many, the token index the number starts at) for the object phrase starting at token `start`:
    "two fruits" (the number right before it) or "two of the fruits"; a negative count for all but that
    many ("all but two fruits", "all except one of the cans"); None when no number is said."""
    j = start - 1
    if j >= 1 and toks[j] in SUPERLATIVES:
        j -= 1  # "the two biggest fruits"
    if j >= 2 and toks[j] in _LEADS and toks[j - 1] == "of":
        j -= 2  # "two of the fruits": the number before 'of the'
    elif j >= 1 and toks[j] == "of":
        j -= 1  # "two of fruits"
    if j >= 0 and _value(toks[j]) is not None:
        k = j - 1 - (j >= 1 and toks[j - 1] == "the")  # "all but (the) two biggest fruits"
        if k >= 1 and toks[k - 1] in _ALL and toks[k] in {"but", "except", "save"}:
            return -_value(toks[j]), k - 1  # "all but two fruits": all of them except two
        return _value(toks[j]), j
    if j >= 1 and " ".join(toks[j - 1 : j + 1]) + " of" in NUMBERS:  # "a couple of the fruits"
        return NUMBERS[" ".join(toks[j - 1 : j + 1]) + " of"], j - 1
    return None


def is_count(toks: list[str], i: int, starts: set[int]) -> bool:
    """Whether token i is a number counting the object phrase after it (which starts at one of `starts`)."""
    return any(
        count_before(toks, s) is not None and count_before(toks, s)[1] <= i < s
        for s in starts
        if s > i
    )


def take(
    names: list[str], count: int, phrase: str, noun: str, by: str = ""
) -> tuple[list[str], str]:
    """(the first `count` of `names` — which the caller has sorted nearest the robot's base first, or by the
    superlative `by` — and a note saying so, "" when all are taken): "one of the 2 asked for by 'two
    fruits': the 2 nearest the robot of the scene's 3 fruits" (it said "the first 2 of the scene's 3", and
    the scene's order was perception's alphabetical one); a negative `count` leaves out that many, the
    last of `names` ("all but two fruits": the two farthest from the robot stay); raises GroundingError
    when the scene has fewer than `count`, or leaves nothing."""
    if count < 0:
        keep = len(names) + count
        if keep < 1:
            raise GroundingError(
                f"{phrase!r} leaves none of the scene's {len(names)} {plural(noun)}; say which"
            )
        left = "" if count == -1 else f"{-count} "
        if by:  # "all but the two biggest": the two biggest stay
            return names[-count:], (
                f"{'the one' if keep == 1 else f'one of the {keep}'} asked for by {phrase!r}: the "
                f"{left}{by} of the scene's {len(names)} {plural(noun)} stay"
            )
        return names[:keep], (
            f"{'the one' if keep == 1 else f'one of the {keep}'} asked for by {phrase!r}: the "
            f"{left}farthest from the robot of the scene's {len(names)} {plural(noun)} stay"
        )
    if count > len(names):
        have = ", ".join(f"the {n.replace('_', ' ')}" for n in names) or "none"
        raise GroundingError(
            f"{phrase!r} asks for {count} but the scene has only {len(names)} ({have}); say which"
        )
    if count == len(names):
        return names, ""
    rule = by or "nearest the robot"
    which = f"the {rule}" if count == 1 else f"the {count} {rule}"
    asked = "the one" if count == 1 else f"one of the {count}"
    return names[
        :count
    ], f"{asked} asked for by {phrase!r}: {which} of the scene's {len(names)} {plural(noun)}"


def plural(noun: str) -> str:
    """The plural of a noun phrase said in the singular ("one fruit": "fruits", "one peach": "peaches"); a
    plural one is left as it is ("cans")."""
    if noun.endswith(("ss", "ch", "sh", "x")):
        return noun + "es"
    if noun.endswith("s"):
        return noun
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + "s"
