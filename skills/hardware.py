"""Choosing and opening a hardware backend, and the twin that keeps the simulated scene in step.

A hardware run perceives through a camera (`--camera realsense` or `recorded:<folder>`, label-free,
`perception/label_free.py`) or, without one, the simulated scene laid out like the real table.
`TwinBackend` sends every guarded command to the arm first and then to the simulated arm; the arm's
measured joints and gripper are the truth the twin follows.
"""

from __future__ import annotations

from collections.abc import Sequence

from owl_bt.state import RobotState
from skills.backend import ArmBackend, GripResult

BACKENDS = ("sim", "kortex", "rtde")
ROBOT_OF = {"kortex": "kinova-gen3", "rtde": "ur5e"}  # the arm each backend drives by default
ROBOTS_OF = {"kortex": ("kinova-gen3",), "rtde": ("ur5e", "ur5")}  # every arm it drives


def open_hardware(
    kind: str,
    ip: str,
    guard,
    username: str = "admin",
    password: str = "admin",
    robot: str | None = None,
    clear_faults: bool = False,
) -> ArmBackend:
    """A connected `kortex` (Kinova Gen3) or `rtde` (UR5 + Robotiq) backend whose every trajectory the
    guard vets once more before sending; raises BackendUnavailable (missing library, no answer).
    username, password: the Kortex session's credentials (the setup file's [robot] username and
    $OWL_BT_ARM_PASSWORD; the UR takes none); robot: the UR's model (`sim.robot.ROBOTS`: ur5e, ur5);
    clear_faults: a Gen3 in fault is cleared (`ClearFaults`), a UR's protective stop unlocked, at
    connect (else either is refused with how to clear it)."""
    if kind == "kortex":
        from skills.kortex_backend import KortexBackend

        return KortexBackend(ip, username, password, guard=guard, clear_faults=clear_faults)
    if kind == "rtde":
        from sim.robot import robot_spec
        from skills.rtde_backend import RtdeBackend

        return RtdeBackend.connect(
            ip, guard=guard, spec=robot_spec(robot or ROBOT_OF[kind]), clear_faults=clear_faults
        )
    raise ValueError(f"unknown hardware backend {kind!r}; available: kortex, rtde")


SYNC_TOLERANCE = 0.005  # rad: a twin this far from the measured joints is set to them


class TwinBackend:
    """Commands go to `hardware`, then to `twin` (the simulated arm, which plans and draws the scene).
    The arm is the truth: before each motion the twin takes the measured joints; `state()` is the
    measured joints and opening; what is held comes from the real gripper (Robotiq OBJ, Kortex
    finger position) — the twin only names it. A real grip that closed on nothing, or an object that
    slipped out of the real hand, makes the twin let go too. A hardware failure stops both and is
    raised."""

    def __init__(self, hardware: ArmBackend, twin: ArmBackend) -> None:
        self.hardware, self.twin = hardware, twin
        self._sync()  # the simulated arm starts where the real one is

    @property
    def held(self) -> str | None:
        return _named(getattr(self.hardware, "held", None), getattr(self.twin, "held", None))

    @property
    def fault(self) -> str | None:
        """The arm's fault when it may be cleared in the run (`--clear-faults`), else None."""
        return getattr(self.hardware, "fault", None)

    def clear_fault(self) -> None:
        """Clear the arm's fault (a UR's protective stop unlocked, a Gen3's ClearFaults)."""
        self.hardware.clear_fault()
        self._sync()

    def held_corners(self):
        corners = getattr(self.twin, "held_corners", None)
        return corners() if corners is not None and self.held is not None else None

    def state(self) -> RobotState:
        measured, twin = self.hardware.state(), self.twin.state()
        if measured.held is None and twin.held is not None:
            self.twin.gripper("open")  # the real hand lost it (it slipped out): so does the twin's
            twin = self.twin.state()
        return RobotState(
            joints=measured.joints,
            gripper_width=measured.gripper_width,
            held=_named(measured.held, twin.held),
            arm=twin.arm,
        )

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        self._sync()
        self.hardware.execute_trajectory(waypoints, times, guarded=guarded)
        if self.hardware.state().held is None and getattr(self.twin, "held", None) is not None:
            self.twin.gripper("open")  # it slipped out of the real hand during the motion
        self.twin.execute_trajectory(waypoints, times, guarded=guarded)

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        real = self.hardware.gripper(command, width=width)
        twin = self.twin.gripper(command, width=width)
        if command == "close" and real.holding is None and twin.holding is not None:
            self.twin.gripper("open")  # the real fingers met nothing: the twin's grasp is not kept
        return GripResult(real.width, _named(real.holding, twin.holding))

    def stop(self) -> None:
        try:
            self.hardware.stop()
        finally:
            self.twin.stop()

    def close(self) -> None:
        close = getattr(self.hardware, "close", None)
        if close is not None:
            close()

    def _sync(self) -> None:
        """The twin's arm set to the measured joints when it has drifted from them."""
        robot = getattr(self.twin, "robot", None)
        if robot is None:
            return
        measured = tuple(self.hardware.state().joints)
        if max(abs(a - b) for a, b in zip(measured, robot.arm_q(), strict=True)) > SYNC_TOLERANCE:
            robot.reset_arm(measured)


def _named(real: str | None, twin: str | None) -> str | None:
    """What is held: nothing when the real gripper holds nothing; else the twin's name for it, or
    the real gripper's own word (HELD_UNKNOWN) when the twin holds nothing."""
    if real is None:
        return None
    return twin or real
