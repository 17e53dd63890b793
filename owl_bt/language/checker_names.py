"""Which generated functions are checkers and which are helpers they call — the one place the
console, the tree's feedback and the run report count them from.

A checker is `goal_check<k>` (judges the final state) or `action_check<i>` (the state right after
sketch action i, SPEC §4); any other function the model defines is a helper those call."""

from __future__ import annotations

from collections.abc import Iterable

CHECKER_PREFIXES = ("goal_check", "action_check")


def split_checkers(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(checker names, helper names), each in the given order."""
    names = list(names)
    return [n for n in names if n.startswith(CHECKER_PREFIXES)], [n for n in names if not n.startswith(CHECKER_PREFIXES)]


def count_line(names: Iterable[str], name_helpers: bool = False, note: str = "") -> str:
    """'3 checkers' or '3 checkers (and 11 helper functions they call)'; with `name_helpers`, the
    helpers' names follow a colon, and `note` follows them after a semicolon."""
    checkers, helpers = split_checkers(names)
    word = "checker" if len(checkers) == 1 else "checkers"
    if not helpers:
        return f"{len(checkers)} {word}"
    listed = f": {', '.join(helpers)}" if name_helpers else ""
    return (f"{len(checkers)} {word} (and {len(helpers)} helper function{'s' if len(helpers) != 1 else ''} they call"
            f"{listed}{'; ' + note if note else ''})")
