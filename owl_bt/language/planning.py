"""How the language layer's constraints shape the planner call (the plan subtree's one hook).

`planner_for(constraints, default, services)` returns the planner to call, with the signature of
`owl_bt.tamp.search.plan`: `cap`'s fixed plan is carried out as given (`cap_plan`); otherwise the
search-then-sample planner — for `cap-sample` with its per-action budget cut so that the sketch's
actions draw at most `Constraints.sample_total` samples together — given a `repair` callback that
sends checkers refinement shows to be unsatisfiable back to the model (`refine_repair`) when the
constraints came from a checker conversation and the services have a model to ask.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from owl_bt.language.cap_plan import plan_fixed
from owl_bt.language.refine_repair import CheckerRepair


def planner_for(constraints, default: Callable, services=None) -> Callable:
    """The planner for these constraints (`default`: `owl_bt.tamp.search.plan` or one like it;
    `services`: the tree's services — vlm, log, counters — or None for no repair)."""
    fixed = getattr(constraints, "fixed", None)
    if fixed:

        def run(
            world,
            skills,
            sketch,
            goal_checkers,
            rng,
            budget=500,
            max_skeletons=1,
            cancelled=lambda: False,
            finish=None,
            **_edits,
        ):  # a fixed plan is never edited
            return plan_fixed(fixed, world, skills, sketch, goal_checkers, rng, cancelled, finish)

        return run
    total = getattr(constraints, "sample_total", None)
    if total:  # cap-sample: one budget for the whole task, shared evenly by the plan's actions

        def shared(world, skills, sketch, goal_checkers, rng, budget=500, *args, **kwargs):
            return default(
                world,
                skills,
                sketch,
                goal_checkers,
                rng,
                max(1, min(budget, total // max(1, len(sketch)))),
                *args,
                **kwargs,
            )

        return shared
    if services is None or not getattr(constraints, "messages", None):
        return default
    return functools.partial(
        default, repair=CheckerRepair(constraints, services.vlm, services.log, services.counters)
    )
