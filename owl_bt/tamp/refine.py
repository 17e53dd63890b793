"""Search-then-sample refinement of a skeleton (SPEC §5 step 2).

For each ground operator in order: draw up to the sample budget (500 per action by default) of
continuous parameters from the skill's sampler, run its controller in the planning model, and keep
the first sample whose resulting state satisfies every constraint — the engineered ones (checked by
the controller) and the generated checkers for that step (and the goal checkers after the last).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from owl_bt.failures import Failure
from owl_bt.state import WorldState
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel

Checker = Callable[[WorldState], bool]
SAMPLE_BUDGET = 500


@dataclass
class GroundedStep:
    """One refined action: the ground operator, its sampled parameters and the backend commands."""

    op: GroundOp
    params: dict
    commands: list
    expected: dict
    samples: int
    checks: list = field(default_factory=list)  # (name, checker) the result satisfied, for monitoring


@dataclass
class Refinement:
    steps: list[GroundedStep] = field(default_factory=list)
    samples: int = 0
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def refine(
    model: PlanningModel,
    skeleton: Sequence[GroundOp],
    skills: Mapping[str, object],
    step_checkers: Mapping[int, Sequence[tuple[str, Checker]]],
    goal_checkers: Sequence[tuple[str, Checker]],
    rng: np.random.Generator,
    budget: int = SAMPLE_BUDGET,
    cancelled: Callable[[], bool] = lambda: False,
) -> Refinement:
    """Bind the skeleton's continuous parameters; step_checkers maps skeleton index → checkers.

    Returns a Refinement whose failure (stage 'plan') names the step that ran out of budget, the
    most frequent reason and the objects blamed — what the failure-driven skeleton edits read.
    """
    out = Refinement()
    last = len(skeleton) - 1
    for idx, op in enumerate(skeleton):
        skill = skills[op.name]
        checks = list(step_checkers.get(idx, ())) + (list(goal_checkers) if idx == last else [])
        snap = model.snapshot()
        reasons: collections.Counter[str] = collections.Counter()
        blamed: collections.Counter[str] = collections.Counter()
        for k in range(1, budget + 1):
            if cancelled():
                model.drop_snapshot(snap)
                out.failure = Failure("plan", "cancelled", str(op))
                return out
            params = skill.sample(model, op.args, rng)
            res = skill.simulate(model, op.args, params)
            out.samples += 1
            if res.ok:
                state = model.state()
                failed = [name for name, chk in checks if not chk(state)]
                if not failed:
                    out.steps.append(GroundedStep(op, params, res.commands, res.expected, k, checks))
                    break
                reasons[f"generated constraint {', '.join(failed)} not satisfied"] += 1
            else:
                reasons[res.reason] += 1
                blamed.update(res.offending)
            model.restore(snap)
        else:
            model.drop_snapshot(snap)
            reason, count = reasons.most_common(1)[0]
            out.failure = Failure(
                stage="plan", action=str(op),
                reason=f"no sample of {budget} satisfied all constraints; most often: {reason} ({count}×)",
                offending_objects=tuple(n for n, _ in blamed.most_common(3)),
                observed={"samples": budget, "reasons": dict(reasons.most_common(5))},
            )
            return out
        model.drop_snapshot(snap)
    return out
