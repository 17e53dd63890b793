"""Everyday requests the robot cannot carry out: the honest answer is impossible(<reason>), the run
ends failed with that reason, and nothing on the table is moved.

The detector checks that nothing moved; the episode counts such a task done only when the run also
ended with an honest "cannot" (Task.impossible).
"""

from __future__ import annotations

from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, new_layout, put
from sim.tasks.everyday.common import remember_start, unmoved
from sim.world import SimWorld

NO_CHECKERS = "```python\ndef goal_check0():\n    return False\n```\n"


def _impossible(
    name: str, instruction: str, kinds: list[tuple[str, tuple[float, float] | None]], reason: str
) -> Task:
    names = [k for k, _ in kinds]

    def build(world: SimWorld, seed: int) -> None:
        layout = new_layout(seed)
        for kind, at in kinds:
            put(world, layout, kind, at=at)
        world.settle(0.5)
        remember_start(world, *names)

    def detect(world: SimWorld) -> Verdict:
        return first_failure(unmoved(world, *names), "nothing was moved")

    return Task(
        name=name,
        instruction=instruction,
        build=build,
        detect=detect,
        optimal_length=0,
        oracle_sketch=f"No plan can do this.\n\nPlan:\nimpossible({reason})\n",
        oracle_checkers=NO_CHECKERS,
        impossible=True,
    )


BOARD_IN_MUG = _impossible(
    "board_in_mug",
    "put the cutting board into the mug",
    [("cutting_board", (0.62, -0.1)), ("mug", (0.45, 0.2))],
    "the cutting board is 30 cm long and 20 cm wide; it cannot pass the mug's 6.4 cm opening",
)
LIFT_BIN = _impossible(
    "bin_on_block",
    "put the bin on top of the block",
    [("bin", (0.62, 0.1)), ("block", (0.45, -0.2))],
    "the bin is 18 cm wide in every direction the gripper could take it, wider than its 8.5 cm opening",
)

OPEN_CARTON = _impossible(
    "open_carton",
    "open the milk carton",
    [("milk_carton", (0.55, 0.1))],
    "the robot can pick, place and pour, but has no skill that opens a carton",
)

TASKS = (BOARD_IN_MUG, LIFT_BIN, OPEN_CARTON)
