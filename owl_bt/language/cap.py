"""Code-as-Policies comparison methods: the model writes `gen_plan(initial)` returning
the whole plan with continuous values; it runs in the same sandbox as the checkers.

- `cap`: the plan's positions are constants the code computed; the plan is carried out as given
  (`owl_bt.language.cap_plan`: the code's actions in order at the code's values, only grasps and
  motions filled in by the robot), once. Its checkers (each object within 3 cm of the code's (x, y))
  only monitor execution: the robot declares success when things ended where the code said.
- `cap-sample`: the code draws positions with `sample_ravenpose_uniformly_within_bounds`; the
  regions it draws from become the placements' checkers, so the planner's guided sampling re-draws
  from them — the code's own samplers — until a plan meets the robot's constraints, with at most
  SAMPLE_TOTAL samples for the whole task shared evenly by its actions (`planning.planner_for`).
  Grasps and motions are the planner's in both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from owl_bt.errors import ModelAnswerError, UnsafeCodeError
from owl_bt.language import codebook
from owl_bt.language.cap_plan import FixedStep
from owl_bt.language.parser import MAX_ACTIONS, Sketch, SketchAction, extract_code
from owl_bt.language.sandbox import CheckerFailed, CheckerSet
from owl_bt.state import WorldState
from owl_bt.tamp.operators import GroundOp

TOLERANCE = (
    0.03  # metres around the model's (x, y) a placement may come to rest (a fruit rolls a little)
)
CALL_LIMIT_S = 1.0
SAMPLE_TOTAL = 2500  # cap-sample: continuous samples for the whole task, shared by its actions
SAMPLING = (
    "Choose positions by drawing them: `sample_ravenpose_uniformly_within_bounds(bounds)` returns a pose "
    "inside 6-D bounds (build them with the modify_pose_bounds_* helpers); your function is called again "
    "for new draws while the robot cannot carry the plan out."
)


class CapPlan(NamedTuple):
    """What gen_plan(initial) returned: the plan as a sketch, its checkers' source, and — when every
    value is a constant the code computed (`cap`) — the plan to carry out as given, else None
    (`cap-sample`: values drawn from regions, re-drawn by the planner)."""

    sketch: Sketch
    source: str
    fixed: tuple[FixedStep, ...] | None


def compile_plan(
    answer: str, world: WorldState, env: codebook.Env, ground_ops: Sequence[GroundOp]
) -> CapPlan:
    """The CapPlan of a gen_plan answer; raises ModelAnswerError / UnsafeCodeError."""
    code = extract_code(answer)
    if "def gen_plan(" not in code:
        raise ModelAnswerError("the code does not define gen_plan(initial)")
    fns = CheckerSet.compile(code, world, env)
    drawn: dict[int, codebook.Bounds] = {}
    try:
        plan = fns.call("gen_plan", world, time_limit_s=CALL_LIMIT_S, drawn=drawn)
    except CheckerFailed as exc:
        raise ModelAnswerError(f"gen_plan(initial) failed: {exc}") from None
    if not isinstance(plan, list | tuple) or not plan:
        raise ModelAnswerError("gen_plan(initial) must return a non-empty list of steps")
    if len(plan) > MAX_ACTIONS:  # (thousands of steps would be planned for until the time limit)
        raise ModelAnswerError(
            f"gen_plan(initial) returned {len(plan)} steps; at most {MAX_ACTIONS}"
        )
    known = {(g.name, g.args) for g in ground_ops}
    actions, checks, fixed = [], [], []
    for i, step in enumerate(plan):
        if not isinstance(step, tuple | list) or len(step) < 2 or not isinstance(step[0], str):
            raise ModelAnswerError(
                f"step {i} is not a tuple like ('pick', 'apple') or ('place_ontop', 'apple', 'plate', (x, y))"
            )
        op = str(step[0])
        args = tuple(a for a in step[1:] if isinstance(a, str))
        if (op, args) not in known:
            raise ModelAnswerError(
                f"{op}({', '.join(args)}) is not one of the robot's actions in this scene"
            )
        actions.append(SketchAction(GroundOp(op, args), "as gen_plan says"))
        where = [a for a in step[1:] if not isinstance(a, str)]
        if op != "pick":
            if not where:
                raise ModelAnswerError(f"step {i} ({op}) has no (x, y) position")
            checks.append((i, args[0], _region(where[0], drawn)))
            fixed.append(
                None if id(where[0]) in drawn else FixedStep(GroundOp(op, args), _values(where[0]))
            )
        else:
            fixed.append(FixedStep(GroundOp(op, args)))
    if not checks:
        raise ModelAnswerError("the plan places nothing")
    last = {obj: (i, b) for i, obj, b in checks}
    src = [
        f"def action_check{i}():\n    return position_within_bounds(get_obj_center(state, env, {obj!r}), {b!r})\n"
        for i, obj, b in checks
    ]
    src += [
        f"def goal_check{k}():\n    return action_check{i}()\n"
        for k, (i, _) in enumerate(last.values())
    ]
    objs = tuple(dict.fromkeys(a.op.args[0] for a in actions))
    plan_as_given = None if any(f is None for f in fixed) else tuple(fixed)
    return CapPlan(
        Sketch(tuple(actions), objs, "the plan gen_plan returned"), "\n".join(src), plan_as_given
    )


def _values(where) -> tuple[float, ...]:
    """The numbers of a position the code computed: (x, y) or, for a pour, (x, y, z, tilt)."""
    try:
        vals = tuple(float(v) for v in where)
    except (TypeError, ValueError):
        raise ModelAnswerError(f"position {where!r} is not (x, y)") from None
    if len(vals) not in (2, 3, 4) or not all(math.isfinite(v) for v in vals):
        raise ModelAnswerError(
            f"position {where!r} is not (x, y) or (x, y, z, tilt) of finite numbers"
        )
    return vals


def _region(where, drawn: dict[int, codebook.Bounds]) -> codebook.Bounds:
    """The bounds the code drew `where` from, or a 2 cm square around the (x, y) it computed."""
    if id(where) in drawn:
        lo, hi = drawn[id(where)]
        return (
            tuple(_finite(v, -9.0) for v in lo[:3]) + (-4.0,) * 3,
            tuple(_finite(v, 9.0) for v in hi[:3]) + (4.0,) * 3,
        )
    try:
        x, y = float(where[0]), float(where[1])
    except (TypeError, ValueError, IndexError):
        raise ModelAnswerError(f"position {where!r} is not (x, y)") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ModelAnswerError(f"position {where!r} is not finite")
    t = TOLERANCE
    return (
        (round(x - t, 4), round(y - t, 4), -1.0, -4.0, -4.0, -4.0),
        (round(x + t, 4), round(y + t, 4), 3.0, 4.0, 4.0, 4.0),
    )


def _finite(v: float, default: float) -> float:
    return round(float(v), 4) if math.isfinite(v) else default


__all__ = ["SAMPLING", "CapPlan", "UnsafeCodeError", "compile_plan"]
