"""Grasp look-ahead for refinement (ours, beyond the reference): a pick is judged by the step after
it on the same object — the pour wants the mouth free, the place wants a way down — and, for a pick
before a pour, by the place after the pour too, before any of those steps is sampled.

Used by `owl_bt.tamp.refine`; the checks themselves are the skills' `grasp_fits` hooks
(`skills.pour`, `skills.place_lookahead`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from owl_bt.tamp.guidance import guide
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.step_context import StepContext

PREFER_TRIES = (
    30  # grasps of a pick before a pour the later place's look-ahead may refuse (then any will do)
)


def after_pour(
    model, skeleton: Sequence[GroundOp], idx: int, step_checkers, goal_checkers
) -> tuple | None:
    """For a pick, then a pour of the same object, then a place of it: (that place, its checkers, the
    region they want the object in (`guide`), or None); else None."""
    op = skeleton[idx]
    if (
        op.name != "pick"
        or idx + 2 >= len(skeleton)
        or skeleton[idx + 1].name != "pour"
        or skeleton[idx + 1].args[:1] != op.args[:1]
        or skeleton[idx + 2].args[:1] != op.args[:1]
        or not skeleton[idx + 2].name.startswith("place")
    ):
        return None
    checks = list(step_checkers.get(idx + 2, ())) + (
        list(goal_checkers) if idx + 2 == len(skeleton) - 1 else []
    )
    return skeleton[idx + 2], checks, guide(model.state(), op.args[0], checks) if checks else None


def grasp_filter(
    skeleton: Sequence[GroundOp], skills: Mapping[str, object], idx: int, checks=(), later=None
):
    """For a pick followed by a step on the same object whose skill has `grasp_fits(model, args,
    checks, step=)` (pour: the palm must not cover the mouth; place: the object can be set down as
    the step's checkers want from this grasp), that check bound to the next step's arguments and
    checkers, as a callable `(model, step) -> reason | None` (`step`: the refinement's
    `StepContext`, where a place's look-ahead leaves its `PlaceHint`); else None.

    `later` (`after_pour`): a place after the pour, looked at too, as a preference only — for the
    first PREFER_TRIES grasps — so that the place's sampler gets its hint of a reachable way down
    (a mug held as the pour wants may not be able to stand up where the place's checkers want it)."""
    op = skeleton[idx]
    if op.name != "pick" or idx + 1 >= len(skeleton) or skeleton[idx + 1].args[:1] != op.args[:1]:
        return None
    nxt = skeleton[idx + 1]
    fits = getattr(skills[nxt.name], "grasp_fits", None)
    first = None if fits is None else (lambda model, step: fits(model, nxt.args, checks, step=step))
    place, place_checks, region = later if later is not None else (None, (), None)
    ahead = getattr(skills[place.name], "grasp_fits", None) if place is not None else None
    if ahead is None:
        return first
    tried = [0]

    def both(model, step: StepContext) -> str | None:
        why = first(model, step) if first is not None else None
        if why or tried[0] >= PREFER_TRIES:
            return why
        tried[0] += 1
        if ahead(model, place.args, place_checks, region=region, step=step):
            return f"from this grasp {op.args[0]} could not then be set down as {place} needs, after the pour"
        return None

    return both
