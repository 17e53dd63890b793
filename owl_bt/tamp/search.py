"""Backtracking over skeletons with failure-driven skeleton edits.

Each round compiles the (possibly edited) plan sketch into a skeleton with Fast Downward and refines
it by search-then-sample. When a step runs out of samples, its typed failure decides the edit:

- a placement or pour blocked by objects on the target → first move one of them to the table;
- a grasp blocked by a neighbour, or by something resting on the object → move that object first;
- a container holding something (below its rim) → pick the container, pour it out onto the table,
  put it back down;
- a placement no sample of which satisfies its constraints, with nothing in the way, or a pick whose
  grasps the placement after it refused as unable to reach the orientation it needs → regrasp: put
  the object down on the table and pick it up again first (a new grasp reaches new orientations).

Every edit inserts sketch actions (so they are kept, in order, by the Executed(i) compilation), is
applied at most once per object and kind, and a round is a "skeleton tried"; at most
`max_skeletons` rounds (5 by default).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from owl_bt.failures import Failure, Stage
from owl_bt.state import WorldState
from owl_bt.tamp import pddl
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import Checker, PlanWatch, Refinement, refine

MAX_SKELETONS = 5
AWAY_MARGIN = 0.03  # metres: a moved-away object's centre stays this far outside the targets' boxes
NARROW_ROOM = 0.04  # metres between an object and its container's wall that open fingers need to reach round it


@dataclass
class SketchItem:
    """A sketch action with the checkers that judge the state right after it; `why` says which edit
    inserted it ('' for the model's own actions)."""

    op: GroundOp
    checks: list[tuple[str, Checker]] = field(default_factory=list)
    why: str = ""


@dataclass
class SearchResult:
    task_plan: pddl.TaskPlan | None
    refinement: Refinement
    skeletons: int
    samples: int
    sketch: list[SketchItem]
    failures: list[Failure] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)

    @property
    def failure(self) -> Failure | None:
        """None when planned; else the telling failure of the rounds (`telling_failure`)."""
        return (
            None
            if self.refinement.ok and self.task_plan is not None
            else telling_failure(self.failures)
        )


def telling_failure(failures: Sequence[Failure]) -> Failure:
    """The failure that says why planning failed: the action that failed the most rounds (the latest
    such round's record), else the last round's. When every skeleton edit fails at the same sketch
    step, that step is the cause; the last round's failure named an inserted step instead."""
    counts = Counter(f.action for f in failures)
    top = max(counts.values())
    return next(
        f for f in reversed(failures) if counts[f.action] == top and (top > 1 or f is failures[-1])
    )


