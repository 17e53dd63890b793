"""Constraint generation (SPEC §3–4): prompts → VLM → parsed plan sketch and sandboxed checkers.

Each stage allows `retries` follow-up questions in which the parse or validation error is sent back
to the model; after that the stage fails with a GroundingError / ModelAnswerError (one line).
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from importlib import resources
from string import Template

from owl_bt.errors import ModelAnswerError, UnsafeCodeError
from owl_bt.language.codebook import HELPERS, env_from_state
from owl_bt.language.parser import Sketch, parse_checkers, parse_sketch
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.vlm import VLM
from owl_bt.state import WorldState
from owl_bt.tamp.operators import GroundOp, OperatorSchema
from owl_bt.tamp.pddl import supports


@dataclass
class Constraints:
    """The generated constraints: the sketch, the compiled checkers, and the model transcript."""

    sketch: Sketch
    checkers: CheckerSet
    transcript: list[dict] = field(default_factory=list)
    model_s: float = 0.0
    queries: int = 0

    def goal_checkers(self) -> list[str]:
        return [n for n in self.checkers.names() if n.startswith("goal_check")]

    def action_checkers(self) -> dict[int, str]:
        """Sketch action index → checker name."""
        return {int(n.removeprefix("action_check")): n for n in self.checkers.names() if n.startswith("action_check")}


def template(name: str) -> Template:
    return Template(resources.files("owl_bt.language").joinpath(f"prompts/{name}.txt").read_text())


def split_instruction(instruction: str) -> tuple[str, str]:
    """(the person's task, the failure account appended by replanning — or '(none)')."""
    first, _, rest = instruction.strip().partition("\n")
    return first.strip(), rest.strip() or "(none: this is the first attempt)"


def describe_objects(world: WorldState, with_pose: bool) -> str:
    lines = []
    for name in world.names():
        o = world.get(name)
        line = f"- {name} (category: {o.category}, colour: {o.colour or 'unknown'})"
        if with_pose:
            line += f" pose {tuple(round(v, 3) for v in o.pose.as_tuple())}, size {tuple(round(v, 3) for v in o.size)}"
        lines.append(line)
    return "\n".join(lines)


def sketch_prompt(
    world: WorldState, task: str, schemas: list[OperatorSchema], ground_ops: list[GroundOp], literals: list[str] | None = None
) -> str:
    """The sketch prompt (SPEC §3 step 2); literals: the initial literals (default: HandEmpty and the
    On facts read from geometry)."""
    if literals is None:
        literals = ["HandEmpty()"] + [f"On({a}, {b})" for a, b in supports(world)]
    task, history = split_instruction(task)
    return template("sketch").substitute(
        task=task, history=history,
        objects=describe_objects(world, with_pose=False),
        literals="\n".join(literals),
        operators="\n".join(f"- {s.description}" for s in schemas),
        ground_ops="\n".join(f"- {g}" for g in ground_ops),
    )


def checker_prompt(world: WorldState, task: str, sketch: Sketch, open_world: set[str]) -> str:
    helpers = []
    for name, fn in HELPERS.items():
        doc = (inspect.getdoc(fn) or "").split("\n")[0]
        helpers.append(f"- {name}{inspect.signature(fn)}: {doc}".replace("owl_bt.state.", ""))
    actions = [
        f"- action_check{i}: {a.op}; {a.description}"
        for i, a in enumerate(sketch.actions) if a.op.name in open_world
    ]
    task, history = split_instruction(task)
    return template("checker").substitute(
        task=task, history=history, sketch=sketch.text(), objects=describe_objects(world, with_pose=True),
        helpers="\n".join(helpers), actions="\n".join(actions) or "(none)",
    )


def _ask(vlm: VLM, prompt: str, images: list[bytes], parse, retries: int, log: list[dict], stats: dict):
    messages = [{"role": "user", "content": prompt}]
    for attempt in range(retries + 1):
        t0 = time.monotonic()
        answer = vlm.complete(messages, images)
        stats["model_s"] += time.monotonic() - t0
        stats["queries"] += 1
        log.append({"prompt": messages[-1]["content"], "answer": answer})
        try:
            return parse(answer)
        except (ModelAnswerError, UnsafeCodeError) as exc:
            if attempt == retries:
                raise type(exc)(f"model answer rejected after {retries + 1} tries: {exc.reason}") from None
            messages += [
                {"role": "assistant", "content": answer},
                {"role": "user", "content": f"That answer could not be used: {exc.reason}. Please answer again."},
            ]
    raise AssertionError("unreachable")


def generate(
    vlm: VLM,
    world: WorldState,
    task: str,
    schemas: list[OperatorSchema],
    ground_ops: list[GroundOp],
    images: list[bytes] | None = None,
    retries: int = 2,
    literals: list[str] | None = None,
) -> Constraints:
    """Ask for the sketch, then the checkers; raises GroundingError, UnknownObjectError or
    ModelAnswerError with a one-line reason."""
    log: list[dict] = []
    stats = {"model_s": 0.0, "queries": 0}
    images = images or []
    sketch = _ask(vlm, sketch_prompt(world, task, schemas, ground_ops, literals), images,
                  lambda a: parse_sketch(a, ground_ops, world.names()), retries, log, stats)
    open_world = {s.name for s in schemas if s.open_world}
    required = ["goal_check0"] + [f"action_check{i}" for i, a in enumerate(sketch.actions) if a.op.name in open_world]
    env = env_from_state(world)

    def parse_code(answer: str) -> CheckerSet:
        return CheckerSet.compile(parse_checkers(answer, required), world, env)

    checkers = _ask(vlm, checker_prompt(world, task, sketch, open_world), [], parse_code, retries, log, stats)
    return Constraints(sketch, checkers, log, stats["model_s"], stats["queries"])
