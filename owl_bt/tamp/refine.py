"""Search-then-sample refinement of a skeleton.

For each ground operator in order: draw up to the sample budget (500 per action by default) of
continuous parameters from the skill's sampler, run its controller in the planning model, and keep
the first sample whose resulting state satisfies every constraint — the engineered ones (checked by
the controller) and the generated checkers for that step (and the goal checkers after the last).

Additions of ours:
- **Constraint-guided sampling**: before a step, its checkers are evaluated once on the current
  state while `bounds_record.record_bounds()` listens; the bounds they test the moved object's centre against
  become a hint, and a skill whose sampler returns the moved object's centre as `x`, `y` (and `z`)
  gets them redrawn inside those bounds for GUIDED_SHARE of the samples (the rest stay broad).
- **Orientation guidance**: a skill with `orient(model, args, params, rng)` (the places) then picks,
  of the orientations it could release in, one whose resting pose at the drawn spot the step's
  checkers accept ("upright" rules out lying faces before a sample is spent on them).
- **Regrasp**: when a step that moves object o fails right after `pick(o)`, the pick is sampled
  again (a new grasp) up to REGRASPS times, the step's budget shared between the tries.
- **Culprit backtracking**: when a step fails mostly because of an object an earlier step put down
  (the orange set down where the fork's grasp needs room), that earlier placement is drawn again,
  up to BACKTRACKS times per step; the steps after it get a fresh half budget.
- **Edge margin**: a sample whose moved object satisfies the step's checkers only where it lies, not
  NUDGE (4 mm) along x or y from there, is refused: on the arm it comes to rest millimetres off and
  the monitor then finds a checker broken.
- **Look-ahead grasps**: a pick followed by a step on the same object whose skill has
  `grasp_fits(model, args, checks)` keeps only grasps that step can use (pour: the palm off the
  mouth; place: some orientation the step's checkers accept is reachable — a lying mug grasped so
  that standing it up would need the hand under it is let go of at once).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from owl_bt.failures import Evidence, Failure, Stage
from owl_bt.state import WorldState
from owl_bt.tamp.grasp_lookahead import after_pour, grasp_filter
from owl_bt.tamp.guidance import Bounds, guide
from owl_bt.tamp.judge import judge
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import Checker, StepContext

SAMPLE_BUDGET = 500
GUIDED_SHARE = 0.8
HINT_INSET = 0.02  # metres kept free along each edge of a guiding region (at most a quarter of it)
BACKTRACKS = 2  # times an earlier placement may be redrawn because it blocks a later step
REGRASPS = 3
REGRASP_AFTER = (
    4  # failures a skill lays on the grasp (`Outcome.regrasp`) before that grasp is given up
)
NUDGE = 0.004  # metres a placed object may come to rest off its planned spot; its constraints must allow that


@dataclass
class GroundedStep:
    """One refined action: the ground operator, its sampled parameters and the backend commands."""

    op: GroundOp
    params: dict
    commands: list
    expected: dict
    samples: int
    checks: list = field(
        default_factory=list
    )  # (name, checker) the result satisfied, for monitoring


@dataclass
class PlanWatch:
    """What a planning round is doing, for a progress line read from another thread (plain fields,
    each written whole): the skeleton being refined (1-based), continuous samples drawn so far in the
    round, and the ground operator being sampled ('' between steps)."""

    skeleton: int = 0
    samples: int = 0
    step: str = ""


@dataclass
class Refinement:
    steps: list[GroundedStep] = field(default_factory=list)
    samples: int = 0
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def _guided(params: dict, hint: Bounds | None, rng: np.random.Generator) -> dict:
    if hint is None or "x" not in params or "y" not in params or rng.random() >= GUIDED_SHARE:
        return params
    if all(hint[0][i] <= params[k] <= hint[1][i] for i, k in enumerate(("x", "y"))):
        return params  # the skill's own draw already lies in the region (e.g. over a container's opening)
    out = dict(params)
    for i, key in enumerate(("x", "y", "z")):
        lo, hi = hint[0][i], hint[1][i]
        if key in out and abs(lo) < 10 and abs(hi) < 10:
            if i < 2:  # keep off the region's edges, where a released object is least stable
                inset = min(HINT_INSET, (hi - lo) / 4)
                lo, hi = lo + inset, hi - inset
            out[key] = float(rng.uniform(lo, hi))
    return out


class Cursor:
    """Where a refinement stands in its skeleton, with what backtracking needs.

    `idx` is the step being sampled; `steps` the steps bound so far, each with the planning-model
    snapshot taken before it was sampled (`snaps`, restored when the cursor goes back over it);
    `spent`, `regrasps` and `backtracks` count per step the samples drawn, the picks before it
    drawn again and the times it was drawn again because a later step needed its object elsewhere.

    Moves: `bind` (a sample of the step worked: on to the next), `regrasp` (back one step: the
    pick before is drawn again, a new grasp), `backtrack` (back to an earlier step, whose
    placement blocks this one; the steps after it get a fresh half budget). `focus` sets what the
    step is judged by in `context`, the `StepContext` handed to every skill hook the refinement
    calls. `close` drops the snapshots still held.
    """

    def __init__(self, model: PlanningModel, skeleton: Sequence[GroundOp], budget: int) -> None:
        self.model, self.skeleton, self.budget = model, skeleton, budget
        self.idx = 0
        self.steps: list[GroundedStep] = []
        self.snaps: list = []
        self.spent: collections.Counter[int] = collections.Counter()
        self.regrasps: collections.Counter[int] = collections.Counter()
        self.backtracks: collections.Counter[int] = collections.Counter()
        self.context = StepContext()

    @property
    def last(self) -> int:
        return len(self.skeleton) - 1

    @property
    def done(self) -> bool:
        return self.idx > self.last

    @property
    def op(self) -> GroundOp:
        return self.skeleton[self.idx]

    @property
    def next_op(self) -> GroundOp | None:
        """The skeleton's step after this one (a sampler may look ahead: a pick before a pour)."""
        return self.skeleton[self.idx + 1] if self.idx < self.last else None

    def can_regrasp(self) -> bool:
        """The step moves the object the step before picked: a new grasp may help it."""
        before = self.skeleton[self.idx - 1] if self.idx > 0 else None
        return before is not None and before.name == "pick" and before.args[:1] == self.op.args[:1]

    def regrasp_left(self) -> bool:
        return self.can_regrasp() and self.regrasps[self.idx] < REGRASPS

    def share(self) -> int:
        """Samples this step may draw now: what is left of its budget, or a (REGRASPS + 1)th of the
        budget when the grasp before it may be drawn again."""
        left = self.budget - self.spent[self.idx]
        if not self.can_regrasp():
            return left
        return min(max(1, self.budget // (REGRASPS + 1)), left)

    @contextlib.contextmanager
    def focus(self, checks: list[tuple[str, Checker]]) -> Iterator[None]:
        """While the step is sampled, the skills' controllers judge a result by `checks`
        (`context.checks`) and may look at the next step (`context.next_op`)."""
        self.context.checks = checks
        self.context.next_op = self.next_op
        try:
            yield
        finally:
            self.context.checks = []
            self.context.next_op = None

    def bind(self, step: GroundedStep, snap: object) -> None:
        """The step is bound (`snap`: the model before it): on to the next step."""
        self.snaps.append(snap)
        self.steps.append(step)
        self.idx += 1

    def discard(self, snap: object) -> None:
        """None of the step's samples worked: the model goes back to `snap`."""
        self.model.restore(snap)
        self.model.drop_snapshot(snap)

    def regrasp(self) -> None:
        """Back one step: the pick before this step is drawn again."""
        self.regrasps[self.idx] += 1
        self.steps.pop()
        prev = self.snaps.pop()
        self.model.restore(prev)
        self.model.drop_snapshot(prev)
        self.idx -= 1

    def backtrack(self, j: int) -> None:
        """Back to step j (its placement is in this step's way): it is drawn again, and the steps
        after it up to this one get a fresh half budget."""
        self.backtracks[j] += 1
        while len(self.steps) > j:
            self.steps.pop()
            prev = self.snaps.pop()
            if len(self.steps) > j:
                self.model.drop_snapshot(prev)
        self.model.restore(prev)
        self.model.drop_snapshot(prev)
        for k in range(j + 1, self.idx + 1):
            self.spent[k] = min(self.spent[k], self.budget // 2)
        self.idx = j

    def close(self) -> None:
        for snap in self.snaps:
            self.model.drop_snapshot(snap)


def refine(
    model: PlanningModel,
    skeleton: Sequence[GroundOp],
    skills: Mapping[str, object],
    step_checkers: Mapping[int, Sequence[tuple[str, Checker]]],
    goal_checkers: Sequence[tuple[str, Checker]],
    rng: np.random.Generator,
    budget: int = SAMPLE_BUDGET,
    cancelled: Callable[[], bool] = lambda: False,
    watch: PlanWatch | None = None,
) -> Refinement:
    """Bind the skeleton's continuous parameters; step_checkers maps skeleton index → checkers.

    Returns a Refinement whose failure (stage 'plan') names the step that ran out of budget, the
    most frequent reason, the objects blamed, and in `observed` what rested on or in the step's
    target — what the failure-driven skeleton edits read. `watch`, when given, is kept up to date
    (the step sampled, one more sample per draw).
    """
    out = Refinement()
    for (
        op
    ) in skeleton:  # a step no draw can do (the power drill into the mug) fails before any is drawn
        never = getattr(skills[op.name], "never", None)
        why = never(model, op.args) if never is not None else None
        if why:
            # (a replan would find the same: the run ends here)
            out.failure = Failure(
                Stage.PLAN,
                why,
                str(op),
                observed=Evidence(samples=0, hopeless=True, retryable=False),
            )
            return out
    cur = Cursor(model, skeleton, budget)
    out.steps = cur.steps
    try:
        while not cur.done:
            out.failure = _step(
                cur, skills, step_checkers, goal_checkers, rng, cancelled, watch, out
            )
            if out.failure is not None:
                break
    finally:
        cur.close()
    return out


def _step(
    cur: Cursor,
    skills: Mapping[str, object],
    step_checkers: Mapping[int, Sequence[tuple[str, Checker]]],
    goal_checkers: Sequence[tuple[str, Checker]],
    rng: np.random.Generator,
    cancelled: Callable[[], bool],
    watch: PlanWatch | None,
    out: Refinement,
) -> Failure | None:
    """Sample the cursor's step and move the cursor: forward when a sample works, else back (a
    regrasp, a backtrack); the failure that ends the refinement, or None."""
    model, skeleton, idx, op, last = cur.model, cur.skeleton, cur.idx, cur.op, cur.last
    own = list(step_checkers.get(idx, ())) + (list(goal_checkers) if idx == last else [])
    checks = own + _kept(model, skeleton, step_checkers, idx)
    next_checks = list(step_checkers.get(idx + 1, ())) + (
        list(goal_checkers) if idx + 1 == last else []
    )
    share = cur.share()
    snap = model.snapshot()
    hint = guide(model.state(), op.args[0], own) if own and op.args else None
    with cur.focus(checks):
        if watch is not None:
            watch.step = str(op)
        step, reasons, blamed, used, hopeless = _sample_step(
            model,
            op,
            skills[op.name],
            checks,
            hint,
            rng,
            share,
            cancelled,
            snap,
            grasp_filter(
                skeleton,
                skills,
                idx,
                next_checks,
                after_pour(model, skeleton, idx, step_checkers, goal_checkers),
            ),
            watch,
            REGRASP_AFTER if cur.regrasp_left() else None,
            cur.context,
        )
    cur.spent[idx] += used
    out.samples += used
    if step is not None:
        cur.bind(step, snap)
        return None
    cur.discard(snap)
    if reasons.get("cancelled"):
        return Failure(Stage.PLAN, "cancelled", str(op))
    if hopeless:  # (no regrasp, redrawn placement or skeleton edit can change it)
        return Failure(
            Stage.PLAN, next(iter(reasons)), str(op), observed=Evidence(samples=used, hopeless=True)
        )
    if cur.regrasp_left() and cur.spent[idx] < cur.budget:
        cur.regrasp()
        return None
    j = _culprit(cur.steps, op, blamed)
    if j is not None and cur.backtracks[j] < BACKTRACKS:
        # An object an earlier step put down is in this step's way: put it elsewhere and go on.
        cur.backtrack(j)
        return None
    return _out_of_samples(cur, reasons, blamed, used)


def _out_of_samples(
    cur: Cursor, reasons: collections.Counter, blamed: collections.Counter, used: int
) -> Failure:
    """The failure of a step whose budget is spent: its most frequent reason, the objects blamed,
    and what rests on or in its target."""
    idx, op, spent, regrasps = cur.idx, cur.op, cur.spent, cur.regrasps
    if reasons:
        reason, count = reasons.most_common(1)[0]
        # the reasons are those of the step's last try (after a regrasp or a backtrack, its earlier tries' are gone)
        again = (
            f", after {regrasps[idx]} regrasp{'s' if regrasps[idx] > 1 else ''}"
            if regrasps[idx]
            else ""
        )
        of = f" of the last {used}{again}" if used < spent[idx] else ""
        why = f"no sample of {spent[idx]} satisfied all constraints; most often{of}: {reason} ({count}×)"
    else:  # no sample of its own was drawn: no reason to count
        why = (
            f"its {spent[idx]} samples were all used while the steps before it were drawn again "
            "(backtracking), none left for it"
        )
    return Failure(
        stage=Stage.PLAN,
        action=str(op),
        reason=why,
        offending_objects=tuple(n for n, _ in blamed.most_common(3)),
        observed=Evidence(
            samples=spent[idx],
            reasons=dict(reasons.most_common(5)),
            step=idx,
            around_target=_around(cur.model, op),
        ),
    )


def _kept(
    model: PlanningModel,
    skeleton: Sequence[GroundOp],
    step_checkers: Mapping[int, Sequence[tuple[str, Checker]]],
    idx: int,
) -> list[tuple[str, Checker]]:
    """The checkers of earlier steps that step idx must not undo (ours, beyond the reference): those
    of each earlier step j whose object (its first argument) no step after j has moved again, and
    that hold now (a mug set down overlapping the orange put aside for it would break that step's
    checker, and every replan would start again by moving the orange). A step that moves the same
    object again (the strawberry into the skillet, then into the bowl) releases it."""
    state = model.state()
    out = []
    for j in range(idx):
        if j not in step_checkers or not skeleton[j].args:
            continue
        moved = skeleton[j].args[0]
        if any(skeleton[k].args[:1] == (moved,) for k in range(j + 1, idx + 1)):
            continue
        out += [(name, chk) for name, chk in step_checkers[j] if _holds(chk, state)]
    return out


def _holds(check: Checker, state: WorldState) -> bool:
    try:
        return bool(check(state))
    except Exception:  # a checker that cannot be evaluated does not bind later steps
        return False


def _culprit(
    steps: Sequence[GroundedStep], op: GroundOp, blamed: collections.Counter[str]
) -> int | None:
    """Index of the earlier step to draw again for op's failure, else None: the latest that put down
    an object blamed (most often) for it; failing that, when a third object is blamed, the latest
    that put down op's target (the mug set down so close to the mustard bottle that no fork fits in
    beside it: set the mug down elsewhere). Picks move nothing to a new place; op's own arguments
    are not blamed on others."""
    top = [n for n, _ in blamed.most_common(2) if n not in op.args]
    for j in range(len(steps) - 1, -1, -1):
        st = steps[j]
        if st.op.name != "pick" and st.op.args and st.op.args[0] in top:
            return j
    if not top:
        return None
    for j in range(len(steps) - 1, -1, -1):
        st = steps[j]
        if st.op.name != "pick" and st.op.args and st.op.args[0] in op.args[1:]:
            return j
    return None


def _sample_step(
    model,
    op,
    skill,
    checks,
    hint,
    rng,
    share,
    cancelled,
    snap,
    grasp_filter=None,
    watch=None,
    regrasp_after: int | None = None,
    step: StepContext | None = None,
):
    """Draw and simulate up to `share` samples of `op`: (GroundedStep | None, failure reasons, objects
    blamed, samples used, hopeless). With `regrasp_after`, it stops early once that many failures were
    the grasp's (`Outcome.regrasp`), so that the caller regrasps. `step`: the context handed to
    the skill's hooks."""
    reasons: collections.Counter[str] = collections.Counter()
    blamed: collections.Counter[str] = collections.Counter()
    grasp_bound = 0
    for k in range(1, share + 1):
        if cancelled():
            reasons["cancelled"] += 1
            return None, reasons, blamed, k - 1, False
        if watch is not None:
            watch.samples += 1
        params = _guided(skill.sample(model, op.args, rng, step=step), hint, rng)
        if hasattr(skill, "orient"):  # it can choose an orientation the step's checkers accept
            params = skill.orient(model, op.args, params, rng, step=step)
        res = skill.simulate(model, op.args, params, step=step)
        if res.ok and grasp_filter is not None:
            unfit = grasp_filter(model, step)
            if unfit:
                res = type(res).fail(unfit, op.args[0])
        if res.ok:
            state = model.state()
            failed = [name for name, chk in checks if not chk(state)]
            edge = [] if failed or op.name == "pick" else _on_edge(state, op.args[0], checks)
            if not failed and not edge:
                return (
                    GroundedStep(op, params, res.commands, res.expected, k, checks),
                    reasons,
                    blamed,
                    k,
                    False,
                )
            if edge:
                reasons[
                    f"{op.args[0]} within {NUDGE * 1000:.0f} mm of the edge of {', '.join(edge)}"
                ] += 1
            else:
                reasons[f"constraint {', '.join(failed)} not satisfied"] += 1
        else:
            reasons[res.reason] += 1
            blamed.update(res.offending)
            if res.hopeless:  # no other draw can do better: the step fails at once
                model.restore(snap)
                return None, reasons, blamed, k, True
            grasp_bound += res.regrasp
            if regrasp_after is not None and grasp_bound >= regrasp_after:
                model.restore(snap)
                return None, reasons, blamed, k, False
        model.restore(snap)
    return None, reasons, blamed, share, False


def _on_edge(state: WorldState, moved: str, checks: Sequence[tuple[str, Checker]]) -> list[str]:
    """The checkers (names) that stop holding when `moved` is nudged NUDGE metres along x or y: a
    result on the very edge of a constraint that the arm's few millimetres will break (a can set
    down 0.6 mm inside 'off the mat' may come to rest 1.2 mm further, and the monitor fail it)."""
    if moved not in state.objects:
        return []
    pose = state.get(moved).pose
    nudged = [
        state.with_pose(moved, replace(pose, x=pose.x + dx, y=pose.y + dy))
        for dx, dy in ((NUDGE, 0.0), (-NUDGE, 0.0), (0.0, NUDGE), (0.0, -NUDGE))
    ]
    # one checker at a time over the four nudged states, each checker's four in one batch
    return [name for name, chk in checks if not all(judge([(name, chk)], nudged))]


def _around(model: PlanningModel, op: GroundOp) -> dict[str, list[str]]:
    """For each argument of op: the movable objects resting on it or inside it (planning model)."""
    state = model.state()
    out = {}
    for arg in op.args:
        lo, hi = state.get(arg).aabb()
        near = []
        for name, o in state.objects.items():
            if name in op.args or o.fixed or name == model.held:
                continue
            olo, _ = o.aabb()
            x, y, _ = o.pose.position
            if (
                lo[0] <= x <= hi[0]
                and lo[1] <= y <= hi[1]
                and lo[2] - 0.01 <= olo[2] <= hi[2] + 0.02
            ):
                near.append(name)
        out[arg] = sorted(near)
    return out
