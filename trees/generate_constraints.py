"""The generate-constraints subtree: ground operators → VLM → plan sketch and checkers (SPEC §3–4)."""

from __future__ import annotations

import py_trees

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

    def work(self):
        schemas = [s.schema for s in self.services.skills.values()]
        held = self._world.robot.held if self._world.robot else None
        grounding = ground(self._world, schemas, held=held)
        return generate(self.services.vlm, self._world, self._instruction, schemas, grounding.ops, [self._image],
                        literals=grounding.initial, history=self._history)

    def finish(self, constraints) -> py_trees.common.Status:
        self.bb.constraints = constraints
        self.services.transcripts.append(constraints.transcript)
        c = self.services.counters
        c["model_s"] += constraints.model_s
        c["queries"] += constraints.queries
        for call in constraints.calls:
            self.services.log("vlm_call", **call.to_dict())
        constraints.checkers.on_error = lambda line: self.services.log("checker_error", error=line)
        self.services.log("constraints", sketch=constraints.sketch.text(), checkers=constraints.checkers.sources)
        self.feedback_message = f"{len(constraints.sketch.actions)} sketch actions, {len(constraints.checkers.names())} checkers"
        return py_trees.common.Status.SUCCESS


def create_generate_constraints_subtree() -> py_trees.behaviour.Behaviour:
    return GenerateConstraints("generate-constraints")
