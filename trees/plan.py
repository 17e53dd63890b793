"""The plan subtree: compile the sketch, get a skeleton from Fast Downward, refine it by
search-then-sample in a planning model built from the perceived world (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass

import py_trees

from owl_bt.failures import Failure
from owl_bt.tamp import pddl
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.refine import Refinement, refine
from trees.worker import WorkerBehaviour


@dataclass
class Plan:
    task_plan: pddl.TaskPlan | None  # None: the goal already holds, nothing to do
    refinement: Refinement

    def actions(self) -> list[str]:
        return [str(s.op) for s in self.refinement.steps]


class PlanBehaviour(WorkerBehaviour):
    stage = "plan"
    writes = ("plan",)
    reads = ("world", "constraints")

    def before(self) -> None:
        self._world, self._constraints = self.bb.world, self.bb.constraints

    def work(self):
        s = self.services
        c = self._constraints
        held_now = self._world.robot.held if self._world.robot else None
        if held_now is None and all(c.checkers.evaluate(n, self._world) for n in c.goal_checkers()):
            # Already done (e.g. a replan after the last step succeeded): nothing to redo.
            return Plan(None, Refinement())
        schemas = [k.schema for k in s.skills.values()]
        held = self._world.robot.held if self._world.robot else None
        try:
            task_plan = pddl.solve(self._world, schemas, [a.op for a in c.sketch.actions], held=held)
        except pddl.NoTaskPlan as exc:
            return Failure("plan", str(exc))
        s.counters["skeletons"] += 1
        step_checkers = {}
        for i, name in c.action_checkers().items():
            step_checkers.setdefault(task_plan.sketch_steps[i], []).append((name, c.checkers.as_callable(name)))
        goal = [(n, c.checkers.as_callable(n)) for n in c.goal_checkers()]
        model = PlanningModel(self._world)
        try:
            result = refine(model, task_plan.steps, s.skills, step_checkers, goal, s.rng, s.budget, self.cancelled)
        finally:
            model.close()
        s.counters["samples"] += result.samples
        if result.failure is not None:
            return result.failure
        return Plan(task_plan, result)

    def finish(self, result) -> py_trees.common.Status:
        if isinstance(result, Failure):
            return self.fail(result)
        self.bb.plan = result
        tp = result.task_plan
        self.services.log("planned", plan=result.actions(), samples=result.refinement.samples,
                          domain=tp.domain_pddl if tp else None, problem=tp.problem_pddl if tp else None)
        self.feedback_message = f"{len(result.actions())} steps, {result.refinement.samples} samples"
        return py_trees.common.Status.SUCCESS


def create_plan_subtree() -> py_trees.behaviour.Behaviour:
    return PlanBehaviour("plan")
