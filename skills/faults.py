"""Typed hardware failures: each an `ArmFault`, so the skill turns it into a one-line failed step
and the tree ends or replans with it. Every one of them is raised only after the arm was told to
stop (or could no longer be reached)."""

from __future__ import annotations

from skills.backend import ArmFault


class BackendUnavailable(ArmFault):
    """A vendor library is missing or the arm does not answer at connect time (nothing moved)."""


class ActionAborted(ArmFault):
    """The controller aborted the motion (Kortex ACTION_ABORT, a refused trajectory)."""


class ActionTimeout(ArmFault):
    """The motion did not finish within its planned duration plus a margin; the arm was stopped."""


class ConnectionLost(ArmFault):
    """The connection to the arm broke during a command; a stop was attempted."""


class ArmInFault(ArmFault):
    """The arm reported a fault (Kortex ARMSTATE_IN_FAULT); it was stopped."""


class ProtectiveStop(ArmFault):
    """A UR protective or emergency stop happened during the motion."""


HELD_UNKNOWN = "(object)"  # what a hardware gripper reports holding: it knows that, not what
