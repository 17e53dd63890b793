"""Constraint repair: find generated checkers nothing can satisfy before planning, with
evidence a model can act on.

The reference method's main failure is a checker no state satisfies ("the strawberry inside the
bowl and inside the pan at once"). For each checker we record the regions it tests each object's
centre against (`owl_bt.tamp.bounds_record.record_bounds`), then draw K candidate states: every tested object placed
at once inside its region — its own orientation or upright, re-recording the regions after each
placement so regions relative to moved objects follow them — and judge the checker on each. A
checker none of K candidates satisfies is reported with its source, the regions (and whether they
overlap) and the count; `constraints.generate` sends that back to the model for a corrected
checker, at most `rounds` times. No physics is run: this is a cheap necessary condition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from owl_bt.errors import OwlError
from owl_bt.language import clause_probe
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import Env
from owl_bt.state import Pose, WorldState
from owl_bt.tamp.bounds_record import Bounds

CANDIDATES = 200


@dataclass(frozen=True)
class Unsatisfiable:
    checker: str
    source: str
    evidence: str

    def message(self) -> str:
        return f"{self.checker} cannot be satisfied: {self.evidence}.\nIts code:\n{self.source}"


def _regions(
    checkers: CheckerSet, names: list[str], state: WorldState
) -> list[dict[str, list[Bounds]]]:
    """For each checker of `names`, the regions it tested each movable object's centre against on
    `state` (all judged in one exchange with the sandbox worker)."""
    outs = []
    for _, found in checkers.evaluate_recorded([(n, state) for n in names]):
        out: dict[str, list[Bounds]] = {}
        for obj, b in found:
            if obj in state.objects and not state.get(obj).fixed:
                out.setdefault(obj, []).append(b)
        outs.append(out)
    return outs


def _clip(lo: float, hi: float, env_lo: float, env_hi: float) -> tuple[float, float]:
    return max(lo, env_lo), min(hi, env_hi)


def _draw(boxes: list[Bounds], env: Env, current: Pose, rng: np.random.Generator) -> Pose | None:
    box = boxes[int(rng.integers(len(boxes)))]
    lo, hi = list(box[0][:3]), list(box[1][:3])
    for b in boxes:  # the intersection where there is one
        ilo = [max(lo[i], b[0][i]) for i in range(3)]
        ihi = [min(hi[i], b[1][i]) for i in range(3)]
        if all(ilo[i] <= ihi[i] for i in range(3)):
            lo, hi = ilo, ihi
    xyz = []
    for i in range(3):
        a, c = _clip(
            lo[i], hi[i], env.table_lower[i] - (0.3 if i == 2 else 0.0), env.table_upper[i]
        )
        if a > c:
            return None
        xyz.append(
            float(rng.uniform(a, c))
            if math.isfinite(a) and math.isfinite(c)
            else current.as_tuple()[i]
        )
    # its own orientation, upright, on a side or upside down (a fork stands in a mug, a can pours)
    roll, pitch = [
        (current.roll, current.pitch),
        (0.0, 0.0),
        (float(rng.choice([-1, 1, 2])) * math.pi / 2, 0.0),
        (0.0, float(rng.choice([-1, 1])) * math.pi / 2),
    ][int(rng.integers(4))]
    return Pose(*xyz, roll, pitch, float(rng.uniform(-math.pi, math.pi)))


def _overlap(boxes: list[Bounds]) -> bool:
    return all(max(b[0][i] for b in boxes) <= min(b[1][i] for b in boxes) for i in range(3))


def _fmt(b: Bounds) -> str:
    return "x {:.2f}..{:.2f}, y {:.2f}..{:.2f}, z {:.2f}..{:.2f}".format(
        *(v for i in range(3) for v in (max(b[0][i], -9.99), min(b[1][i], 9.99)))
    )


def check(
    checkers: CheckerSet,
    world: WorldState,
    env: Env,
    groups: list[list[str]],
    rng: np.random.Generator,
    k: int = CANDIDATES,
    context: list[str] = (),
) -> list[Unsatisfiable]:
    """The groups of checkers (judged together on one state) none of k candidate states satisfies,
    with the evidence. `context`: checkers (the goal's) whose regions place the other objects in half
    of the candidates — a checker may test one object relative to another one moved earlier. Checker
    errors raised while sampling are not kept."""
    kept = len(checkers.errors)
    try:
        return [
            u
            for g in groups
            if (u := _check_group(checkers, world, env, g, rng, k, list(context))) is not None
        ]
    finally:
        del checkers.errors[kept:]


def _all(checkers: CheckerSet, names: list[str], state: WorldState) -> bool:
    return all(checkers.evaluate_many([(n, state) for n in names]))


def _search(
    checkers, world, env, names, rng, k, context
) -> tuple[WorldState | None, list[WorldState], dict[str, list[Bounds]]]:
    """(a state satisfying every checker of `names` — `world` itself when they hold there — or
    None, the candidate states tried, the regions tested on `world`); no candidates when the
    checkers test no region."""

    def regions(state: WorldState, extra: bool = False) -> dict[str, list[Bounds]]:
        out: dict[str, list[Bounds]] = {}
        wider = context if extra else []
        found = _regions(checkers, [*wider, *names], state)
        for regs in found[: len(wider)]:
            for obj, boxes in regs.items():
                out[obj] = boxes  # where the goal wants the others; the group's own regions below
        for regs in found[len(wider) :]:
            for obj, boxes in regs.items():
                out.setdefault(obj, []).extend(boxes)
        return out

    first = regions(world)
    if _all(checkers, names, world):
        return world, [], first
    tried: list[WorldState] = []
    if not first:
        return None, tried, first
    for j in range(k):
        # one object at a time, in a random order, re-reading the regions after each placement: a
        # fork's region inside the mug follows the mug placed before it, and a conjunction that
        # stopped at its first part shows its later parts once that part holds
        state, placed = world, set()
        for _ in range(len(world.objects)):
            regs = regions(state, extra=bool(j % 2))
            left = [o for o in regs if o not in placed]
            if not left:
                break
            obj = left[int(rng.integers(len(left)))]
            placed.add(obj)
            pose = _draw(regs[obj], env, state.get(obj).pose, rng)
            if pose is not None:
                state = state.with_pose(obj, pose)
        if _all(checkers, names, state):
            return state, tried, first
        tried.append(state)
    return None, tried, first


def _check_group(checkers, world, env, names, rng, k, context) -> Unsatisfiable | None:
    found, tried, first = _search(checkers, world, env, names, rng, k, context)
    if found is not None or not first:
        return None
    if _composed(checkers, world, env, names, rng, k, context):
        return None
    parts = []
    for obj, boxes in first.items():
        where = "; ".join(_fmt(b) for b in boxes)
        parts.append(
            f"{obj}'s centre is tested against {len(boxes)} region(s) [{where}]"
            + (
                ""
                if len(boxes) < 2 or _overlap(boxes)
                else ", which do not overlap: no single pose is in all of them"
            )
        )
    label = " and ".join(names) + (" together" if len(names) > 1 else "")
    source = "\n".join(checkers.sources.get(n, "") for n in names)
    evidence = (
        f"{'; '.join(parts)}; none of {k} candidate poses drawn from those regions satisfied it"
    )
    if len(names) == 1:
        evidence += failed_clauses(checkers, names[0], tried)
    return Unsatisfiable(label, source, evidence)


def _probes(checkers: CheckerSet, name: str) -> tuple[list, CheckerSet | None]:
    """(the clauses of checker `name`, a CheckerSet holding the checkers and a probe per clause);
    ([], None) when it is not a conjunction or a probe is refused by the sandbox's static gate."""
    parts = clause_probe.clauses(checkers.source, name)
    if len(parts) < 2:
        return [], None
    try:
        probes = CheckerSet.compile(
            checkers.source + "\n\n" + "\n\n".join(c.source for c in parts),
            checkers.init_state,
            checkers.env,
        )
    except OwlError:
        return [], None
    return parts, probes


def _composed(checkers: CheckerSet, world, env, names: list[str], rng, k, context) -> bool:
    """Do checkers judged together (or the clauses of one that is a conjunction) that move different
    objects hold once each one's objects are where a search for it alone put them? (The fork
    straight beside the plate and the knife straight beside it are each met in a few of the
    candidates, both at once in almost none.)"""
    if len(names) > 1:
        units, probes = [[n] for n in names], checkers
    else:
        parts, found_probes = _probes(checkers, names[0])
        if found_probes is None:
            return False
        units, probes = [[c.probe] for c in parts], found_probes
    draws = np.random.default_rng(
        len(units)
    )  # (its own: the other groups' draws stay as they were)
    state, moved = world, set()
    for unit in units:
        # (alone: the goal's regions would move the other objects too)
        found = _search(probes, world, env, unit, draws, k, [])[0]
        if found is None:
            return False
        own = {o for o in world.objects if found.get(o).pose != world.get(o).pose}
        if own & moved:
            return False  # two clauses about the same object: judged together only
        moved |= own
        for o in own:
            state = state.with_pose(o, found.get(o).pose)
    return _all(checkers, names, state)


def failed_clauses(checkers: CheckerSet, name: str, states: list[WorldState]) -> str:
    """'' or, for a checker that is a conjunction (`clause_probe`), a sentence saying in how many of
    `states` each clause held and which never did."""
    parts, probes = _probes(checkers, name)
    if probes is None or not states:
        return ""
    held = probes.evaluate_many([(c.probe, s) for c in parts for s in states])
    n = len(states)
    counts = [sum(held[i * n : (i + 1) * n]) for i in range(len(parts))]
    shares = "; ".join(f"`{c.text}` held in {m} of {n}" for c, m in zip(parts, counts, strict=True))
    never = [f"`{c.text}`" for c, m in zip(parts, counts, strict=True) if m == 0]
    verdict = (
        f"the clause{'s' if len(never) > 1 else ''} that failed: {', '.join(never)}"
        if never
        else "every clause held in some candidates, never all of them together"
    )
    return f". Its clauses, judged on the same candidates: {shares}; {verdict}"
