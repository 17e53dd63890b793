"""A guarded descent as the planner makes one: joint waypoints that lower the tool straight down by
`drop` metres from the arm's home, found by the planner's own inverse kinematics."""

from __future__ import annotations

from owl_bt.state import RobotState, WorldState
from owl_bt.tamp.kinematics import solve_ik
from owl_bt.tamp.motion import densify
from owl_bt.tamp.planning_model import PlanningModel
from sim.robot import robot_spec


def descent(robot: str, drop: float = 0.10) -> list[tuple[float, ...]]:
    """Waypoints (rad) from the home pose down `drop` m, no joint moving over 0.02 rad between two."""
    spec = robot_spec(robot)
    model = PlanningModel(WorldState(objects={}, robot=RobotState(joints=spec.home, arm=spec.name)))
    try:
        pos, quat = model.robot.tcp_pose()
        low = solve_ik(model, ((pos[0], pos[1], pos[2] - drop), quat), seed=spec.home)
        assert low is not None
        return densify([tuple(spec.home), low], 0.02)
    finally:
        model.close()