def plan(
    world: WorldState,
    skills: Mapping[str, object],
    sketch: Sequence[SketchItem],
    goal_checkers: Sequence[tuple[str, Checker]],
    rng: np.random.Generator,
    budget: int = 500,
    max_skeletons: int = MAX_SKELETONS,
    cancelled: Callable[[], bool] = lambda: False,
    finish: Callable[[PlanningModel, Refinement], None] | None = None,
    repair: Callable[[Failure, list[SketchItem], list], tuple[list[SketchItem], list] | None]
    | None = None,
    kept: frozenset[str] = frozenset(),
    watch: PlanWatch | None = None,
) -> SearchResult:
    """Find a refined plan for `sketch` from `world`; the result's failure is the last round's.
    `finish(model, refinement)` may add to a successful refinement while its planning model (in
    the final state) is still open — e.g. a motion back home. `repair(failure, items, goal_checkers)`
    may answer a failed round with corrected checkers (new items and goal checkers) before any
    skeleton edit is tried (constraint repair during refinement, `owl_bt.language.refine_repair`).
    `kept`: objects put in place by sketch actions that a replan found done and dropped (edits leave
    them where they are). `watch`: kept up to date for a progress line (`PlanWatch`)."""
    schemas = [k.schema for k in skills.values()]
    held = world.robot.held if world.robot else None
    items, failures, edits, samples, done = list(sketch), [], [], 0, set()
    if (
        held is not None
        and items
        and items[0].op.name == "pick"
        and items[0].op.args[:1] == (held,)
    ):
        items = items[
            1:
        ]  # the sketch's first pick is done already: a replan with the object in hand
    for n in range(1, max_skeletons + 1):
        if watch is not None:
            watch.skeleton = n
        try:
            tp = pddl.solve(world, schemas, [it.op for it in items], held=held)
        except pddl.NoTaskPlan as exc:
            failures.append(Failure(Stage.PLAN, str(exc)))
            return SearchResult(
                None, Refinement(failure=failures[-1]), n, samples, items, failures, edits
            )
        step_checkers: dict[int, list] = {}
        for i, it in enumerate(items):
            if it.checks:
                step_checkers.setdefault(tp.sketch_steps[i], []).extend(it.checks)
        model = PlanningModel(world)
        try:
            ref = refine(
                model, tp.steps, skills, step_checkers, goal_checkers, rng, budget, cancelled, watch
            )
            if ref.ok and finish is not None:
                finish(model, ref)
        finally:
            model.close()
        samples += ref.samples
        if ref.ok:
            return SearchResult(tp, ref, n, samples, items, failures, edits)
        failures.append(ref.failure)
        if cancelled() or n == max_skeletons or ref.failure.observed.hopeless:
            break
        corrected = repair(ref.failure, items, list(goal_checkers)) if repair is not None else None
        if corrected is not None:
            items, goal_checkers = corrected
            edits.append(f"checkers corrected by the model after: {ref.failure.reason}")
            continue
        edit = propose_edit(world, items, tp, ref.failure, done, kept)
        if edit is None:
            break
        items, note = edit
        edits.append(note)
    return SearchResult(
        None, Refinement(samples=samples, failure=failures[-1]), n, samples, items, failures, edits
    )


