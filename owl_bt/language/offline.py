"""The offline grounder: the embedded default VLM backend.

It reads the same prompts a real model gets (our templates), reads the task with a vocabulary of
relations, quantifiers, sequencing words and an object-category ontology against the scene's
objects (`owl_bt.language.reading`), and answers in the same text format a VLM would — a described
scene plus a `Plan:` block, a `Goal:` block (direct method), or a python block of checkers
(`owl_bt.language.offline_plan`) — so the same parsers and sandbox run offline. What it cannot
ground it names, with the advice to configure a VLM endpoint; it never guesses.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from owl_bt.errors import GroundingError
from owl_bt.language import pipeline
from owl_bt.language.goals import Goal, ImpossibleGoal
from owl_bt.language.offline_cap import gen_plan_code
from owl_bt.language.offline_plan import Plan, code
from owl_bt.language.reading import Reader
from owl_bt.language.scene_view import Thing, read_objects
from owl_bt.language.vlm import PROMPT_KINDS, CallRecord


def _section(prompt: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", prompt, re.DOTALL | re.MULTILINE)
    return m.group(1).strip() if m else ""


@dataclass(frozen=True)
class SceneObject:
    """An object known only by name, category and colour (no geometry): what `ground` takes."""

    name: str
    category: str
    colour: str = ""


def ground(task: str, objs: list[SceneObject]) -> list[Goal]:
    """The goals the offline grounder reads in `task` over objects without geometry (what fits,
    superlatives and pouring need poses, so they are not grounded here); raises GroundingError /
    UnknownObjectError."""
    things = [
        Thing(o.name, o.category, o.colour, fixed=o.category in {"table", "region", "line", "mat"})
        for o in objs
    ]
    return Reader(things).read(task).goals


def plan_for(task: str, things: list[Thing], held: str | None = None) -> Plan:
    """The offline reading of `task` as a sketch and checkers (`held`: the object in the hand now);
    raises GroundingError / UnknownObjectError."""
    return pipeline.ground(task, things, held).plan


def _held(prompt: str) -> str | None:
    """The object the initial literals say is in the hand (`AtGrasp(o)` / `AtGrasp(o, g)`), if any."""
    m = re.search(r"^AtGrasp\((\w+)", _section(prompt, "Initial literals"), re.MULTILINE)
    return m.group(1) if m else None


class OfflineGrounder:
    """VLM backend `offline`: deterministic, no network, answers our prompt kinds."""

    name = "offline"

    def __init__(self) -> None:
        self.last_call: CallRecord | None = None

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str:
        """Refused: the offline grounder answers a prompt only when told its kind (`complete_kind`,
        which `owl_bt.language.vlm.ask` calls); it never guesses the kind from the prompt's text."""
        raise GroundingError(
            "the offline grounder answers a prompt only when told its kind "
            f"({', '.join(PROMPT_KINDS)}); ask it through owl_bt.language.vlm.ask"
        )

    def complete_kind(
        self, kind: str, messages: list[dict], images: list[bytes] | None = None
    ) -> str:
        """The answer to the conversation `messages`, whose first user prompt is of `kind`
        (`owl_bt.language.vlm.PROMPT_KINDS`): a described scene and a `Plan:` (sketch), a python
        block of checkers (checker, also in repair rounds), a `Goal:` block (direct) or a
        `gen_plan` program (cap, cap-sample). Raises GroundingError / UnknownObjectError for what it
        cannot ground; a goal it understands and no plan can meet is answered `impossible(…)`."""
        t0 = time.monotonic()
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        task = _section(prompt, "Task")
        if kind in ("cap", "cap-sample"):  # Code-as-Policies
            things = read_objects(_section(prompt, "Objects and their poses"))
            answer = gen_plan_code(plan_for(task, things), things, sample=kind == "cap-sample")
        elif kind == "checker":
            things = read_objects(_section(prompt, "Objects and their poses"))
            answer = self._checkers(prompt, plan_for(task, things))
        elif kind == "direct":
            things = read_objects(_section(prompt, "Objects in the scene"))
            answer = self._literals(plan_for(task, things))
        elif kind == "sketch":
            things = read_objects(_section(prompt, "Objects in the scene"))
            ops = {
                o.strip("- ").strip()
                for o in _section(prompt, "Ground operators you may use").splitlines()
            }
            try:
                answer = self._sketch(plan_for(task, things, _held(prompt)), ops, things)
            except ImpossibleGoal as exc:  # understood, and no plan can meet it: said so
                answer = f"Plan:\nimpossible({exc})\n"
        else:
            raise GroundingError(
                f"the offline grounder answers {', '.join(PROMPT_KINDS)} prompts, not {kind!r}"
            )
        self.last_call = CallRecord(self.name, "offline-grounder", time.monotonic() - t0)
        return answer

    def _sketch(self, plan: Plan, ops: set[str], things: list[Thing]) -> str:
        for s in plan.steps:
            op = f"{s.op}({', '.join(s.args)})"
            if op not in ops:
                raise GroundingError(
                    f"the robot has no action {op} in this scene ({_why_not(s, ops)})"
                )
        scene = ", ".join(t.name for t in things)
        if not plan.steps:  # a replan after the last step: an empty plan says the goal holds
            return (
                f"The scene has: {scene}. The goal already holds.\n\nPlan:\n"
                f"achieve_goal({', '.join(plan.deciding)}); {plan.meaning}\n"
            )
        return (
            f"The scene has: {scene}. What matters: {', '.join(plan.deciding)}.\n\nPlan:\n"
            + "\n".join(s.line() for s in plan.steps)
            + f"\nachieve_goal({', '.join(plan.deciding)}); {plan.meaning}\n"
        )

    def _literals(self, plan: Plan) -> str:
        lits = []
        for s in plan.steps:
            if s.op in ("place_ontop", "place_inside"):
                lit = f"{'On' if s.op == 'place_ontop' else 'Inside'}({s.args[0]}, {s.args[1]})"
                lits = [x for x in lits if not x.split("(")[1].startswith(s.args[0] + ",")] + [lit]
        return "Goal:\n" + "\n".join(lits) + "\n"

    def _checkers(self, prompt: str, plan: Plan) -> str:
        wanted = []
        for line in _section(prompt, "What to write").splitlines():
            m = re.match(r"^- action_check(\d+): (\w+\([^)]*\)); (.*)$", line.strip())
            if m:
                wanted.append((int(m.group(1)), m.group(2), m.group(3).strip()))
        return code(plan, wanted)


def _why_not(step, ops: set[str]) -> str:
    """A hint at why a step is not among the ground operators: the moved object is not movable, or
    (it is, as its pick shows) the target is not something to put things on or into."""
    moved = step.args[0].replace("_", " ")
    if step.op != "pick" and len(step.args) > 1 and f"pick({step.args[0]})" in ops:
        where = "into" if step.op in ("place_inside", "pour") else "on"
        return f"the {step.args[1].replace('_', ' ')} is not something the robot can put things {where}"
    return f"is the {moved} movable?"
