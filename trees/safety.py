"""Data gathering and the safety guard.

- `create_gather_subtree()`: every tick, the arm's status (held object, a reported fault, a stop
  request) goes to /owl/arm — plain reads of the backend's state, never blocking the tick.
- `create_safety_subtree()`: an EternalGuard whose condition is checked on every tick: when a stop
  is requested or the arm reports a fault it pre-empts everything below it. A stop request stops
  the arm and fails every branch, so the tree ends; a fault is cleared (the backend's `clear_fault`,
  then the arm goes home along a planned path) and recorded in /owl/interruption; the task branch,
  guarded by the opposite condition, then starts again through the replan subtree.
- `create_ready_check()`: the first child of an attempt: FAILURE while an interruption the replan
  subtree has not acted on is pending (so that a resumed task replans first), or while the replan
  waits for a person's feedback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import py_trees

from owl_bt.failures import Evidence, Failure, FailureKind, Stage
from trees.blackboard import client
from trees.blackboard import get as bb_get
from trees.worker import OwlBehaviour, WorkerBehaviour

ARM_KEY = "/owl/arm"
CLEARING_KEY = (
    "/owl/clearing"  # the safety subtree is still making a fault good (clear, go home, record)
)


@dataclass(frozen=True)
class ArmStatus:
    """What the gather subtree publishes every tick: fault (the arm's own fault report, None when
    well), stop (a stop was requested), held (the object in the hand, as the backend knows it)."""

    fault: str | None = None
    stop: bool = False
    held: str | None = None

    @property
    def trouble(self) -> bool:
        return self.stop or self.fault is not None


def _chain(backend: Any):
    """The backend and the backends it wraps (`.inner`), outermost first."""
    seen = 0
    while backend is not None and seen < 8:
        yield backend
        backend = getattr(backend, "__dict__", {}).get("inner")
        seen += 1


def arm_fault(backend: Any) -> str | None:
    """The fault the arm reports (a recoverable one: cleared by `clear_fault()`), or None."""
    for b in _chain(backend):
        fault = getattr(b, "fault", None)
        if isinstance(fault, str):
            return fault
    return None


def clear_arm_fault(backend: Any) -> bool:
    """Ask the backend that reports the fault to clear it; False when none can."""
    for b in _chain(backend):
        if callable(getattr(type(b), "clear_fault", None)) and isinstance(
            getattr(b, "fault", None), str
        ):
            b.clear_fault()
            return True
    return False


class ArmStatusToBlackboard(OwlBehaviour):
    """Gather: the arm's status → /owl/arm, every tick (SUCCESS)."""

    def __init__(self, name: str = "arm-status") -> None:
        super().__init__(name=name)
        self.bb = client(name, write=("arm",))
        self.services = None

    def setup(self, **kwargs: Any) -> None:
        self.services = kwargs["services"]

    def update(self) -> py_trees.common.Status:
        s = self.services
        backend = s.backend
        status = ArmStatus(
            arm_fault(backend), s.stop_request.is_set(), getattr(backend, "held", None)
        )
        if not self.bb.exists("arm") or self.bb.arm != status:
            self.bb.arm = status
        self.feedback_message = (
            "stop requested"
            if status.stop
            else f"fault: {status.fault}"
            if status.fault
            else f"holding {status.held}"
            if status.held
            else ""
        )
        return py_trees.common.Status.SUCCESS


class StopArm(OwlBehaviour):
    """On a stop request: stop the arm (backend `stop()`, safe from any thread) and fail, so that
    every branch fails and the tree ends. Without one: FAILURE at once (nothing to do here)."""

    def __init__(self, name: str = "stop-arm") -> None:
        super().__init__(name=name)
        self.bb = client(name, read=("arm",))
        self.services = None
        self._stopped = False

    def setup(self, **kwargs: Any) -> None:
        self.services = kwargs["services"]

    def update(self) -> py_trees.common.Status:
        if self.bb.arm.stop:
            if not self._stopped:
                self.services.backend.stop()
                self.services.log("stop", reason="stop requested: the arm was stopped")
                self._stopped = True
            self.feedback_message = "stop requested: the arm was stopped"
        else:
            self.feedback_message = "no stop asked for"
        self.failure_means_all_well = (
            not self.bb.arm.stop
        )  # drawn "✓ not needed", not a red failure
        self.failure_word = (
            "done" if self.bb.arm.stop else ""
        )  # it failed on purpose, having stopped the arm
        return py_trees.common.Status.FAILURE


