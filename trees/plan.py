"""The plan subtree: compile the sketch, get a skeleton from Fast Downward, refine it by
search-then-sample in a planning model built from the perceived world, and backtrack over up to
five skeletons with failure-driven edits (`owl_bt.tamp.search`)."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import py_trees

from owl_bt.failures import Evidence, Failure, Stage
from owl_bt.language.checker_names import name_checkers
from owl_bt.language.planning import planner_for
from owl_bt.plain_text import plain_line
from owl_bt.tamp import pddl
from owl_bt.tamp.motion import densify, plan_motion
from owl_bt.tamp.refine import PlanWatch, Refinement
from owl_bt.tamp.sanity import insane, placements_from
from owl_bt.tamp.search import SketchItem, arranged_by, plan
from owl_bt.tamp.sparing import spared, unrequested
from skills.base import Move
from trees.recover import caught_on_hand, hanging
from trees.worker import WorkerBehaviour

SPARED_SHARE = 0.3  # of the planning time, for the sketch without its unrequested moves
# of each step's sample budget there: a thing the sketch moves aside that does block a placement is
# only found (and moved by a failure-driven edit) once that step has spent its budget, so a full
# budget there costs hundreds of samples the sketch as written never needs
SPARED_BUDGET_SHARE = 0.1
RAISED_LIMIT = 200  # characters of each checker error quoted in a planning failure
HAND_GAP = 0.005  # m: a thing this close to the hand at a plan's end may be left by its motion home
PROGRESS_FIRST_S, PROGRESS_EVERY_S = (
    10.0,
    30.0,
)  # a long planning round's progress lines: the first after 10 s, then every 30 s


@dataclass
class Plan:
    task_plan: pddl.TaskPlan | None  # None: the goal already holds, nothing to do
    refinement: Refinement
    edits: tuple[str, ...] = ()

    def actions(self) -> list[str]:
        return [str(s.op) for s in self.refinement.steps]


class PlanBehaviour(WorkerBehaviour):
    stage = Stage.PLAN
    writes = ("plan", "plan_attempt")  # the attempt that found it (a later one may find none)
    reads = ("world", "constraints", "executed", "attempt")

    def before(self) -> None:
        self._world, self._constraints = self.bb.world, self.bb.constraints
        self._executed = list(self.bb.get("executed")) if self.bb.exists("executed") else []
        self._skipped = 0
        self._watch, self._started, self._told = PlanWatch(), time.monotonic(), 0

    def progress(self) -> None:
        """After PROGRESS_FIRST_S of a long planning round and every PROGRESS_EVERY_S after, say where it is
        (the progress line shows the feedback), so a long round shows signs of life."""
        elapsed = time.monotonic() - self._started
        if elapsed < PROGRESS_FIRST_S + self._told * PROGRESS_EVERY_S:
            return
        self._told = int((elapsed - PROGRESS_FIRST_S) // PROGRESS_EVERY_S) + 1
        w = self._watch
        at = f", sampling {w.step}" if w.step else ""
        self.feedback_message = (
            f"{elapsed:.0f} s (of at most {self.services.plan_time:g}): skeleton {w.skeleton} of at "
            f"most {self.services.max_skeletons}, "
            f"{_count(w.samples, 'continuous sample')} drawn{at}"
        )

    def work(self):
        s = self.services
        c = self._constraints
        held_now = self._world.robot.held if self._world.robot else None
        holds = list(c.action_checkers().values())  # the states the sketch asks for on the way
        caught = caught_on_hand(self._world)
        if caught:  # not at rest: no goal holds, and no skill takes a thing off the fingers
            return Failure(
                Stage.PLAN,
                hanging(caught, "now", held_now),
                "",
                caught,
                Evidence(caught=list(caught), retryable=False),
            )
        if (
            held_now is None
            and insane(self._world, placements_from(self._executed)) is None
            and all(c.checkers.evaluate(n, self._world) for n in c.goal_checkers())
            and (
                _sketch_carried_out([str(a.op) for a in c.sketch.actions], self._executed)
                or all(c.checkers.evaluate(n, self._world) for n in holds)
            )
        ):
            # Already done (a replan after the last step succeeded, or a goal that held from the start):
            # nothing to redo. Not when the sketch asks for a state that does not hold now and was never
            # carried out: "put it on the region, then put it back" holds at the start, yet moving
            # nothing is no success (the goal is Executed(n) too)
            return Plan(None, Refinement())
        by_index = c.action_checkers()
        sketch = [
            SketchItem(
                a.op, [(by_index[i], c.checkers.as_callable(by_index[i]))] if i in by_index else []
            )
            for i, a in enumerate(c.sketch.actions)
        ]
        goal = [(n, c.checkers.as_callable(n)) for n in c.goal_checkers()]
        skip = done_prefix(sketch, self._world, s.skills)
        kept = frozenset().union(*(arranged_by(self._world, it.op) for it in sketch[:skip]))
        if skip:
            s.log(
                "skip_done",
                actions=[str(it.op) for it in sketch[:skip]],
                reason="their constraints already hold in the observed state",
            )
            sketch = sketch[skip:]
        self._skipped = skip
        errors_before = len(c.checkers.errors)
        deadline = time.monotonic() + s.plan_time
        out_of_time = lambda: time.monotonic() > deadline  # noqa: E731
        run = planner_for(c, plan, s)

        def attempt(items, until=None, budget=None):
            stop = until or deadline
            return run(
                self._world,
                s.skills,
                items,
                goal,
                s.rng,
                budget or s.budget,
                s.max_skeletons,
                lambda: self.cancelled() or time.monotonic() > stop,
                finish=go_home,
                kept=kept,
                watch=self._watch,
            )

        table = "table" if "table" in self._world.objects else ""
        goal_sources = [c.checkers.sources.get(n, "") for n in c.goal_checkers()]
        movers = (
            unrequested(sketch, c.sketch.goal_objects, goal_sources, table, self._world)
            if table and not getattr(c, "fixed", None)  # (a fixed plan is carried out as written)
            else []
        )
        notes: list[str] = []
        # the sketch without them gets a share of the planning time; the sketch as written the rest
        spare_until = time.monotonic() + SPARED_SHARE * s.plan_time
        spare_budget = max(1, round(SPARED_BUDGET_SHARE * s.budget))
        result = attempt(spared(sketch, movers), spare_until, spare_budget) if movers else None
        if result is not None:
            s.counters["skeletons"] += result.skeletons
            s.counters["samples"] += result.samples
            if result.failure is None:
                # what a failure-driven edit moved after all is explained by that edit's own note
                moved = {st.op.args[0] for st in result.refinement.steps if st.op.args}
                kept_in_place = [m for m in movers if m not in moved]
                if kept_in_place:
                    notes.append(
                        f"left {', '.join(kept_in_place)} in place: the goal does not name it and a "
                        "plan without moving it was found"
                    )
            elif not self.cancelled() and not out_of_time():  # (its share spent, or no plan)
                notes.append(
                    f"moved {', '.join(movers)} as the sketch says: no plan without moving it was found "
                    f"({plain_line(result.failure.reason, RAISED_LIMIT)})"
                )
                result = None
        if result is None:
            result = attempt(sketch)
            s.counters["skeletons"] += result.skeletons
            s.counters["samples"] += result.samples
        for note in notes:
            s.log("unrequested_moves", note=note)
        result.edits = [*notes, *result.edits]
        for note in result.edits:
            s.log("skeleton_edit", edit=note)
        if result.failure is not None and out_of_time() and not self.cancelled():
            # another round would take as long: the run ends here rather than replan for an hour
            return Failure(
                Stage.PLAN,
                f"planning stopped at its time limit ({s.plan_time:g} s, --plan-time) after "
                f"{_count(result.samples, 'continuous sample')} over {_count(result.skeletons, 'skeleton')}, "
                f"still at {result.failure.action or 'the start'} (a larger --plan-time lets it search longer)",
                "",
                result.failure.offending_objects,  # no action failed: the search stopped (no "pick(x) failed")
                Evidence(retryable=False, timeout_s=s.plan_time, samples=result.samples),
            )
        if (
            result.failure is not None
        ):  # each checker it names says what it tests ('action_check1 (put the apple …)')
            why = name_checkers(result.failure.reason, c.checkers.sources, c.sketch)
            return dataclasses.replace(
                result.failure, reason=why + _raised(c.checkers.errors[errors_before:])
            )
        return Plan(result.task_plan, result.refinement, tuple(result.edits))

    def finish(self, result) -> py_trees.common.Status:
        if isinstance(result, Failure):
            return self.fail(result)
        self.bb.plan = result
        self.bb.plan_attempt = self.bb.get("attempt") if self.bb.exists("attempt") else 1
        tp = result.task_plan
        self.services.log(
            "planned",
            plan=result.actions(),
            samples=result.refinement.samples,
            params=[{k: repr(v) for k, v in st.params.items()} for st in result.refinement.steps],
            domain=tp.domain_pddl if tp else None,
            problem=tp.problem_pddl if tp else None,
        )
        self.feedback_message = (
            (
                f"{_count(len(result.actions()), 'step')}, "
                f"{_count(result.refinement.samples, 'continuous sample')} drawn"
            )
            + (
                f", {_count(len(result.edits), 'skeleton edit')} ({_edits(result.edits)})"
                if result.edits
                else ""
            )
            + (f", {_count(self._skipped, 'sketch action')} already done" if self._skipped else "")
        )
        return py_trees.common.Status.SUCCESS


def _raised(errors: list[str]) -> str:
    """'; checkers that raised (counted as not satisfied): …' for the failure line, at most two distinct
    errors, or '' (a checker failing with a NameError is named, not shown as 'not satisfied')."""
    distinct = list(
        dict.fromkeys(plain_line(e, RAISED_LIMIT) for e in errors)
    )  # generated code's text: made safe
    if not distinct:
        return ""
    more = f"; and {len(distinct) - 2} more" if len(distinct) > 2 else ""
    return f"; checkers that raised (counted as not satisfied): {'; '.join(distinct[:2])}{more}"


def _edits(edits) -> str:
    """The skeleton edits for the progress line: what was added to the sketch and why (an object the
    goal never named may be moved); at most two, then how many more."""
    shown = "; ".join(str(e) for e in edits[:2])
    return shown + (f"; and {len(edits) - 2} more" if len(edits) > 2 else "")


def _sketch_carried_out(sketch: list[str], executed: list[str]) -> bool:
    """Do the executed steps (all attempts so far, in order) contain the sketch's actions as an ordered
    subsequence? True for an empty sketch."""
    steps = iter(executed)
    return all(any(step == action for step in steps) for action in sketch)


def _count(n: int, noun: str) -> str:
    """'1 step', '2 steps'."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def done_prefix(sketch: list[SketchItem], world, skills) -> int:
    """How many leading sketch actions the observed state shows done (a replan keeps what is done):
    the longest prefix ending with an action after which the hand is empty, whose checked actions'
    constraints all hold now (every one of them, in order: one that no longer holds — an object
    knocked off — ends the prefix before it). When the hand holds an object, the prefix must end
    just before that object's pick (which the planner then skips). 0 when nothing is shown done, or
    when it would leave nothing to do."""
    from trees.execute import held_after

    held = world.robot.held if world.robot else None
    done = 0
    for i, item in enumerate(sketch):
        if item.checks:
            if not all(check(world) for _, check in item.checks) and not _superseded(
                sketch, i, world, skills
            ):
                break
            skill = skills.get(item.op.name)
            if skill is not None and held_after(skill.schema, item.op.args) is None:
                done = i + 1
    if held is not None:
        pick = next(
            (
                i
                for i, it in enumerate(sketch)
                if it.op.name == "pick" and it.op.args[:1] == (held,)
            ),
            None,
        )
        if pick is None or pick < done:
            return 0
        return done if done == pick else 0
    return done if done < len(sketch) else 0