def propose_edit(
    world: WorldState,
    items: list[SketchItem],
    tp: pddl.TaskPlan,
    failure: Failure,
    done: set,
    kept: frozenset[str] = frozenset(),
) -> tuple[list[SketchItem], str] | None:
    """The edited sketch and a one-line note, or None when no edit applies (`done` remembers what
    was already tried and is updated; `kept`: objects that sketch actions a replan found done already
    had put in place, never moved aside)."""
    idx = failure.observed.step
    if idx is None:
        return None
    op = tp.steps[idx]
    around: dict[str, list[str]] = failure.observed.around_target or {}
    at = _insert_at(items, tp, idx, op)
    table = _table(world)
    targets = {it.op.args[-1] for it in items if len(it.op.args) > 1}
    movable = set(world.movable())
    target = op.args[-1] if len(op.args) > 1 else op.args[0]
    in_target = [b for b in around.get(target, []) if b in movable]
    blamed = [b for b in failure.offending_objects if b in movable and b not in op.args]
    # What the sketch has put somewhere by then (a fork into the mug), or a replan found done already, is
    # arranged on purpose, not in the way; what it arranges only later (the knife lying on the fork that
    # is picked first) may be moved aside first.
    arranged = kept.union(*(arranged_by(world, it.op) for it in items[:at]))
    in_target = [b for b in in_target if b not in arranged]
    # what lies inside the object acted on (the soup in the can to be picked) goes with it: never in its way
    inside = set(world.contents(op.args[0])) if op.args and op.args[0] in world.objects else set()
    blamed = [b for b in blamed if b not in arranged and b not in inside]
    if op.name == "pick":
        in_target = [b for b in in_target if b not in inside]
        # what the picked object rests on or in (the strawberry's own bowl) carries it along when moved:
        # moving it aside never clears the way to the pick
        holders = _holders(world, op.args[0]) if op.args[0] in world.objects else set()
        in_target = [b for b in in_target if b not in holders]
        blamed = [b for b in blamed if b not in holders]
    else:
        holders = set()
    container = "Container" in _types(world, target)
    if (
        op.name == "pour" and container
    ):  # what lies in a container is no obstacle to pouring more into it
        in_target = [b for b in in_target if not _below_rim(world, b, target)]
    for b in in_target + blamed:
        # (a knife blamed for a place into the mug, lying on the table beside it, is below the mug's rim too)
        inside = (
            container
            and _below_rim(world, b, target)
            and world.get(target).over_footprint(*world.get(b).pose.position[:2])
        )
        key = ("pour" if inside else "move", target if inside else b)
        if key in done or table is None:
            continue
        done.add(key)
        if inside:
            return items[:at] + _poured_out(target, b, table) + items[at:], (
                f"{target} holds {b}: pour it out onto the {table} first"
            )
        new = [
            SketchItem(GroundOp("pick", (b,)), why=f"clear {target}"),
            SketchItem(
                GroundOp("place_ontop", (b, table)),
                [(f"{b} away", _away(b, targets))],
                why=f"clear {target}",
            ),
        ]
        return items[:at] + new + items[
            at:
        ], f"{b} is in the way of {op}: move it to the {table} first"
    # A pick that nothing beside it blocks, kept off by the walls of a narrow container it lies in (the golf ball in
    # the mug: the fingers round it do not fit): the container is poured out first, since no grasp
    # of it reaches past the walls
    walled = [
        h
        for h in sorted(holders)
        if h in failure.offending_objects
        and "Container" in _types(world, h)
        and _below_rim(world, op.args[0], h)
        and _narrow(world, h, op.args[0])
        and ("pour", h) not in done
    ]
    if walled and table is not None:
        h, o = walled[0], op.args[0]
        done.add(("pour", h))
        return items[:at] + _poured_out(h, o, table) + items[at:], (
            f"{o} lies in {h}, whose walls keep the hand off it: pour it out onto the {table} first"
        )
    round_thing = (
        world.get(op.args[0]).shape == "sphere"
    )  # every grasp of a ball reaches every orientation
    # a pick whose grasps the next step's look-ahead refused (skills/place.py grasp_fits): regrasp too
    reasons = failure.observed.reasons or {}
    refused = op.name == "pick" and any(r.endswith("the way the next step needs") for r in reasons)
    if (
        (op.name.startswith("place") or refused)
        and table is not None
        and not round_thing
        and ("regrasp", op.args[0]) not in done
    ):
        done.add(("regrasp", op.args[0]))
        j = _sketch_index_at(tp, idx + 1 if refused else idx)
        o = op.args[0]
        new = [
            SketchItem(
                GroundOp("place_ontop", (o, table)),
                [(f"{o} turned over", _turned(o, world))],
                why=f"regrasp {o}",
            ),
            SketchItem(GroundOp("pick", (o,)), why=f"regrasp {o}"),
        ]
        needs = tp.steps[idx + 1] if refused and idx + 1 < len(tp.steps) else op
        return items[:j] + new + items[
            j:
        ], f"no grasp of {op.args[0]} reaches {needs}: put it down and regrasp first"
    return None


def arranged_by(world: WorldState, op: GroundOp) -> set[str]:
    """Objects a sketch action puts somewhere on purpose: none for a pick; the object a place moves;
    for a pour, the poured object and what it pours — whatever is inside it or, once poured, inside
    its target container in `world` (soup a pour put in the bowl is where the sketch wants it, not
    something in the bowl's way to pour out again)."""
    if op.name == "pick" or not op.args:
        return set()
    out = {op.args[0]}
    if op.name == "pour":
        for holder in op.args:
            if holder in world.objects and (
                holder == op.args[0] or "Container" in _types(world, holder)
            ):
                out |= {n for n in world.contents(holder) if _below_rim(world, n, holder)}
    return out


def _holders(world: WorldState, obj: str) -> set[str]:
    """Movable objects `obj` rests on or in: its centre over their footprint and its bottom between
    their bottom and 1 cm above their top (a strawberry in a bowl, on a plate)."""
    o = world.get(obj)
    x, y, _ = o.pose.position
    bottom = o.aabb()[0][2]
    out = set()
    for n in world.movable():
        if n == obj:
            continue
        h = world.get(n)
        lo, hi = h.aabb()
        if h.over_footprint(x, y) and lo[2] - 0.005 <= bottom <= hi[2] + 0.01:
            out.add(n)
    return out


