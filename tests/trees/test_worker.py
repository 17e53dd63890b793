"""The tick loop sleeps out its period unless a worker's work returns: then it wakes at once
(`trees.worker.wait_finished`), so a stage's result is acted on without waiting for the next tick."""

from __future__ import annotations

import threading

import py_trees

from trees import worker


class _Gate(worker.WorkerBehaviour):
    """A work that returns when its gate opens."""

    stage = "gate"

    def __init__(self) -> None:
        super().__init__("gate")
        self.gate = threading.Event()

    def work(self) -> str:
        self.gate.wait(10.0)
        return "done"

    def finish(self, result) -> py_trees.common.Status:
        return (
            py_trees.common.Status.SUCCESS if result == "done" else py_trees.common.Status.FAILURE
        )


def test_the_wait_ends_when_a_work_returns_and_not_before():
    worker.drain()
    worker.wait_finished(0.0)  # (news of earlier works already taken)
    b = _Gate()
    b.initialise()
    assert worker.wait_finished(0.05) is False  # still working: the wait runs its time out
    b.gate.set()
    assert worker.wait_finished(10.0) is True  # woken by the return (long before 10 s)
    assert b.update() == py_trees.common.Status.SUCCESS
    assert worker.wait_finished(0.0) is False  # the news is taken once
