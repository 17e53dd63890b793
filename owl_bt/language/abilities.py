"""Words that ask for an ability the robot lacks ("lay the spoon straight", "tines up", "parallel
to the knife"), read from the lexicon's `[missing_abilities]`: found before the instruction is read,
so that it is refused in one line naming the ability, never carried out without that part."""

from __future__ import annotations

from owl_bt.language import vocabulary as V

_MISSING = {tuple(p.split()): why for p, why in V.LEXICON["missing_abilities"].items()}
# "put it straight into the bowl": 'straight' as 'directly', no orientation asked
_DIRECTLY_BEFORE = set(V.SUPPORT) | V.TOWARDS | {"away", "back", "down", "over", "there", "onto"}


def missing_ability(toks: list[str]) -> tuple[str, str] | None:
    """(the phrase, the ability it needs) for the first phrase asking what the robot cannot do."""
    for i in range(len(toks)):
        for phrase, why in sorted(_MISSING.items(), key=lambda kv: -len(kv[0])):
            n = len(phrase)
            if tuple(toks[i : i + n]) != phrase:
                continue
            if phrase == ("straight",) and toks[i + 1 : i + 2] and toks[i + 1] in _DIRECTLY_BEFORE:
                continue
            return " ".join(phrase), why
    return None


def line_up(toks: list[str]) -> list[str]:
    """'line the fork up with the plate', 'line up the fork with the plate': 'put the fork in line
    with the plate' (a clause led by the verb 'line')."""
    lead = next((i for i, t in enumerate(toks) if t not in {"please", "now", "just", "and"}), None)
    if lead is None or toks[lead] != "line" or "with" not in toks[lead:]:
        return toks
    w = toks.index("with", lead)
    body = [t for t in toks[lead + 1 : w] if t != "up"]
    if not body or toks[lead + 1 : w].count("up") != 1:
        return toks
    return toks[:lead] + ["put", *body, "in", "line", "with"] + toks[w + 1 :]
