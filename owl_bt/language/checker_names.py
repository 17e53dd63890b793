"""Which generated functions are checkers and which are helpers they call — the one place the
console, the tree's feedback and the run report count them from.

A checker is `goal_check<k>` (judges the final state) or `action_check<i>` (the state right after
sketch action i); any other function the model defines is a helper those call."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterable, Mapping

CHECKER_PREFIXES = ("goal_check", "action_check")


def split_checkers(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(checker names, helper names), each in the given order."""
    names = list(names)
    return [n for n in names if n.startswith(CHECKER_PREFIXES)], [
        n for n in names if not n.startswith(CHECKER_PREFIXES)
    ]


def called_helpers(sources: Mapping[str, str]) -> list[str]:
    """The helpers (non-checker functions of `sources`, name → source) that the checkers call, directly
    or through other helpers, in the order of `sources`. A source that does not parse calls nothing."""
    checkers, helpers = split_checkers(sources)
    used: set[str] = set()
    todo = list(checkers)
    while todo:
        for name in _names_in(sources[todo.pop()]):
            if name in helpers and name not in used:
                used.add(name)
                todo.append(name)
    return [h for h in helpers if h in used]


def _names_in(source: str) -> set[str]:
    """Every bare name `source` mentions (a helper may be called or passed on)."""
    try:
        tree = ast.parse(textwrap.dedent(str(source)))
    except (SyntaxError, ValueError):
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def count_line(
    names: Iterable[str] | Mapping[str, str], name_helpers: bool = False, note: str = ""
) -> str:
    """'3 checkers' or '3 checkers (and 11 helper functions they call)'; with `name_helpers`, the
    helpers' names follow a colon, and `note` follows them after a semicolon. Given the sources (a
    mapping name → source), only the helpers the checkers call count; the others are 'N more unused'."""
    checkers, helpers = split_checkers(names)
    unused = 0
    if isinstance(names, Mapping):
        used = called_helpers(names)
        unused, helpers = len(helpers) - len(used), used
    word = "checker" if len(checkers) == 1 else "checkers"
    spare = f"{unused} more defined, unused" if unused else ""
    if not helpers:
        return f"{len(checkers)} {word}" + (f" ({spare})" if spare else "")
    listed = f": {', '.join(helpers)}" if name_helpers else ""
    tail = "; ".join(t for t in (spare, note) if t)
    return (
        f"{len(checkers)} {word} (and {len(helpers)} helper function{'s' if len(helpers) != 1 else ''} they call"
        f"{listed}{'; ' + tail if tail else ''})"
    )


_NAMED = re.compile(
    r"\b((?:goal|action)_check(\d+))\b(?! \()"
)  # a checker's name not yet followed by what it tests


def what_it_tests(name: str, source: str, sketch=None) -> str:
    """What the checker `name` tests, in words taken from the checker itself: the first line of its
    docstring, else a comment above its first statement, else (with the plan sketch, `owl_bt.language.parser.Sketch`) the
    description of the sketch action it belongs to (`action_check<i>`: action i) or of the goal
    (`goal_check<k>`); '' when there are none."""
    try:
        fn = next(
            (n for n in ast.parse(textwrap.dedent(source)).body if isinstance(n, ast.FunctionDef)),
            None,
        )
    except SyntaxError:
        fn = None
    doc = ast.get_docstring(fn) if fn is not None else None
    if doc and doc.strip():
        return doc.strip().splitlines()[0].strip().rstrip(".")
    comment = _leading_comment(source, fn)
    if comment:
        return comment
    if sketch is None:
        return ""
    if name.startswith("action_check"):
        i = int(name.removeprefix("action_check"))
        return sketch.actions[i].description.strip() if 0 <= i < len(sketch.actions) else ""
    return sketch.goal_description.strip()


def name_checkers(text: str, sources: dict[str, str], sketch=None) -> str:
    """`text` (a failure line) with each checker name it mentions followed by what that checker tests
    (`what_it_tests`): 'constraint action_check1 not satisfied' → 'constraint action_check1 (put the apple
    into the red bowl) not satisfied'. Names of checkers not in `sources` stay as they are."""

    def named(m: re.Match) -> str:
        name = m.group(1)
        words = what_it_tests(name, sources[name], sketch) if name in sources else ""
        return f"{name} ({plain(words)})" if words else name

    return _NAMED.sub(named, text)


def _leading_comment(source: str, fn: ast.FunctionDef | None) -> str:
    """The first comment between `fn`'s `def` line and its first statement (the whole source's first
    comment when it does not parse), '' when there is none. A comment further down is about its own
    line (a pour checker's "tilted past ~1.2 rad" deep inside it does not name the whole checker)."""
    lines = textwrap.dedent(source).splitlines()
    if fn is not None and fn.body:
        lines = lines[fn.lineno : fn.body[0].lineno - 1]
    return next(
        (m.group(1).strip() for line in lines for m in [re.search(r"#\s*(.*\S)", line)] if m), ""
    )


def plain(words: str, limit: int = 80) -> str:
    """Words from generated code, fit for one line: whitespace runs as one space, at most `limit` characters."""
    words = " ".join(words.split())
    if words[1:2].islower():  # a docstring's capital, inside a line: "(the strawberry …)"
        words = words[0].lower() + words[1:]
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"
