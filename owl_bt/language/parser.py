"""Parsers for model answers: the plan sketch and checker code.

They accept what models really write — numbered or bulleted lines, markdown fences and emphasis,
prose around the block, blank lines, `place(o, s)` for `place_ontop(o, s)` when unambiguous — and
reject the rest with a `ModelAnswerError` whose reason is sent back to the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from owl_bt.errors import ModelAnswerError
from owl_bt.tamp.operators import GroundOp

MAX_ACTIONS = (
    60  # actions in a plan sketch (the longest benchmark sketch has 12): a longer one is sent back
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|step\s*\d+[:.)])\s*", re.IGNORECASE)
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*(?:[;:—-]+\s*(.*))?$")
_IMPOSSIBLE = re.compile(r"^impossible\s*\((.*)\)\s*[;.]?\s*(.*)$", re.IGNORECASE)
MAX_REASON = 300  # characters of an impossible(<reason>) kept


@dataclass(frozen=True)
class SketchAction:
    op: GroundOp
    description: str


@dataclass(frozen=True)
class Sketch:
    """The parsed plan sketch: actions in order, the goal's deciding objects and its meaning; or, when
    `impossible` is not empty, the model's reason why no plan can meet the goal (no actions then)."""

    actions: tuple[SketchAction, ...]
    goal_objects: tuple[str, ...]
    goal_description: str
    impossible: str = ""

    def text(self) -> str:
        if self.impossible:
            return f"impossible({self.impossible})"
        lines = [f"{a.op}; {a.description}" for a in self.actions]
        lines.append(f"achieve_goal({', '.join(self.goal_objects)}); {self.goal_description}")
        return "\n".join(lines)


def parse_sketch(text: str, ground_ops: Sequence[GroundOp], object_names: Sequence[str]) -> Sketch:
    """The Sketch in `text`; raises ModelAnswerError naming the first problem. A line
    `impossible(<reason>)` as the plan (after `Plan:`, or alone in the answer) gives a Sketch with no
    actions whose `impossible` is the reason."""
    lines = text.splitlines()
    refusal = _impossible(lines)
    if refusal is not None:
        return Sketch((), (), "", impossible=refusal)
    start = next(
        (
            i
            for i, ln in enumerate(lines)
            if re.match(r"^\W*plan\W*:?\W*$", ln.strip(), re.IGNORECASE)
        ),
        None,
    )
    if start is None:
        raise ModelAnswerError("the answer has no line 'Plan:' followed by the plan lines")
    known = {(g.name, g.args) for g in ground_ops}
    names = set(object_names)
    actions: list[SketchAction] = []
    for raw in lines[start + 1 :]:
        line = raw.replace("`", "").replace("**", "").strip().strip("*_ ")
        if not line or line.startswith("```"):
            continue
        line = _BULLET.sub("", line).strip("`*_ ")
        m = _CALL.match(line)
        if not m:
            if actions:
                break  # prose after the block ends it
            raise ModelAnswerError(
                f"plan line {raw.strip()!r} is not '<operator>(<args>); <description>'"
            )
        name, argtext, desc = m.group(1), m.group(2), (m.group(3) or "").strip()
        args = tuple(a.strip().strip("'\"") for a in argtext.split(",") if a.strip())
        for a in args:
            if a not in names:
                raise ModelAnswerError(
                    f"{name}({', '.join(args)}) names {a!r}, which is not in the scene"
                )
        if (
            name == "achieve_goal"
        ):  # with no action before it: the goal already holds (checked on the scene)
            return Sketch(tuple(actions), args, desc or "the goal holds")
        if name == "place":
            options = [n for n in ("place_ontop", "place_inside") if (n, args) in known]
            if len(options) != 1:
                raise ModelAnswerError(
                    f"place({', '.join(args)}) is ambiguous or unknown; use place_ontop or place_inside"
                )
            name = options[0]
        if (name, args) not in known:
            raise ModelAnswerError(
                f"{name}({', '.join(args)}) is not one of the ground operators listed"
            )
        actions.append(SketchAction(GroundOp(name, args), desc))
        if len(actions) > MAX_ACTIONS:
            raise ModelAnswerError(
                f"the plan has more than {MAX_ACTIONS} actions; give a shorter one"
            )
    if not actions:
        raise ModelAnswerError("the Plan: block has no actions")
    raise ModelAnswerError("the plan does not end with achieve_goal(<objects>); <meaning>")


def _impossible(lines: list[str]) -> str | None:
    """The reason of the first plan line `impossible(<reason>)` (bullets, emphasis and quotes dropped;
    at most MAX_REASON characters), None when there is none; raises ModelAnswerError for an empty
    reason or for actions before it."""
    acted = False
    for raw in lines:
        line = _BULLET.sub("", raw.replace("`", "").replace("**", "").strip()).strip("`*_ ")
        m = _IMPOSSIBLE.match(line)
        if m is None:
            acted = acted or bool(_CALL.match(line) and not line.lower().startswith("achieve_goal"))
            continue
        why, more = m.group(1).strip().strip("'\"").strip(), m.group(2).strip()
        reason = " ".join(f"{why}; {more}".split()) if why and more else why
        if not reason:
            raise ModelAnswerError(
                "impossible() needs a reason: impossible(<why no plan can do it>)"
            )
        if acted:
            raise ModelAnswerError(
                "the plan has actions and impossible(); give either a plan or impossible(<reason>)"
            )
        return reason[:MAX_REASON]
    return None


def extract_code(text: str) -> str:
    """The Python source in a model answer: the fenced blocks joined, or the text from the first `def`."""
    blocks = re.findall(r"```(?:python|py)?\s*\n(.*?)```", text, re.DOTALL | re.IGNORECASE)
    if blocks:
        return "\n\n".join(b.strip("\n") for b in blocks)
    m = re.search(r"^def\s", text, re.MULTILINE)
    if not m:
        raise ModelAnswerError("the answer contains no Python code (no ```python block and no def)")
    return text[m.start() :]


def parse_checkers(text: str, required: Sequence[str] = ("goal_check0",)) -> str:
    """The checker source; raises ModelAnswerError when a required function is missing."""
    code = extract_code(text)
    missing = [n for n in required if not re.search(rf"^def\s+{n}\s*\(", code, re.MULTILINE)]
    if missing:
        raise ModelAnswerError(f"the code does not define {', '.join(missing)}()")
    return code
