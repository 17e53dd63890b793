"""Is a later placement of the plan still free? After a step, an object the plan did not put where it
now lies (contents tipped out by a pour land where physics puts them, not where the planner's own
physics did) can lie where a later step sets something down: a ball poured out of a mug may roll to
where the mug is then set upright, and the mug come down over it. Such a blocked placement is a
PRECONDITION failure of the rest of the plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from owl_bt.failures import Evidence, Failure, FailureKind, Stage
from owl_bt.state import WorldState
from perception.tracker import container_of


def blocked_later(
    step,
    later_steps: list,
    obs: WorldState,
    held: str | None,
    holds_after: Callable[[object], str | None],
) -> Failure | None:
    """The first later step that sets an object down (its `expected` pose, world frame) where `obs` shows
    another object's centre, inside the box the set-down object would fill: a PRECONDITION failure of
    `step` (the one just done) naming both. Not counted: what the step acts on (its arguments), what lies
    in those (a spoon already in the mug the fork goes into), what `step` itself just put into or onto
    one of them (the fork leaning in the mug, its centre outside the mug's box, where the knife goes
    next), what the hand holds, fixed objects, and what an earlier later step moves first, with what lies
    in it (the soup goes with its can: an apple may be planned where the can stood).
    `holds_after(st)`: what st leaves in the hand (a pick's expected pose is where it grasps, not where
    it sets down)."""
    moving: set[str] = set()
    for st in later_steps:
        for name, pose in st.expected.items():
            if name not in obs.objects or holds_after(st) == name:
                continue
            lo, hi = replace(obs.get(name), pose=pose).aabb()
            for other, o in obs.objects.items():
                if (
                    other in st.op.args
                    or other in moving
                    or other == held
                    or o.fixed
                    or container_of(other, obs.objects) in {*st.op.args, *moving}
                    or _put_there(step, other, st)
                ):
                    continue
                x, y, z = o.pose.position
                if lo[0] < x < hi[0] and lo[1] < y < hi[1] and lo[2] < z < hi[2]:
                    return Failure(
                        Stage.MONITOR,
                        f"{other} lies at ({x:.2f}, {y:.2f}), where {st.op} would set {name} down",
                        str(step.op),
                        (other, name),
                        Evidence(pose=o.pose.rounded(), blocks=str(st.op)),
                        kind=FailureKind.PRECONDITION,
                    )
        moving |= {*st.op.args[:1], *st.expected}
    return None


def _put_there(step, other: str, later) -> bool:
    """Did `step` (the one just done) put `other` into or onto one of `later`'s arguments? (A fork
    leaning in a mug, its centre over the rim, is not in the way of the knife going in after it.)"""
    return (
        bool(step.op.args)
        and step.op.args[0] == other
        and bool(set(step.op.args[1:]) & set(later.op.args))
    )
