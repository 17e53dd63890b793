"""`GuardedBackend`: an `ArmBackend` whose every command passes the safety guard first.

The tree, the skills and the monitor talk to this wrapper only; the backend inside (sim, kortex,
rtde) sees nothing the guard refused. Dry-run: commands are checked and shown, never sent. Before
the first motion a `confirm(trajectory)` callback (hardware runs: a yes/no prompt showing the
planned targets) may refuse, which ends the run with a typed failure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import contextmanager

from owl_bt.state import RobotState
from skills.backend import ArmBackend, ArmFault, GripResult
from skills.faults import (
    ActionTimeout,
    ArmInFault,
    BackendUnavailable,
    ConnectionLost,
    ProtectiveStop,
)
from skills.guard import GuardRejection, SafetyGuard, Trajectory

FATAL = (ConnectionLost, ArmInFault, ProtectiveStop, ActionTimeout, BackendUnavailable)


class NotConfirmed(ArmFault):
    """The person did not confirm the first motion: nothing was sent to the arm."""


class GuardedBackend:
    """ArmBackend wrapper. inner: the real backend; guard: its SafetyGuard; dry_run: check and log,
    never send; confirm: called once with the first checked trajectory, False refuses; log(event,
    **fields): structured events (guard_rejection, dry_run_move, dry_run_grip)."""

    def __init__(
        self,
        inner: ArmBackend,
        guard: SafetyGuard,
        *,
        dry_run: bool = False,
        confirm: Callable[[Trajectory], bool] | None = None,
        log: Callable[..., None] | None = None,
    ) -> None:
        self.inner, self.guard, self.dry_run = inner, guard, dry_run
        self._confirm, self._log = confirm, log or (lambda event, **kw: None)
        self.sent: list[
            Trajectory
        ] = []  # what reached the inner backend (or would have, in a dry run)
        self.fatal: ArmFault | None = None  # a hardware fault that ends the run (no replanning)

    @property
    def rejections(self) -> int:
        return self.guard.rejections

    @property
    def held(self) -> str | None:
        return getattr(self.inner, "held", None)

    def state(self) -> RobotState:
        return self.inner.state()

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        """Check (GuardRejection on a violated limit), confirm once, then send the timed trajectory."""
        try:
            traj = self.guard.check(self.inner.state().joints, waypoints, times)
        except GuardRejection as exc:
            self._log(
                "guard_rejection",
                limit=exc.limit,
                reason=str(exc),
                rejections=self.guard.rejections,
            )
            raise
        if self._confirm is not None:
            ask, self._confirm = self._confirm, None
            if not ask(traj):
                self.fatal = NotConfirmed(
                    "the first motion was not confirmed; nothing was sent to the arm"
                )
                raise self.fatal
        self.sent.append(traj)
        if self.dry_run:
            self._log(
                "dry_run_move",
                waypoints=len(traj.waypoints),
                last=[round(v, 4) for v in traj.waypoints[-1]],
                seconds=round(traj.times[-1], 3),
            )
            return
        with self._watch():
            self.inner.execute_trajectory(traj.waypoints, traj.times, guarded=guarded)

    @contextmanager
    def _watch(self):
        """Remember a hardware fault that retrying cannot mend (it ends the run with that failure)."""
        try:
            yield
        except FATAL as exc:
            if isinstance(exc, ArmInFault | ProtectiveStop) and _clearable(self.inner):
                self._log("arm_fault", kind=type(exc).__name__, reason=str(exc), clearable=True)
                raise  # the safety subtree clears it (`clear_fault`) and the tree replans
            self.fatal = exc
            self._log("arm_fault", kind=type(exc).__name__, reason=str(exc))
            raise

    def hold_still(self, seconds: float) -> None:
        """Hold still up to `seconds`: the inner backend's own `hold_still` (no motion, so nothing for
        the guard to check), else, and in a dry run, a motionless trajectory through the guard."""
        own = getattr(self.inner, "hold_still", None)
        if own is None or self.dry_run:
            return self.execute_trajectory([self.inner.state().joints], times=[seconds])
        with self._watch():
            own(seconds)

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        if command not in ("open", "close"):
            self.guard.rejections += 1
            self._log(
                "guard_rejection",
                limit="gripper",
                reason=f"unknown gripper command {command!r}",
                rejections=self.guard.rejections,
            )
            raise GuardRejection("gripper", f"unknown gripper command {command!r}")
        if self.dry_run:
            self._log("dry_run_grip", command=command)
            return GripResult(self.state().gripper_width, None)
        with self._watch():
            result = (
                self.inner.gripper(command)
                if width is None
                else self.inner.gripper(command, width=width)
            )
        corners = getattr(self.inner, "held_corners", None)
        self.guard.hold(corners() if result.holding is not None and corners is not None else None)
        return result

    def stop(self) -> None:
        self.inner.stop()


def _clearable(backend) -> bool:
    """The backend (or one it wraps) reports a fault it can clear itself (`fault`, `clear_fault`)."""
    for _ in range(8):
        if backend is None:
            return False
        if isinstance(getattr(backend, "fault", None), str) and callable(
            getattr(backend, "clear_fault", None)
        ):
            return True
        backend = getattr(backend, "inner", None)
    return False
