"""The cut of an instruction into clauses, in the order they are to happen (the offline grounder).

Clauses end at sentence marks and parentheses, at 'then', 'finally', 'afterwards', 'lastly',
'later', at 'and'/',' before a verb, and at 'before'/'after'. The order follows the sequencing words:

- "Y after X", "Y, but first X", "Y. Before that, X": X happens first;
- "After X, Y", "Y before X", "Y, then X", "Y. After that, X", "Y, and X after it": in the order written;
- 'once' and 'when' before a clause read as 'after' ("once the pear is in the bowl, put …");
- "Before X, Y": Y happens first.

A clause opened by 'after' or 'before' may be a bare object phrase that shares the action and the
destination of the clause it is attached to ("put the apple in the bowl after the pear": the pear
goes into the bowl too); that clause is its partner.
"""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.language import vocabulary as V
from owl_bt.language.mentions import SEPARATORS

EARLIER, LATER = (
    "earlier",
    "later",
)  # happens just before the clause written before it / just after the next one
_VERBS = (
    V.ACTION_FORMS
    | V.POUR_FORMS
    | V.DISCARD
    | V.BY_FORMS
    | {"have", "make", "setup", "set", "stand", "remove", "ensure"}
)
_IMPERATIVES = {
    v
    for v in V.ACTIONS | V.POUR | V.DISCARD | {"remove", "stand", "setup"}
    if not v.endswith("ing")
}
_THEN = {"then", "finally", "afterwards", "lastly", "later", "subsequently"}
_SUBJECTS = {"you", "i", "we", "they", "to", "please", "and", "could", "would", "can"}


@dataclass
class Clause:
    """A clause's tokens and its partner: the index (in split_clauses' order) of the clause whose action
    and destination a bare object phrase in it shares, or None."""

    toks: list[str]
    partner: int | None = None
    dangling: bool = (
        False  # it ends in 'and' ("put the apple and then the lemon on the plate"): it shares the
    )
    # partner's destination even with a verb of its own


@dataclass
class _Segment:
    toks: list[str]
    tag: str | None = None  # EARLIER, LATER or None (in the order written)
    partner: str | None = None  # "prev" / "next": the written neighbour it is attached to
    dangling: bool = False  # ends in 'and' before 'then': shares the next clause's destination
    lead: bool = False  # opened by 'after'/'before' at the start of a sentence (ends at the next imperative verb)


def split_clauses(toks: list[str]) -> list[Clause]:
    """The clauses of `toks` (tokens_of's output) in the order they are to happen."""
    segs = [_Segment([])]
    skip_next = False

    def start(tag: str | None, partner: str | None, lead: bool = False) -> None:
        cur = segs[-1]
        if _said(cur.toks):
            segs.append(_Segment([], tag, partner, lead))
        else:  # nothing in this clause yet ("and then, after that, …"): the marker opens it
            cur.toks = []
            cur.tag, cur.partner, cur.lead = (
                tag or cur.tag,
                partner or cur.partner,
                lead or cur.lead,
            )

    for k, t in enumerate(toks):
        if skip_next:
            skip_next = False
            continue
        nxt = toks[k + 1] if k + 1 < len(toks) else ""
        cur = segs[-1]
        if t in {",", "but"} and nxt == "first" and k + 2 < len(toks) and any(s.toks for s in segs):
            start(EARLIER, None)  # "…, (but) first …": before what came before it
            continue
        if t in {"once", "when"} and k + 1 < len(toks) and nxt not in SEPARATORS | {","}:
            t = "after"  # "once the pear is in the bowl, put …", "… when the pear is in the bowl"
        if (
            t in {"after", "before"}
            and nxt in {"that", "this", "which", "it", "them", "those", "these"}
            and (
                k + 2 >= len(toks)
                or toks[k + 2] in SEPARATORS | {",", "and", "then"}
                or nxt in {"that", "this", "which"}
            )
        ):
            skip_next = True
            trailing = k + 2 >= len(toks) or toks[k + 2] in SEPARATORS
            joins = [
                i for i, w in enumerate(cur.toks) if w in {"and", "but"} or w == "," and trailing
            ]
            if joins and (
                trailing or nxt not in {"that", "this", "which"}
            ):  # "…, and the pear before it", "…, but it
                a = joins[
                    -1
                ]  # should be in the pan before that": the part after the last join, first
                cur.toks, tail = cur.toks[:a], cur.toks[a + 1 :]
                segs.append(_Segment(tail, EARLIER if t == "before" else None, "prev"))
            start(EARLIER if t == "before" else None, None)  # "after that": then
            continue
        if t in {"after", "before"}:
            if cur.toks:  # "Y after X" (X first), "Y before X" (in order): attached to Y
                start(EARLIER if t == "after" else None, "prev")
            else:  # "After X, Y" (in order), "Before X, Y" (Y first): attached to Y
                start(LATER if t == "before" else None, "next", lead=True)
            continue
        cut = t in SEPARATORS or t in _THEN or (t in {"and", ","} and nxt in _VERBS | _THEN)
        if cut:
            after = toks[k + 2] if k + 2 < len(toks) else ""
            if (
                t in {"and", ","}
                and nxt == "then"
                and _said(cur.toks)
                and not cur.partner
                and after not in _VERBS | {"put"}
                # "…, the carrot as well, then …": a unit with its own place (the one before it)
                and cur.toks[-1:] not in (["too"], ["also"])
                and cur.toks[-2:] != ["as", "well"]
            ):
                cur.partner, cur.dangling = (
                    "next",
                    True,
                )  # "put the apple and then the lemon on the plate"
            start(None, None)
            continue
        if cur.lead and len(cur.toks) >= 2 and t in _IMPERATIVES and cur.toks[-1] not in _SUBJECTS:
            segs.append(_Segment([]))  # "before the pear put the apple …": the main clause begins
        segs[-1].toks.append(t)
    return _ordered([s for s in segs if _said(s.toks)])


def _said(toks: list[str]) -> bool:
    """Whether a clause says anything (not only commas and 'and')."""
    return any(t not in {",", "and"} for t in toks)


def _ordered(segs: list[_Segment]) -> list[Clause]:
    order: list[int] = []
    deferred: int | None = None
    for i, s in enumerate(segs):
        if s.tag == LATER:
            if deferred is not None:
                order.append(deferred)
            deferred = i
            continue
        if s.tag == EARLIER and i - 1 in order:
            order.insert(order.index(i - 1), i)
        else:
            order.append(i)
        if deferred is not None:
            order.append(deferred)
            deferred = None
    if deferred is not None:
        order.append(deferred)
    at = {w: n for n, w in enumerate(order)}
    out = []
    for w in order:
        p = {"prev": w - 1, "next": w + 1}.get(segs[w].partner or "")
        out.append(Clause(segs[w].toks, at.get(p) if p is not None else None, segs[w].dangling))
    return out


def unit_ranks(toks: list[str], starts: list[int]) -> list[int]:
    """When to carry out each unit 'objects + relations' of one clause (`starts`: the token each begins at,
    in the order written): 0 for a unit that says 'first', 2 for one that says 'last', else 1 ("put the
    apple on the plate last and the lemon first": the lemon first)."""
    rank = []
    for n, a in enumerate(starts):
        words = set(toks[a : starts[n + 1] if n + 1 < len(starts) else len(toks)])
        rank.append(0 if "first" in words else 2 if words & {"last", "lastly"} else 1)
    return rank
