"""The fixed-plan path of Code-as-Policies (method `cap`): the plan `gen_plan(initial)` returned
is carried out as given — its actions in its order, each placement and pour at the code's own
values — with only what the code cannot say filled in by the robot: a grasp for each pick (the
pick skill's own sampler; a grasp is kept when the code's next step on that object can be carried
out with it) and the collision-free motions between the poses. No skeleton search, no sampling of
placements, no generated checkers rejecting anything: when a step cannot be done at the code's
values, planning fails with that step and the reason. (`owl_bt.language.planning.planner_for`
picks this planner when the constraints carry a fixed plan.)
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from owl_bt.failures import Evidence, Failure, Stage
from owl_bt.state import WorldState
from owl_bt.tamp import pddl
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import GroundedStep, Refinement
from owl_bt.tamp.search import SearchResult, SketchItem

GRASP_TRIES = 100  # grasps drawn per pick (the robot's choice: the code names none)
MOTION_TRIES = (
    3  # a fixed step is tried this often (motion planning is randomised), never re-valued
)
RELEASE_CLEARANCE = {"place_ontop": 0.006, "place_inside": 0.02}  # metres above resting height


@dataclass(frozen=True)
class FixedStep:
    """One action of gen_plan's plan: the ground operator and the values the code gave — for a
    placement (x, y) of the object's centre, for a pour (x, y) or (x, y, z, tilt); metres and
    radians, world frame. `values` is () for a pick."""

    op: GroundOp
    values: tuple[float, ...] = ()


def fixed_params(model: PlanningModel, step: FixedStep) -> dict | None:
    """The skill parameters for a fixed step, or None when the operator takes no such values.
    Placements keep the orientation the object hangs in (no turn) and are released just above
    resting height; a pour without z and tilt is made 1.5 object heights above the target's top,
    tilted 2.2 rad (about 125°) away from the robot."""
    v = step.values
    if step.op.name in RELEASE_CLEARANCE and len(v) >= 2:
        return {
            "x": v[0],
            "y": v[1],
            "face": None,
            "dyaw": 0.0,
            "clearance": RELEASE_CLEARANCE[step.op.name],
        }
    if step.op.name == "pour" and len(v) >= 2:
        o, t = step.op.args
        state = model.state()
        z = v[2] if len(v) >= 4 else state.get(t).aabb()[1][2] + 1.5 * state.get(o).size[2]
        tilt = v[3] if len(v) >= 4 else 2.2
        return {
            "x": v[0],
            "y": v[1],
            "z": z,
            "dyaw": 0.0,
            "tilt": max(-math.pi, min(math.pi, tilt)),
        }
    return None


def plan_fixed(
    steps: Sequence[FixedStep],
    world: WorldState,
    skills: Mapping[str, object],
    sketch: Sequence[SketchItem],
    goal_checkers: Sequence,
    rng: np.random.Generator,
    cancelled: Callable[[], bool] = lambda: False,
    finish: Callable[[PlanningModel, Refinement], None] | None = None,
) -> SearchResult:
    """Carry out `steps` in a planning model built from `world`. The sketch items' checkers and the
    goal checkers are not used to reject anything; they go with the grounded steps so execution is
    monitored against them (did things end where the code said). Returns a SearchResult with one
    skeleton; its failure names the step that cannot be done at the code's values."""
    ops = [s.op for s in steps]
    tp = pddl.TaskPlan(ops, list(range(len(ops))), "", "")
    out = Refinement()
    model = PlanningModel(world)
    last = len(steps) - 1
    try:
        i = 0
        while i <= last and out.failure is None:
            checks = list(sketch[i].checks) if i < len(sketch) else []
            if steps[i].op.name == "pick":
                nxt = (
                    steps[i + 1]
                    if i < last and steps[i + 1].op.args[:1] == steps[i].op.args[:1]
                    else None
                )
                next_checks = (
                    list(sketch[i + 1].checks) if nxt is not None and i + 1 < len(sketch) else []
                )
                got = _pick(
                    model,
                    skills,
                    steps[i],
                    nxt,
                    rng,
                    cancelled,
                    (i + 1 == last) * list(goal_checkers) + next_checks,
                    checks,
                )
                if isinstance(got, Failure):
                    out.failure = got
                    break
                out.steps += got
                out.samples += sum(g.samples for g in got)
                i += len(got)
                continue
            got = _fixed(
                model, skills, steps[i], checks + (list(goal_checkers) if i == last else [])
            )
            if isinstance(got, Failure):
                out.failure = got
                break
            out.steps.append(got)
            out.samples += got.samples
            i += 1
        if out.ok and finish is not None:
            finish(model, out)
    finally:
        model.close()
    failures = [out.failure] if out.failure is not None else []
    return SearchResult(tp if out.ok else None, out, 1, out.samples, list(sketch), failures)


