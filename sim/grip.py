"""How long a closing gripper closes: until its fingers meet resistance, then a short squeeze.

A Robotiq 2F-85 closes until its fingers are stopped (by the object, or closed on nothing) and then
holds its grip force; it does not go on driving for a fixed time. The arm (`skills.sim_backend`) and the
planning model's grips (`PlanningModel.grip`) close the same way, so that the grasp the plan goes on
from is the one the arm ends up with. Squeezing on for the whole of a fixed 0.8 s, the pads crept: a
side-gripped mug went on turning, 3° at 0.4 s to 10-14° at 0.8 s, and two thirds of Mug3's mug grips
were refused for it.
"""

from __future__ import annotations

from collections.abc import Callable

from sim.robot import FINGER_SPEED
from sim.world import TIME_STEP

SQUEEZE_S = 0.15  # seconds the fingers squeeze on once they have met resistance
SLOWED = 0.5  # share of their free speed below which closing fingers have met something
FIRST_STEPS = 4  # physics steps the fingers are given to get going before they are judged


class ClosingFingers:
    """Counts the physics steps of one closing grip: `step_done()` after each step says whether it is
    done — the driving finger has slowed below SLOWED of its free speed (FINGER_SPEED, rad/s) and
    squeezed SQUEEZE_S since, or `limit_s` seconds have passed. `robot`: a `sim.robot.RobotModel`."""

    def __init__(self, robot, limit_s: float) -> None:
        self.robot = robot
        self.steps = 0
        self.limit = int(limit_s / TIME_STEP)
        self.met: int | None = None  # the step the fingers met resistance
        self._last = robot.finger_angle()

    def step_done(self) -> bool:
        self.steps += 1
        angle = self.robot.finger_angle()
        moved, self._last = angle - self._last, angle
        if (
            self.met is None
            and self.steps > FIRST_STEPS
            and moved < SLOWED * FINGER_SPEED * TIME_STEP
        ):
            self.met = self.steps
        return self.steps >= self.limit or (
            self.met is not None and (self.steps - self.met) * TIME_STEP >= SQUEEZE_S
        )

    def run(self, step: Callable[[], None]) -> int:
        """Call `step` (one physics step) until the close is done; returns the steps taken."""
        while True:
            step()
            if self.step_done():
                return self.steps
