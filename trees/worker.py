"""Behaviours whose work runs in a worker thread, so `update` never blocks the tick (py_trees practice).

The life cycle follows py_trees 2.6: `__init__` configures (name, blackboard client with declared
keys), `setup(**kwargs)` connects (the `services`: arm backend, perception, VLM — sim or hardware),
`initialise` starts the work, `update` only polls it, `terminate` cancels it.

Subclasses implement `work()` (runs off the tick thread, may poll `self.cancelled()`) and
`finish(result)` (on the tick thread, writes the blackboard, returns SUCCESS or FAILURE); `before()`
reads the blackboard on the tick thread just before the work starts, `progress()` may publish
progress on every tick while it runs. An exception in `work()` becomes a typed failure.

One worker thread serves the whole tree: the simulator (pybullet) and the arm take one command
stream at a time. A behaviour pre-empted while its work runs gets that work cancelled; when it is
started again before the cancelled work has returned, its new work waits (RUNNING) until then.
"""

from __future__ import annotations

import abc
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import py_trees

from owl_bt.errors import GroundingError, OwlError, UnknownObjectError
from owl_bt.failures import Evidence, Failure, Stage
from trees.blackboard import client
from trees.services import Services

_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="owl-worker")
TRACEBACK_KEPT = 4000  # characters of an unexpected error's traceback kept in its failure record (its last frames)
_LOCAL = threading.local()  # the cancel token of the work running on this worker thread
_BUSY = [0]  # works submitted and not yet returned (for the tick-rate measurement)
_BUSY_LOCK = threading.Lock()
_FINISHED = (
    threading.Event()
)  # set when a work returns: the tick loop need not sleep out its period


def wait_finished(timeout: float) -> bool:
    """Sleep up to `timeout` seconds, or until a worker's work returns (True then), so that the tree
    ticks at once on news instead of at the next period: stage to stage, an episode waited half a
    period (25 ms) each time for nothing."""
    fired = _FINISHED.wait(max(0.0, timeout))
    _FINISHED.clear()
    return fired


def busy() -> bool:
    """Is a worker running (or about to run) some behaviour's work?"""
    return _BUSY[0] > 0


def drain(timeout: float = 10.0) -> bool:
    """Wait until no work is running (after a stop: cancelled work returns within a motion step or a
    planning round); True when idle."""
    end = time.monotonic() + timeout
    while busy() and time.monotonic() < end:
        time.sleep(0.01)
    return not busy()


class OwlBehaviour(py_trees.behaviour.Behaviour):
    """A behaviour stopped to INVALID (not run in the current round) forgets its feedback, so a tree
    display never shows an earlier attempt's text on a node that did not run again."""

    def stop(self, new_status: py_trees.common.Status = py_trees.common.Status.INVALID) -> None:
        super().stop(new_status)
        if new_status == py_trees.common.Status.INVALID:
            self.feedback_message = ""


class WorkerBehaviour(OwlBehaviour, abc.ABC):
    """Subclasses set `stage` and the blackboard keys they write and read."""

    stage: Stage
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()

    def __init__(self, name: str) -> None:
        super().__init__(name=name)
        self.bb = client(name, write=(f"{self.stage}_failure", *self.writes), read=self.reads)
        self.services: Services | None = None
        self._future: Future | None = None
        self._cancel = threading.Event()
        self._pending = False  # initialised, but a cancelled earlier work has not returned yet

    def setup(self, **kwargs: Any) -> None:
        self.services = kwargs["services"]

    def cancelled(self) -> bool:
        token = getattr(_LOCAL, "token", None)
        return (token if token is not None else self._cancel).is_set()

    def initialise(self) -> None:
        self.bb.set(f"{self.stage}_failure", None)
        self.feedback_message = ""  # not the last attempt's news
        self._cancel = threading.Event()
        self._pending = True
        self._start()

    def _start(self) -> None:
        if self._future is not None and not self._future.done():
            return  # the pre-empted work is still winding down: start when it has
        self._pending = False
        self.before()
        token = self._cancel
        with _BUSY_LOCK:
            _BUSY[0] += 1
        self._future = _POOL.submit(self._run, token)

    def _run(self, token: threading.Event) -> Any:
        _LOCAL.token = token
        try:
            return self.work()
        finally:
            _LOCAL.token = None
            with _BUSY_LOCK:
                _BUSY[0] -= 1
            _FINISHED.set()

    def update(self) -> py_trees.common.Status:
        if self._pending:
            self._start()
            return py_trees.common.Status.RUNNING
        if self._future is None or not self._future.done():
            self.progress()
            return py_trees.common.Status.RUNNING
        try:
            result = self._future.result()
        except OwlError as exc:
            # What the instruction itself gets wrong (an absent object, words not understood) does
            # not change by trying again: the replan subtree gives up at once on these.
            retry = not isinstance(exc, GroundingError | UnknownObjectError)
            if isinstance(exc, UnknownObjectError):  # the run ends as a usage error
                absent = Evidence(retryable=retry, unknown_object=exc.name)
                offending: tuple[str, ...] = (exc.name,)
            else:
                absent, offending = Evidence(retryable=retry), ()
            return self.fail(
                Failure(self.stage, exc.reason, offending_objects=offending, observed=absent)
            )
        except (
            Exception
        ) as exc:  # a bug or library error: typed, logged, never a traceback on screen
            # … but kept for whoever mends it: in the failure record's `observed` (events.jsonl, plan.json)
            where = "".join(traceback.format_exception(exc))[-TRACEBACK_KEPT:]
            return self.fail(
                Failure(
                    self.stage, f"{type(exc).__name__}: {exc}", observed=Evidence(traceback=where)
                )
            )
        return self.finish(result)

    def terminate(self, new_status: py_trees.common.Status) -> None:
        if new_status == py_trees.common.Status.INVALID:
            self._cancel.set()
            self._pending = False
            self.cancelled_by_tree()

    def before(self) -> None:
        """Hook on the tick thread before the work starts (read the blackboard here)."""

    def progress(self) -> None:
        """Hook on the tick thread on every tick while the work runs (publish progress here)."""

    def cancelled_by_tree(self) -> None:
        """Hook on the tick thread when the behaviour is pre-empted (its work was told to stop)."""

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
