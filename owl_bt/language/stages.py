"""The offline grounder's first stages, pure functions over the instruction's tokens: normalise it
and refuse, before anything is read, what must never be carried out in part — negation, and words
that need an ability the robot lacks. (`owl_bt.language.pipeline` runs every stage in order.)"""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.abilities import missing_ability
from owl_bt.language.feasibility import refuse_no_skill
from owl_bt.language.goals import ADVICE
from owl_bt.language.mentions import SEPARATORS, tokens_of
from owl_bt.language.negation import negation

_REWRITES = sorted(
    ((p.split(), r.split()) for p, r in V.LEXICON["rewrites"].items()), key=lambda pr: -len(pr[0])
)


def rewrite(toks: list[str]) -> list[str]:
    """The tokens with the lexicon's `[rewrites]` applied ("get rid of" → "throw away", "with the
    biggest at the bottom" → "from biggest to smallest"), longest phrase first."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        hit = next(((p, r) for p, r in _REWRITES if toks[i : i + len(p)] == p), None)
        if hit is None:
            out.append(toks[i])
            i += 1
        else:
            out += [w for w in hit[1] if w]
            i += len(hit[0])
    return out


def normalise(instruction: str) -> list[str]:
    """The instruction's tokens (lower case, contractions spelled out, punctuation as tokens, the
    lexicon's rewrites applied); raises GroundingError when it says nothing."""
    toks = tokens_of(instruction)
    if not [t for t in toks if t not in SEPARATORS and t != ","]:
        raise GroundingError("the instruction is empty")
    return rewrite(toks)


def refuse_early(toks: list[str]) -> None:
    """Raise GroundingError, in one line, for negation ("don't put the X on the Y" must not be read
    as "put the X on the Y") and for a phrase asking for an ability the robot lacks."""
    negated = negation(toks)
    if negated:
        raise GroundingError(
            f"the offline grounder does not handle negation ('{negated}'): say what the robot "
            f"should do; {ADVICE}"
        )
    refuse_no_skill(toks)  # "open the milk carton": impossible, said so
    gap = missing_ability(toks)
    if gap is not None:  # "lay the spoon straight": refused, never done without the orientation
        raise GroundingError(
            f"'{gap[0]}' needs {gap[1]}, which the robot cannot do yet; say where to put it "
            f"without it, or configure a VLM endpoint (--vlm openai)"
        )
