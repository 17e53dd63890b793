"""A behaviour whose work runs in a thread, so `update` never blocks the tick (py_trees practice).

Subclasses implement `work()` (runs off the tick thread, may check `self.cancelled`) and
`finish(result)` (on the tick thread, writes the blackboard, returns SUCCESS or FAILURE). An
exception in `work()` becomes a typed failure via `fail(failure)`.
"""

from __future__ import annotations

import abc
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import py_trees

from owl_bt.errors import GroundingError, OwlError, UnknownObjectError
from owl_bt.failures import Failure
from trees.blackboard import client
from trees.services import Services

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="owl-worker")


class WorkerBehaviour(py_trees.behaviour.Behaviour, abc.ABC):
    """Subclasses set `stage` and the blackboard keys they write and read."""

    stage = "work"
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()

    def __init__(self, name: str) -> None:
        super().__init__(name=name)
        self.bb = client(name, write=(f"{self.stage}_failure", *self.writes), read=self.reads)
        self.services: Services | None = None
        self._future: Future | None = None
        self._cancel = threading.Event()

    def setup(self, **kwargs: Any) -> None:
        self.services = kwargs["services"]

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def initialise(self) -> None:
        self.bb.set(f"{self.stage}_failure", None)
        self.feedback_message = ""  # not the last attempt's news
        self._cancel.clear()
        self.before()
        self._future = _POOL.submit(self.work)

    def update(self) -> py_trees.common.Status:
        if self._future is None or not self._future.done():
            return py_trees.common.Status.RUNNING
        try:
            result = self._future.result()
        except OwlError as exc:
            # What the instruction itself gets wrong (an absent object, words not understood) does
            # not change by trying again: the replan subtree gives up at once on these.
            retry = not isinstance(exc, GroundingError | UnknownObjectError)
            return self.fail(Failure(self.stage, exc.reason, observed={"retryable": retry}))
        except Exception as exc:  # a bug or library error: typed, logged, never a traceback on screen
            return self.fail(Failure(self.stage, f"{type(exc).__name__}: {exc}"))
        return self.finish(result)

    def terminate(self, new_status: py_trees.common.Status) -> None:
        if new_status == py_trees.common.Status.INVALID and self._future is not None:
            self._cancel.set()

    def before(self) -> None:
        """Hook on the tick thread before the work starts (read the blackboard here)."""

    @abc.abstractmethod
    def work(self) -> Any:
        """The long-running part, off the tick thread."""

    @abc.abstractmethod
    def finish(self, result: Any) -> py_trees.common.Status:
        """Write results to the blackboard; SUCCESS or FAILURE."""

    def fail(self, failure: Failure) -> py_trees.common.Status:
        """Record a failure for the replan subtree; returns FAILURE."""
        self.bb.set(f"{self.stage}_failure", failure)
        self.feedback_message = failure.line()
        self.services.log("failure", **failure.to_dict())
        return py_trees.common.Status.FAILURE
