"""Constraint generation: prompts → VLM → parsed plan sketch and sandboxed checkers.

Each stage allows `retries` follow-up questions in which the parse or validation error is sent back
to the model; after that the stage fails with a GroundingError / ModelAnswerError (one line).
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field, replace
from importlib import resources
from string import Template

import numpy as np

from owl_bt.errors import (
    GroundingError,
    InfeasibleGoalError,
    ModelAnswerError,
    OwlError,
    UnsafeCodeError,
)
from owl_bt.language import ablations, cap, repair, sandbox_client
from owl_bt.language.codebook import HELPERS
from owl_bt.language.object_list import describe_objects
from owl_bt.language.parser import Sketch, parse_checkers, parse_sketch
from owl_bt.language.perception_error import PERCEPTION_ERROR
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.vlm import VLM, CallRecord, ask
from owl_bt.language.workspace import env_from_state
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
    calls: list[CallRecord] = field(
        default_factory=list
    )  # per model call: latency, tokens, cache hits
    fixed: tuple | None = (
        None  # cap: gen_plan's plan, carried out as given (owl_bt.language.cap_plan)
    )
    messages: list[dict] = field(
        default_factory=list
    )  # the checker conversation so far (for repairs during planning)
    required: tuple[str, ...] = ()  # the checker functions an answer must define
    sample_total: int | None = (
        None  # cap-sample: continuous samples for the whole task (2,500 by default)
    )

    def goal_checkers(self) -> list[str]:
        return [n for n in self.checkers.names() if n.startswith("goal_check")]

    def action_checkers(self) -> dict[int, str]:
        """Sketch action index → checker name."""
        return {
            int(n.removeprefix("action_check")): n
            for n in self.checkers.names()
            if n.startswith("action_check")
        }


def template(name: str) -> Template:
    return Template(resources.files("owl_bt.language").joinpath(f"prompts/{name}.txt").read_text())


NO_HISTORY = "(none: this is the first attempt)"


def split_instruction(instruction: str, history: list[str] | None = None) -> tuple[str, str]:
    """(the person's task on one line, the failure account of earlier attempts — or '(none)').

    With `history` (the replan subtree's lines), the lines it appended to the instruction are cut
    off its end and a newline the person typed stays part of the task; without it, everything after
    the first line is taken as history.
    """
    text = instruction.strip()
    if history is None:
        first, _, rest = text.partition("\n")
        return first.strip(), rest.strip() or NO_HISTORY
    for line in reversed(history):
        if text.endswith("\n" + line):
            text = text[: -len(line) - 1].rstrip()
    return " ".join(text.split()), "\n".join(history) or NO_HISTORY


def sketch_prompt(
    world: WorldState,
    task: str,
    schemas: list[OperatorSchema],
    ground_ops: list[GroundOp],
    literals: list[str] | None = None,
    history: list[str] | None = None,
) -> str:
    """The sketch prompt; literals: the initial literals (default: HandEmpty and the
    On facts read from geometry)."""
    if literals is None:
        literals = ["HandEmpty()"] + [f"On({a}, {b})" for a, b in supports(world)]
    task, past = split_instruction(task, history)
    return template("sketch").substitute(
        task=task,
        history=past,
        objects=describe_objects(world),
        literals="\n".join(literals),
        operators="\n".join(f"- {s.description}" for s in schemas),
        ground_ops="\n".join(f"- {g}" for g in ground_ops),
    )


def direct_prompt(
    world: WorldState, task: str, literals: list[str] | None, history: list[str] | None = None
) -> str:
    """The direct method's prompt: translate the goal into goal literals."""
    if literals is None:
        literals = ["HandEmpty()"] + [f"On({a}, {b})" for a, b in supports(world)]
    task, past = split_instruction(task, history)
    return template("direct").substitute(
        task=task,
        history=past,
        objects=describe_objects(world, with_pose=False),
        literals="\n".join(literals),
    )


def _helpers() -> str:
    """The codebook helpers, each with its signature and its whole docstring on one line (a first
    line alone stops mid-sentence)."""
    lines = []
    for name, fn in HELPERS.items():
        doc = " ".join((inspect.getdoc(fn) or "").split())
        lines.append(f"- {name}{inspect.signature(fn)}: {doc}".replace("owl_bt.state.", ""))
    return "\n".join(lines)


def cap_prompt(
    world: WorldState,
    task: str,
    ground_ops: list[GroundOp],
    sample: bool,
    history: list[str] | None = None,
) -> str:
    """The Code-as-Policies prompt (methods cap, cap-sample): write gen_plan(initial)."""
    task, past = split_instruction(task, history)
    return template("cap").substitute(
        task=task,
        history=past,
        objects=describe_objects(world),
        ground_ops="\n".join(f"- {g}" for g in ground_ops),
        helpers=_helpers(),
        sampling=cap.SAMPLING if sample else "",
    )


def checker_prompt(
    world: WorldState,
    task: str,
    sketch: Sketch,
    open_world: set[str],
    history: list[str] | None = None,
) -> str:
    actions = [
        f"- action_check{i}: {a.op}; {a.description}"
        for i, a in enumerate(sketch.actions)
        if a.op.name in open_world
    ]
    task, past = split_instruction(task, history)
    return template("checker").substitute(
        task=task,
        history=past,
        sketch=sketch.text(),
        objects=describe_objects(world, with_pose=True),
        helpers=_helpers(),
        perception_mm=f"{PERCEPTION_ERROR * 1000:.0f}",
        actions="\n".join(actions) or "(none)",
    )


@dataclass
class Exchange:
    """The model exchange of a constraint stage that failed: its transcript entries (rejected
    answers included), the seconds spent waiting on the model, the queries and the per-call records
    — attached to the raised OwlError as `exchange` so the run folder keeps them."""

    transcript: list[dict]
    model_s: float
    queries: int
    calls: list[CallRecord]


def _query(
    vlm: VLM, kind: str, messages: list[dict], images: list[bytes], log: list[dict], stats: dict
):
    """(answer, None) or ("", the ModelAnswerError of an empty or oversized answer); the exchange is
    entered in `log` and `stats` whatever happens (the time of a silent endpoint counts). Raises
    the endpoint's OwlError after recording it."""
    if hasattr(vlm, "last_call"):
        vlm.last_call = None  # (a backend that raises before recording leaves no stale record)
    t0 = time.monotonic()
    answer, unusable = "", None
    entry = {"prompt": messages[-1]["content"], "answer": ""}
    try:
        answer = ask(vlm, kind, messages, images)
    except ModelAnswerError as exc:  # an empty or oversized answer: asked again, like a bad parse
        if not getattr(exc, "retryable", True):  # (a recording with no answer left)
            entry["error"] = exc.reason
            raise
        unusable = exc
        entry["rejected"] = exc.reason
    except OwlError as exc:  # no answer at all (endpoint down, recording used up)
        entry["error"] = exc.reason
        raise
    finally:
        stats["model_s"] += time.monotonic() - t0
        stats["queries"] += 1
        entry["answer"] = answer
        call = getattr(vlm, "last_call", None)
        if call is not None:
            entry["call"] = call.to_dict()
            stats["calls"].append(call)
        log.append(entry)
    return answer, unusable


def _ask(
    vlm: VLM,
    kind: str,
    prompt: str,
    images: list[bytes],
    parse,
    retries: int,
    log: list[dict],
    stats: dict,
):
    messages = [{"role": "user", "content": prompt}]
    for attempt in range(retries + 1):
        answer, unusable = _query(vlm, kind, messages, images, log, stats)
        try:
            if unusable is not None:
                raise unusable
            return parse(answer), messages + [{"role": "assistant", "content": answer}]
        except (ModelAnswerError, UnsafeCodeError) as exc:
            log[-1]["rejected"] = exc.reason
            forget = getattr(vlm, "forget_last", None)
            if (
                forget is not None and unusable is None
            ):  # not kept in the response cache: a re-run asks again
                forget()
            if attempt == retries:
                raise type(exc)(
                    f"model answer rejected after {retries + 1} tries: {exc.reason}"
                ) from None
            messages += [
                {"role": "assistant", "content": answer},
                {
                    "role": "user",
                    "content": f"That answer could not be used: {exc.reason}. Please answer again.",
                },
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
    history: list[str] | None = None,
    repair_rounds: int = 2,
    init_world: WorldState | None = None,
) -> Constraints:
    """Ask for the sketch, then the checkers; raises GroundingError, UnknownObjectError or
    ModelAnswerError with a one-line reason. `history`: the replan subtree's failure lines (what
    it appended to `task`); None reads every line after the first of `task` as history.
    `init_world`: the run's first observed world, the checkers' `init_state` (default: `world`)."""
    sandbox_client.shared().prestart()  # the checker worker starts while the model answers
    log: list[dict] = []
    stats = {"model_s": 0.0, "queries": 0, "calls": []}
    try:
        return _generate(
            vlm, world, task, schemas, ground_ops, images, retries, literals, history,
            repair_rounds, init_world, log, stats,
        )  # fmt: skip
    except OwlError as exc:
        exc.exchange = Exchange(log, stats["model_s"], stats["queries"], stats["calls"])
        raise


def _generate(
    vlm: VLM,
    world: WorldState,
    task: str,
    schemas: list[OperatorSchema],
    ground_ops: list[GroundOp],
    images: list[bytes] | None,
    retries: int,
    literals: list[str] | None,
    history: list[str] | None,
    repair_rounds: int,
    init_world: WorldState | None,
    log: list[dict],
    stats: dict,
) -> Constraints:
    images = images or []
    method = getattr(vlm, "method", "owl")
    env = env_from_state(world)

    def done(sketch: Sketch, checkers: CheckerSet, fixed: tuple | None = None) -> Constraints:
        return Constraints(
            sketch, checkers, log, stats["model_s"], stats["queries"], stats["calls"], fixed
        )

    if method in ("cap", "cap-sample"):
        got = _ask(
            vlm,
            method,
            cap_prompt(world, task, ground_ops, method == "cap-sample", history),
            images,
            lambda a: cap.compile_plan(a, world, env, ground_ops),
            retries,
            log,
            stats,
        )[0]
        out = done(
            got.sketch,
            CheckerSet.compile(got.source, world, env),
            got.fixed if method == "cap" else None,
        )
        out.sample_total = cap.SAMPLE_TOTAL if method == "cap-sample" else None
        return out
    if method == "direct":
        sketch, _ = _ask(
            vlm,
            "direct",
            direct_prompt(world, task, literals, history),
            images,
            lambda a: ablations.parse_goal_literals(a, ground_ops, world.names()),
            retries,
            log,
            stats,
        )
        return done(sketch, CheckerSet.compile(ablations.NO_CHECKERS, world, env))
    sketch, _ = _ask(
        vlm,
        "sketch",
        sketch_prompt(world, task, schemas, ground_ops, literals, history),
        images,
        lambda a: parse_sketch(a, ground_ops, world.names()),
        retries,
        log,
        stats,
    )
    if sketch.impossible:  # an honest "cannot": the run ends failed with the model's reason
        raise InfeasibleGoalError(sketch.impossible)
    if method == "no-cont":
        return done(sketch, CheckerSet.compile(ablations.NO_CHECKERS, world, env))
    if method == "no-disc":
        sketch = ablations.final_placements(sketch)
    open_world = {s.name for s in schemas if s.open_world}
    required = ["goal_check0"] + [
        f"action_check{i}" for i, a in enumerate(sketch.actions) if a.op.name in open_world
    ]

    def parse_code(answer: str) -> CheckerSet:
        return CheckerSet.compile(
            parse_checkers(answer, required), _initial(world, init_world), env
        )

    checkers, messages = _ask(
        vlm,
        "checker",
        checker_prompt(world, task, sketch, open_world, history),
        [],
        parse_code,
        retries,
        log,
        stats,
    )
    checkers, messages = _repaired(
        vlm, checkers, messages, world, env, required, parse_code, repair_rounds, log, stats
    )
    if not sketch.actions:  # "the goal already holds": only if its checkers say so on the scene
        unmet = [
            n
            for n in checkers.names()
            if n.startswith("goal_check") and not checkers.evaluate(n, world)
        ]
        if unmet:
            raise GroundingError(
                f"the model answered that the goal already holds, but {', '.join(unmet)} does not hold"
            )
    out = done(sketch, checkers)
    out.messages, out.required = messages, tuple(required)
    return out


def _initial(world: WorldState, init_world: WorldState | None) -> WorldState:
    """The checkers' `init_state`: the run's first observation, with any object seen only now (none
    usually) added from `world`, so every name the code may use is known; `world` when there is none."""
    if init_world is None or init_world is world:
        return world
    extra = {n: o for n, o in world.objects.items() if n not in init_world.objects}
    if not extra:
        return init_world
    return replace(init_world, objects={**init_world.objects, **extra})


ACTION_CHECKS_NOTE = (
    "During planning, action_check<i> is judged on the state right after action i, in which only "
    "the object that action moves has been displaced: every other object stands where the scene and "
    "the earlier actions left it. An action check must not ask for what later actions do."
)


def pretest_note(problems: list[repair.Unsatisfiable]) -> str:
    """The repair message for checkers the pre-test found unsatisfiable: each with its evidence
    (the regions, the clause that failed) and code, how action checks are judged, and the request."""
    note = "\n\n".join(p.message() for p in problems)
    actions = any("action_check" in p.checker for p in problems)
    return (
        "Before planning, these checkers were tested on candidate states drawn from the regions they "
        "test (each object a checker tests moved into its region), and nothing satisfies them:\n"
        f"{note}\n" + (f"{ACTION_CHECKS_NOTE}\n" if actions else "") + "Please send the whole "
        "corrected python block."
    )


def _repaired(
    vlm,
    checkers: CheckerSet,
    messages: list[dict],
    world: WorldState,
    env,
    required: list[str],
    parse_code,
    rounds: int,
    log: list[dict],
    stats: dict,
) -> tuple[CheckerSet, list[dict]]:
    """Send checkers nothing can satisfy back to the model with the evidence, at most `rounds` times;
    keeps the last usable answer (a corrected one, or the first when no correction parses). A model
    that answers with the same code again stands by it: that code is not tested again, nor the model
    asked again. Returns it with the conversation so far."""
    goals = [n for n in required if n.startswith("goal_check")]
    groups = [[n] for n in required] + ([goals] if len(goals) > 1 else [])
    rng = np.random.default_rng(0)
    for _ in range(rounds):
        problems = repair.check(checkers, world, env, groups, rng, context=goals)
        if not problems:
            break
        messages = messages + [{"role": "user", "content": pretest_note(problems)}]
        stats["repairs"] = stats.get("repairs", 0) + 1
        answer, unusable = _query(vlm, "checker", messages, [], log, stats)
        log[-1]["repair"] = [p.checker for p in problems]
        if unusable is not None:
            break
        messages = messages + [{"role": "assistant", "content": answer}]
        try:
            corrected = parse_code(answer)
        except (ModelAnswerError, UnsafeCodeError) as exc:
            log[-1]["rejected"] = exc.reason
            break
        same = corrected.source == checkers.source
        checkers = corrected
        if same:  # the same code again: testing it again cannot change what is kept
            log[-1]["unchanged"] = True
            break
    return checkers, messages
