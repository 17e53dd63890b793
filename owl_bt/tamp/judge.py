"""Judging several candidate states at once against a step's checkers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from owl_bt.state import WorldState


def judge(
    checks: Sequence[tuple[str, Callable[[WorldState], bool]]], states: Sequence[WorldState]
) -> list[bool]:
    """For each state, whether every (name, check) holds on it. A check with a `many(states)`
    method (a generated checker: `owl_bt.language.sandbox.BoundChecker`) judges all states in one
    exchange with the sandbox worker; any other is called per state, an exception counting as
    False. Every check is judged on every state (no short cut)."""
    out = [True] * len(states)
    for _, check in checks:
        many = getattr(check, "many", None)
        if many is not None:
            verdicts = many(states)
        else:
            verdicts = [_holds(check, s) for s in states]
        out = [a and bool(b) for a, b in zip(out, verdicts, strict=True)]
    return out


def _holds(check: Callable[[WorldState], bool], state: WorldState) -> bool:
    try:
        return bool(check(state))
    except Exception:  # a checker that cannot be evaluated does not hold
        return False
