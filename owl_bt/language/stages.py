"""The offline grounder's first stages, pure functions over the instruction's tokens: normalise it
and refuse, before anything is read, what must never be carried out in part — negation, and words
that need an ability the robot lacks. (`owl_bt.language.pipeline` runs every stage in order.)"""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language.abilities import missing_ability
from owl_bt.language.clause_kinds import ADVICE
from owl_bt.language.mentions import SEPARATORS, tokens_of
from owl_bt.language.negation import negation


def normalise(instruction: str) -> list[str]:
    """The instruction's tokens (lower case, contractions spelled out, punctuation as tokens);
    raises GroundingError when it says nothing."""
    toks = tokens_of(instruction)
    if not [t for t in toks if t not in SEPARATORS and t != ","]:
        raise GroundingError("the instruction is empty")
    return toks


def refuse_early(toks: list[str]) -> None:
    """Raise GroundingError, in one line, for negation ("don't put the X on the Y" must not be read
    as "put the X on the Y") and for a phrase asking for an ability the robot lacks."""
    negated = negation(toks)
    if negated:
        raise GroundingError(
            f"the offline grounder does not handle negation ('{negated}'): say what the robot "
            f"should do; {ADVICE}"
        )
    gap = missing_ability(toks)
    if gap is not None:  # "lay the spoon straight": refused, never done without the orientation
        raise GroundingError(
            f"'{gap[0]}' needs {gap[1]}, which the robot cannot do yet; say where to put it "
            f"without it, or configure a VLM endpoint (--vlm openai)"
        )
