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


_BOTTOM = [p.split() for p in ("at the bottom", "on the bottom", "at the base")]
_TOP = [p.split() for p in ("on top", "at the top", "on the top")]


def _end_at(toks: list[str], i: int) -> tuple[str, str, int] | None:
    """A superlative said at one end of a tower from token i ("the smallest at the bottom"): (the
    superlative, 'bottom' | 'top', the token after it), else None."""
    j = i + (toks[i : i + 1] == ["the"])
    word = toks[j] if j < len(toks) else ""
    if word not in V.SUPERLATIVES or V.SUPERLATIVES[word][0] == "distance":
        return None
    for end, phrases in (("bottom", _BOTTOM), ("top", _TOP)):
        for p in phrases:
            if toks[j + 1 : j + 1 + len(p)] == p:
                return word, end, j + 1 + len(p)
    return None


def tower_ends(toks: list[str]) -> list[str]:
    """ "the smallest at the bottom and the biggest on top", "biggest on top, smallest at the
    bottom" (any two superlatives, either end first): "from smallest to biggest", the bottom first."""
    out, i = [], 0
    while i < len(toks):
        first = _end_at(toks, i)
        second = None
        if first is not None:
            k = first[2] + (toks[first[2] : first[2] + 1] in (["and"], [","]))
            second = _end_at(toks, k)
        if first is None or second is None or first[1] == second[1]:
            out.append(toks[i])
            i += 1
            continue
        bottom, top = (first, second) if first[1] == "bottom" else (second, first)
        if out[-1:] == ["with"]:  # "… with the biggest at the bottom and …"
            out.pop()
        out += ["from", bottom[0], "to", top[0]]
        i = second[2]
    return out


def normalise(instruction: str) -> list[str]:
    """The instruction's tokens (lower case, contractions spelled out, punctuation as tokens, the
    lexicon's rewrites applied); raises GroundingError when it says nothing."""
    toks = tokens_of(instruction)
    if not [t for t in toks if t not in SEPARATORS and t != ","]:
        raise GroundingError("the instruction is empty")
    return rewrite(tower_ends(toks))


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
