"""The generate-constraints subtree: ground operators → VLM → plan sketch and checkers.

On a replan, a model that will not answer (a grounding error, e.g. "the goal already holds") is
checked against the previous attempt's constraints: when their goal checkers hold on the observed
state with the hand empty, those constraints are kept (the plan stage then finds nothing to do).
An object the previous attempt's constraints named that perception now reports gone (its place
seen empty) ends the run: the goal cannot be met without it (GroundingError: not retried)."""

from __future__ import annotations

import re

import py_trees

from owl_bt.errors import GroundingError, OwlError
from owl_bt.failures import Stage
from owl_bt.language.checker_names import count_line
from owl_bt.language.constraints import generate
from owl_bt.tamp.grounding import ground
from trees.worker import WorkerBehaviour


class GenerateConstraints(WorkerBehaviour):
    stage = Stage.CONSTRAINTS
    writes = (
        "constraints",
        "constraints_attempt",  # the attempt that wrote them (a later one may make none)
        "init_world",  # the run's first observed world: checkers' `init_state` across replans
    )
    reads = ("world", "scene_image", "instruction", "history", "missing", "attempt")

    def before(self) -> None:
        self._world, self._image, self._instruction = (
            self.bb.world,
            self.bb.scene_image,
            self.bb.instruction,
        )
        self._history = list(self.bb.history) if self.bb.exists("history") else None
        self._previous = self.bb.get("constraints") if self.bb.exists("constraints") else None
        self._missing = dict(self.bb.get("missing") or {}) if self.bb.exists("missing") else {}
        self._reused = False
        if not self.bb.exists("init_world"):
            self.bb.init_world = self._world
        self._init_world = self.bb.init_world
        self._exchange = None  # a failed stage's model exchange (constraints.Exchange)

    def work(self):
        gone = needed_but_gone(self._previous, self._missing)
        if gone:
            # the goal as first understood needs it: grounding the words again without it would quietly
            # ask for less ("the citrus fruits" read as the orange alone once the lemon was knocked off)
            raise MissingObjectError(gone, self._missing)
        schemas = [s.schema for s in self.services.skills.values()]
        held = self._world.robot.held if self._world.robot else None
        grounding = ground(self._world, schemas, held=held)
        try:
            return generate(
                self.services.vlm,
                self._world,
                self._instruction,
                schemas,
                grounding.ops,
                [self._image],
                literals=grounding.initial,
                history=self._history,
                init_world=self._init_world,
            )
        except OwlError as exc:
            self._exchange = getattr(exc, "exchange", None)
            if not isinstance(exc, GroundingError):
                raise
            previous = self._previous
            if (
                previous is None
                or held is not None
                or not previous.goal_checkers()
                or not all(
                    previous.checkers.evaluate(n, self._world) for n in previous.goal_checkers()
                )
            ):
                raise
            self.services.log(
                "constraints_kept",
                reason=exc.reason,
                why="the previous attempt's goal checkers hold on the observed state",
            )
            self._reused = True
            return previous

    def finish(self, constraints) -> py_trees.common.Status:
        self.bb.constraints = constraints
        self.bb.constraints_attempt = self.bb.get("attempt") if self.bb.exists("attempt") else 1
        if self._reused:
            self.feedback_message = "the goal holds (the previous attempt's checkers)"
            return py_trees.common.Status.SUCCESS
        self._record(constraints)
        constraints.checkers.on_error = lambda line: self.services.log("checker_error", error=line)
        self.services.log(
            "constraints", sketch=constraints.sketch.text(), checkers=constraints.checkers.sources
        )
        n = len(
            constraints.sketch.actions
        )  # the sketch's lines are these and its goal line (achieve_goal)
        self.feedback_message = f"{n} sketch action{'' if n == 1 else 's'} and a goal, {count_line(constraints.checkers.sources)}"
        return py_trees.common.Status.SUCCESS

    def _record(self, exchange) -> None:
        """Enter a stage's model exchange (Constraints or constraints.Exchange) in the run: the
        transcript (rejected answers too), model time, queries and one `vlm_call` event a call."""
        self.services.transcripts.append(exchange.transcript)
        c = self.services.counters
        c["model_s"] += exchange.model_s
        c["queries"] += exchange.queries
        for call in exchange.calls:
            self.services.log("vlm_call", **call.to_dict())

    def fail(self, failure):
        if self._exchange is not None and not self._reused:
            self._record(self._exchange)
            self._exchange = None
        return super().fail(failure)


class MissingObjectError(GroundingError):
    """Objects the previous attempt's constraints named are gone from the scene (not retried)."""

    def __init__(self, names: list[str], why: dict[str, str]) -> None:
        said = "; ".join(f"{n}: {why[n]}" if why.get(n) else n for n in names)
        super().__init__(
            f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} no longer in the scene, and the "
            f"goal needs {'it' if len(names) == 1 else 'them'} (knocked off the table?) — {said}"
        )


def needed_but_gone(previous, missing: dict[str, str]) -> list[str]:
    """Names in `missing` (perception's objects gone from the scene) that the previous attempt's
    constraints (`previous`: its plan sketch and checker sources) name; [] on a first attempt."""
    if previous is None or not missing:
        return []
    text = previous.sketch.text() + "\n" + "\n".join(previous.checkers.sources.values())
    return [
        n for n in missing if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", text)
    ]


def create_generate_constraints_subtree() -> py_trees.behaviour.Behaviour:
    return GenerateConstraints("generate-constraints")