def _sketch_index_at(tp: pddl.TaskPlan, idx: int) -> int:
    """Index of the first sketch action at or after skeleton step idx (len(sketch) if none)."""
    return next((j for j, s in enumerate(tp.sketch_steps) if s >= idx), len(tp.sketch_steps))


def _insert_at(items: list[SketchItem], tp: pddl.TaskPlan, idx: int, op: GroundOp) -> int:
    """Where moves that clear the way for skeleton step idx go: before that step's sketch action,
    and before the sketch's pick of the same object just ahead of it (the hand must be free)."""
    j = _sketch_index_at(tp, idx)
    if (
        j > 0
        and items[j - 1].op.name == "pick"
        and op.name != "pick"
        and items[j - 1].op.args[0] == op.args[0]
    ):
        j -= 1
    return j


def _table(world: WorldState) -> str | None:
    if "table" in world.objects:
        return "table"
    fixed = [o for o in world.objects.values() if o.fixed]
    return max(fixed, key=lambda o: o.size[0] * o.size[1]).name if fixed else None


def _types(world: WorldState, name: str) -> set[str]:
    from owl_bt.tamp.operators import static_types

    o = world.get(name)
    return static_types(o.category, o.fixed)


def _poured_out(container: str, obj: str, table: str) -> list[SketchItem]:
    """The sketch items that empty `container` onto `table` until `obj` is out of it, and set it down."""
    return [
        SketchItem(GroundOp("pick", (container,)), why=f"empty {container}"),
        SketchItem(
            GroundOp("pour", (container, table)),
            [(f"{obj} out of {container}", _out_of(obj, container))],
            why=f"empty {container}",
        ),
        SketchItem(GroundOp("place_ontop", (container, table)), why=f"empty {container}"),
    ]


def _narrow(world: WorldState, container: str, obj: str) -> bool:
    """Too narrow for open fingers round obj: less than NARROW_ROOM (m) between obj's side and the container's
    wall (a golf ball in a mug: 1.5 cm; a strawberry in a 16 cm bowl: 5.8 cm)."""
    c, o = world.get(container).size, world.get(obj).size
    return min(c[0], c[1]) / 2 - max(o[0], o[1]) / 2 < NARROW_ROOM


def _below_rim(world: WorldState, obj: str, container: str) -> bool:
    """obj is mostly inside the container (its top at most 1 cm above the rim): pour it out; an
    object sitting on the rim (an orange on a mug) is a blocker to lift off instead."""
    return world.get(obj).aabb()[1][2] < world.get(container).aabb()[1][2] + 0.01


def _away(name: str, targets: set[str]) -> Checker:
    """Engineered check for a moved-away object: its centre is outside every sketch target's box."""

    def check(state: WorldState) -> bool:
        x, y, _ = state.get(name).pose.position
        for t in targets:
            if t == name or t not in state.objects or state.get(t).category == "table":
                continue
            lo, hi = state.get(t).aabb()
            if (
                lo[0] - AWAY_MARGIN <= x <= hi[0] + AWAY_MARGIN
                and lo[1] - AWAY_MARGIN <= y <= hi[1] + AWAY_MARGIN
            ):
                return False
        return True

    return check


def _turned(name: str, world: WorldState, min_angle: float = 0.8) -> Checker:
    """Engineered check for a regrasp's intermediate placement: the object rests on another face
    than in `world` (its z axis turned by more than min_angle radians), so the next grasp differs."""
    from owl_bt.state import rotation_matrix

    def z_axis(state: WorldState) -> tuple[float, float, float]:
        pose = state.get(name).pose
        rot = rotation_matrix(pose.roll, pose.pitch, pose.yaw)
        return (rot[0][2], rot[1][2], rot[2][2])

    before = z_axis(world)

    def check(state: WorldState) -> bool:
        now = z_axis(state)
        return sum(a * b for a, b in zip(before, now, strict=True)) < math.cos(min_angle)

    return check


def _out_of(obj: str, container: str) -> Checker:
    def check(state: WorldState) -> bool:
        lo, hi = state.get(container).aabb()
        x, y, z = state.get(obj).pose.position
        return not (lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1] and lo[2] <= z <= hi[2])

    return check
