"""The generate-constraints subtree: ground operators → VLM → plan sketch and checkers (SPEC §3–4).

On a replan, a model that will not answer (a grounding error, e.g. "the goal already holds") is
checked against the previous attempt's constraints: when their goal checkers hold on the observed
state with the hand empty, those constraints are kept (the plan stage then finds nothing to do)."""

from __future__ import annotations

import py_trees

from owl_bt.errors import GroundingError
from owl_bt.language.checker_names import count_line
from owl_bt.language.constraints import generate
from owl_bt.tamp.grounding import ground
from trees.worker import WorkerBehaviour


class GenerateConstraints(WorkerBehaviour):
    stage = "constraints"
    writes = ("constraints",)
    reads = ("world", "scene_image", "instruction", "history")

    def before(self) -> None:
        self._world, self._image, self._instruction = self.bb.world, self.bb.scene_image, self.bb.instruction
        self._history = list(self.bb.history) if self.bb.exists("history") else None
        self._previous = self.bb.get("constraints") if self.bb.exists("constraints") else None
        self._reused = False

    def work(self):
        schemas = [s.schema for s in self.services.skills.values()]
        held = self._world.robot.held if self._world.robot else None
        grounding = ground(self._world, schemas, held=held)
        try:
            return generate(self.services.vlm, self._world, self._instruction, schemas, grounding.ops, [self._image],
                            literals=grounding.initial, history=self._history)
        except GroundingError as exc:
            previous = self._previous
            if previous is None or held is not None or not previous.goal_checkers() or not all(
                    previous.checkers.evaluate(n, self._world) for n in previous.goal_checkers()):
                raise
            self.services.log("constraints_kept", reason=exc.reason,
                              why="the previous attempt's goal checkers hold on the observed state")
            self._reused = True
            return previous

    def finish(self, constraints) -> py_trees.common.Status:
        self.bb.constraints = constraints
        if self._reused:
            self.feedback_message = "the goal holds (the previous attempt's checkers)"
            return py_trees.common.Status.SUCCESS
        self.services.transcripts.append(constraints.transcript)
        c = self.services.counters
        c["model_s"] += constraints.model_s
        c["queries"] += constraints.queries
        for call in constraints.calls:
            self.services.log("vlm_call", **call.to_dict())
        constraints.checkers.on_error = lambda line: self.services.log("checker_error", error=line)
        self.services.log("constraints", sketch=constraints.sketch.text(), checkers=constraints.checkers.sources)
        self.feedback_message = f"{len(constraints.sketch.actions)} sketch actions, {count_line(constraints.checkers.names())}"
        return py_trees.common.Status.SUCCESS


def create_generate_constraints_subtree() -> py_trees.behaviour.Behaviour:
    return GenerateConstraints("generate-constraints")
