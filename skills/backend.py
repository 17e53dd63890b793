"""The `ArmBackend` protocol: the only thing that differs between simulation and hardware.

Joint positions in radians in the robot's joint order; times in seconds from the trajectory start;
gripper widths in metres between the pads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from owl_bt.state import RobotState


@dataclass(frozen=True)
class GripResult:
    """What a gripper command achieved: the pad opening (m) and the object now held, if any."""

    width: float
    holding: str | None


class ArmFault(Exception):
    """The arm could not complete a command (limit, collision, lost connection): one-line reason."""


class ArmBlocked(ArmFault):
    """A motion was stopped by contact short of its waypoint (the arm itself is fine): the caller may
    back out along the way it came."""


class ArmBackend(Protocol):
    def state(self) -> RobotState:
        """Measured joints, gripper opening and held object."""
        ...

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        """Follow joint waypoints (radians), optionally timed (s); raises ArmFault; blocks until done.
        guarded: the move may end early where the arm meets resistance (a guarded descent)."""
        ...

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        """'open' or 'close'; returns the resulting opening and held object. `width` (metres between
        the pads, 'open' only): open just that far, for a pre-shaped approach; None opens fully."""
        ...

    def stop(self) -> None:
        """Stop all motion now (safe to call from any thread, any time)."""
        ...


def hold_still(backend: ArmBackend, seconds: float) -> None:
    """Hold the arm where it is for up to `seconds` (s) so that what it let go comes to rest before a
    look: the backend's own `hold_still` when it has one (the simulator ends it once everything lies
    still), else a motionless trajectory that long. Raises ArmFault as `execute_trajectory` does."""
    own = getattr(backend, "hold_still", None)
    if own is not None:
        own(seconds)
    else:
        backend.execute_trajectory([backend.state().joints], times=[seconds])