def _fixed(model: PlanningModel, skills, step: FixedStep, checks: list) -> GroundedStep | Failure:
    params = fixed_params(model, step)
    if params is None:
        return Failure(
            Stage.PLAN,
            f"gen_plan gives no values {step.op.name} can use ({step.values!r})",
            str(step.op),
        )
    skill = skills[step.op.name]
    snap = model.snapshot()
    reason = ""
    try:
        for k in range(1, MOTION_TRIES + 1):
            res = skill.simulate(model, step.op.args, params)
            if res.ok:
                return GroundedStep(step.op, params, res.commands, res.expected, k, checks)
            reason = res.reason
            model.restore(snap)
    finally:
        model.drop_snapshot(snap)
    where = ", ".join(f"{v:.3f}" for v in step.values)
    return Failure(
        Stage.PLAN,
        f"gen_plan's {step.op} at ({where}) cannot be carried out: {reason}",
        str(step.op),
        observed=Evidence(values=list(step.values), retryable=False),
    )


def _pick(
    model: PlanningModel,
    skills,
    pick: FixedStep,
    nxt: FixedStep | None,
    rng,
    cancelled,
    next_checks: list,
    checks: list,
) -> list[GroundedStep] | Failure:
    """A grasp for `pick` with which `nxt` (the code's next step on the same object, if any) can be
    carried out at its values: [pick step] or [pick step, next step]."""
    skill = skills["pick"]
    snap = model.snapshot()
    reasons: collections.Counter[str] = collections.Counter()
    try:
        for k in range(1, GRASP_TRIES + 1):
            if cancelled():
                return Failure(Stage.PLAN, "cancelled", str(pick.op))
            params = skill.sample(model, pick.op.args, rng)
            res = skill.simulate(model, pick.op.args, params)
            if res.ok and nxt is not None:
                fits = getattr(skills.get(nxt.op.name), "grasp_fits", None)
                unfit = fits(model, nxt.op.args, next_checks) if fits is not None else None
                after = (
                    _fixed(model, skills, nxt, next_checks)
                    if unfit is None
                    else Failure(Stage.PLAN, unfit)
                )
                if isinstance(after, GroundedStep):
                    return [
                        GroundedStep(pick.op, params, res.commands, res.expected, k, checks),
                        after,
                    ]
                reasons[after.reason] += 1
            elif res.ok:
                return [GroundedStep(pick.op, params, res.commands, res.expected, k, checks)]
            else:
                reasons[res.reason] += 1
            model.restore(snap)
    finally:
        model.drop_snapshot(snap)
    reason, count = reasons.most_common(1)[0] if reasons else ("no grasp", 0)
    what = f"{pick.op} then {nxt.op}" if nxt is not None else str(pick.op)
    return Failure(
        Stage.PLAN,
        f"no grasp of {GRASP_TRIES} lets the robot do {what} as gen_plan says; most often: {reason} "
        f"({count}×)",
        str(pick.op),
        observed=Evidence(reasons=dict(reasons.most_common(5)), retryable=False),
    )
