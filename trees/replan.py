"""The replan subtree: turn the failure into one factual line appended to the instruction and go
round again, at most `max_attempts` attempts in all (SPEC §6)."""

from __future__ import annotations

import py_trees

from trees.blackboard import STAGES, client


class Replan(py_trees.behaviour.Behaviour):
    """On activation: read the stage failure, write /owl/failure, bump /owl/attempt and augment
    /owl/instruction. RUNNING lets the selector start a new attempt; FAILURE when out of attempts."""

    def __init__(self, name: str = "replan", max_attempts: int = 4) -> None:
        super().__init__(name=name)
        self.max_attempts = max_attempts
        self.bb = client(name, write=("instruction", "attempt", "failure", "history"),
                         read=tuple(f"{s}_failure" for s in STAGES))
        self.log = lambda event, **kw: None

    def setup(self, **kwargs) -> None:
        self.log = kwargs["services"].log

    def initialise(self) -> None:
        # Every stage clears its failure when it starts, so the first stage (in pipeline order) that
        # holds one is the stage that failed in this attempt; later ones may be left from before.
        failure = None
        for stage in STAGES:
            if self.bb.exists(f"{stage}_failure") and self.bb.get(f"{stage}_failure") is not None:
                failure = self.bb.get(f"{stage}_failure")
                break
        self.bb.failure = failure
        line = f"attempt {self.bb.attempt}: " + (failure.line() if failure else "failed for an unknown reason")
        self.bb.history = list(self.bb.history) + [line]
        self._give_up = self.bb.attempt >= self.max_attempts or (failure is not None and
                                                                failure.observed.get("retryable") is False)
        if not self._give_up:
            self.bb.attempt = self.bb.attempt + 1
            self.bb.instruction = self.bb.instruction + "\n" + line
        self.feedback_message = line
        self.log("replan", line=line, give_up=self._give_up)

    def update(self) -> py_trees.common.Status:
        return py_trees.common.Status.FAILURE if self._give_up else py_trees.common.Status.RUNNING


def create_replan_subtree(max_attempts: int = 4) -> py_trees.behaviour.Behaviour:
    return Replan("replan", max_attempts)
