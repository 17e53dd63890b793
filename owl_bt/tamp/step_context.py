"""What a skill's sampler and controller are told about the refinement step they serve.

The refinement cursor (`owl_bt.tamp.refine.Cursor`) owns one `StepContext` for the whole
refinement of a skeleton and hands it to every skill hook it calls (`sample`, `orient`,
`simulate`, `grasp_fits`) as the `step` argument. Before a step is sampled the cursor sets
`checks` and `next_op`; `place_hint` is written by a place skill's look-ahead while the pick
before it is sampled and read when the place itself is sampled, so it outlives the step.

A skill called outside refinement (a test, the code-as-policies baseline) gets an empty
context: no checkers, no next step, no hint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from owl_bt.state import WorldState
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import Transform

Checker = Callable[[WorldState], bool]


@dataclass
class PlaceHint:
    """A way to set the held object down that the place look-ahead found reachable from the grasp
    just made: `obj` held with `grasp` (object pose in the TCP frame) can be released with `params`
    (a place sample: `face`, `dyaw` in radians, `x`, `y` in metres, world frame). `misses` counts
    the place draws around it that were refused since it was found."""

    obj: str
    grasp: Transform | None
    params: dict
    misses: int = 0


@dataclass
class StepContext:
    """The refinement state a skill hook may read (and, for `place_hint`, write).

    checks: (name, checker) pairs the result of the step being sampled must satisfy (its own
        generated checkers, the goal's after the last step, and earlier steps' that still hold), so
        that a controller can judge a result before it plans dear motions for it; empty outside
        refinement.
    next_op: the skeleton's step after the one being sampled (a pick before a pour holds the
        container from the side), or None.
    place_hint: see `PlaceHint`; None when no look-ahead found one.
    """

    checks: Sequence[tuple[str, Checker]] = field(default_factory=list)
    next_op: GroundOp | None = None
    place_hint: PlaceHint | None = None


def context(step: StepContext | None) -> StepContext:
    """`step`, or an empty context for a skill called outside refinement."""
    return StepContext() if step is None else step