def _superseded(sketch: list[SketchItem], i: int, world, skills) -> bool:
    """Is sketch action i, whose checkers no longer hold, done all the same? Its checkers judge the
    moment right after it (the soup can tipped over the bowl), which the next action on the same
    object undoes (the can set down off the mat). It is taken as done when that next action has
    checkers, they hold now, and i's skill sees its lasting effect in `world` (`effect_seen(world,
    args)`: a pour's poured object holds nothing any more). Without this, a replan after the apple
    was knocked poured the empty can over the bowl again."""
    item = sketch[i]
    seen = getattr(skills.get(item.op.name), "effect_seen", None)
    if seen is None or not item.op.args or not seen(world, item.op.args):
        return False
    nxt = next(
        (
            it
            for it in sketch[i + 1 :]
            if it.op.name != "pick" and it.op.args[:1] == item.op.args[:1]
        ),
        None,
    )
    return nxt is not None and bool(nxt.checks) and all(check(world) for _, check in nxt.checks)


def go_home(model, refinement: Refinement) -> None:
    """End a plan with a collision-free motion back to the home pose (hand empty), so the arm is
    clear of the scene when it is judged and when the next goal comes. When the hand ends touching
    something it put down (a thing stood on end tipped against the open fingers), the motion may
    leave it: the hand does not carry it, and the end state is judged after."""
    if model.held is None and refinement.steps:
        q = model.robot.arm_q()
        home = plan_motion(model, q, model.robot.home)
        if home is None:
            home = plan_motion(model, q, model.robot.home, ignore=model.near_robot(HAND_GAP))
        if home is not None:
            refinement.steps[-1].commands = [
                *refinement.steps[-1].commands,
                Move(tuple(densify(home))),
            ]


def create_plan_subtree() -> py_trees.behaviour.Behaviour:
    return PlanBehaviour("plan")
