"""Choosing and opening a hardware backend, and the twin that keeps the simulated scene in step.

Perception on hardware is still the simulator's scene (`perception/`: the RGB-D pipeline is not
built yet), so a hardware run plans in the simulated scene — a benchmark task or a `--scene` file
laid out like the real table — and `TwinBackend` sends every guarded command to the arm first and
then to the simulated arm, which the perception stand-in reads.
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
) -> ArmBackend:
    """A connected `kortex` (Kinova Gen3) or `rtde` (UR5 + Robotiq) backend whose every trajectory the
    guard vets once more before sending; raises BackendUnavailable (missing library, no answer).
    username, password: the Kortex session's credentials (the setup file's [robot] username and
    $OWL_BT_ARM_PASSWORD; the UR takes none); robot: the UR's model (`sim.robot.ROBOTS`: ur5e, ur5)."""
    if kind == "kortex":
        from skills.kortex_backend import KortexBackend

        return KortexBackend(ip, username, password, guard=guard)
    if kind == "rtde":
        from sim.robot import robot_spec
        from skills.rtde_backend import RtdeBackend

        return RtdeBackend.connect(ip, guard=guard, spec=robot_spec(robot or ROBOT_OF[kind]))
    raise ValueError(f"unknown hardware backend {kind!r}; available: kortex, rtde")


class TwinBackend:
    """Commands go to `hardware`, then to `twin` (the simulated arm); state and grasps are the twin's,
    since the perception stand-in reads the simulator. A hardware failure stops both and is raised."""

    def __init__(self, hardware: ArmBackend, twin: ArmBackend) -> None:
        self.hardware, self.twin = hardware, twin
        robot = getattr(twin, "robot", None)  # the simulated arm starts where the real one is
        if robot is not None:
            robot.reset_arm(hardware.state().joints)

    @property
    def held(self) -> str | None:
        return getattr(self.twin, "held", None)

    def held_corners(self):
        corners = getattr(self.twin, "held_corners", None)
        return corners() if corners is not None else None

    def state(self) -> RobotState:
        return self.twin.state()

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        self.hardware.execute_trajectory(waypoints, times, guarded=guarded)
        self.twin.execute_trajectory(waypoints, times, guarded=guarded)

    def gripper(self, command: str, width: float | None = None) -> GripResult:
        self.hardware.gripper(command, width=width)
        return self.twin.gripper(command, width=width)

    def stop(self) -> None:
        try:
            self.hardware.stop()
        finally:
            self.twin.stop()

    def close(self) -> None:
        close = getattr(self.hardware, "close", None)
        if close is not None:
            close()