class ClearFault(WorkerBehaviour):
    """The arm reports a fault: clear it (the backend's reset), take the arm home along a planned
    path, and record the interruption (the step it cut short) for the replan subtree. /owl/clearing
    keeps the safety guard engaged until all that is done; then RUNNING until the guard sees the arm
    well and lets the task branch resume. FAILURE when the fault cannot be cleared (the record says
    not to retry) or a stop is requested."""

    stage = Stage.SAFETY
    writes = ("interruption", "clearing")
    reads = ("arm", "step", "world")

    def initialise(self) -> None:
        self._outcome: py_trees.common.Status | None = None
        arm = self.bb.arm
        if arm.stop or arm.fault is None:
            self._outcome = py_trees.common.Status.FAILURE
            return
        self.bb.clearing = True
        super().initialise()

    def before(self) -> None:
        self._fault = self.bb.arm.fault
        self._step = bb_get(self.bb, "step")
        world = bb_get(self.bb, "world")
        self._known = tuple(world.objects) if world is not None else ()
        self.feedback_message = f"clearing: {self._fault}"
        self.services.log("arm_fault", fault=self._fault, step=self._step, recoverable=True)

    def work(self):
        from trees.recover import retreat_home

        s = self.services
        if not clear_arm_fault(s.backend):
            return None
        s.log("fault_cleared", fault=self._fault)
        home = retreat_home(s, self._known)
        return {"home": home, "held": s.backend.state().held}

    def update(self) -> py_trees.common.Status:
        if self.bb.arm.stop:
            self.bb.clearing = False
            self.feedback_message = "not needed: the run is stopping"
            self.failure_word = "skipped"
            return py_trees.common.Status.FAILURE
        if self._outcome is not None:
            return self._outcome
        return super().update()

    def terminate(self, new_status: py_trees.common.Status) -> None:
        super().terminate(new_status)
        if new_status == py_trees.common.Status.INVALID and bb_get(self.bb, "clearing", False):
            self.bb.clearing = False

    def finish(self, result) -> py_trees.common.Status:
        self.bb.clearing = False
        if result is None:
            failure = Failure(
                Stage.EXECUTE,
                f"the arm reported a fault ({self._fault}) that could not be cleared",
                self._step or "",
                observed=Evidence(fault=self._fault, retryable=False),
                kind=FailureKind.EXECUTION,
            )
            self.bb.interruption = failure
            self._outcome = self.fail(failure)
            return self._outcome
        note = "it was cleared" + ("" if result["home"] else "; the arm could not go home")
        if result["held"]:
            note += f"; the hand still holds {result['held']}"
        failure = Failure(
            Stage.EXECUTE,
            f"the arm reported a fault ({self._fault}); {note}",
            self._step or "",
            observed=Evidence(fault=self._fault, home=result["home"], held=result["held"]),
            kind=FailureKind.EXECUTION,
        )
        self.bb.interruption = failure
        self.services.log(
            "failure", **failure.to_dict()
        )  # the attempt's failure record (report, events)
        self.feedback_message = f"cleared: {self._fault}"
        self._outcome = py_trees.common.Status.RUNNING
        return self._outcome


class Ready(OwlBehaviour):
    """SUCCESS unless an interruption (a cleared fault) is pending that the replan subtree has not yet
    acted on, or the replan waits for a person's feedback: then FAILURE, so the attempt does not
    start and the replan goes (or stays) first."""

    def __init__(self, name: str = "ready") -> None:
        super().__init__(name=name)
        self.bb = client(name, read=("interruption", "failures", "awaiting"))

    def update(self) -> py_trees.common.Status:
        pending = bb_get(self.bb, "interruption")
        if pending is not None and not any(f is pending for f in bb_get(self.bb, "failures", [])):
            self.feedback_message = "interrupted: replan first"
            return py_trees.common.Status.FAILURE
        if bb_get(self.bb, "awaiting", False):
            self.feedback_message = "waiting for feedback"
            return py_trees.common.Status.FAILURE
        self.feedback_message = ""
        return py_trees.common.Status.SUCCESS


def create_gather_subtree() -> py_trees.behaviour.Behaviour:
    return py_trees.composites.Sequence(
        name="gather", memory=False, children=[ArmStatusToBlackboard("arm-status")]
    )


def _trouble(blackboard) -> bool:
    return blackboard.get(ARM_KEY).trouble or bool(
        blackboard.get(CLEARING_KEY) if blackboard.exists(CLEARING_KEY) else False
    )


def _well(blackboard) -> bool:
    return not _trouble(blackboard)


ALL_WELL = (
    "all well: no stop asked for, no arm fault, so nothing to make safe"  # why the guard shows [✕]
)


def create_safety_subtree() -> py_trees.behaviour.Behaviour:
    """The safety guard over make-safe (stop-arm | clear-fault). On a healthy run its condition is false
    and py_trees draws it failed (`-^- safety [✕]`); its feedback then says that this means all is well."""
    make_safe = py_trees.composites.Selector(
        name="make-safe", memory=False, children=[StopArm("stop-arm"), ClearFault("clear-fault")]
    )
    guard = py_trees.decorators.EternalGuard(
        name="safety", child=make_safe, condition=_trouble, blackboard_keys={ARM_KEY, CLEARING_KEY}
    )
    trouble = guard.condition  # bound to the guard's blackboard client

    def condition() -> bool:
        bad = trouble()
        guard.feedback_message = "" if bad else ALL_WELL
        return bad

    guard.condition = condition
    guard.failure_means_all_well = True  # the live tree shows it "✓ not needed", not a red failure
    return guard


def create_guarded_task(child: py_trees.behaviour.Behaviour) -> py_trees.behaviour.Behaviour:
    """The task branch, guarded every tick: it runs only while no stop is requested and the arm is well."""
    return py_trees.decorators.EternalGuard(
        name="task", child=child, condition=_well, blackboard_keys={ARM_KEY, CLEARING_KEY}
    )


def create_ready_check() -> py_trees.behaviour.Behaviour:
    return Ready("ready")
