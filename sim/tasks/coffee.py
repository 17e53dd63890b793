"""Coffee: set the mug (the "cup") upright on the table so coffee can be poured into it.

Seeded: the mug's spot and yaw in reach, and whether it starts lying on its side (then it rolls
until its handle meets the table) or standing upside down on its rim. Success: the mug's axis is
within 15° of vertical with the opening up, it rests on the table, and the gripper has let go.
"""

from __future__ import annotations

import math

from sim.tasks import Task, Verdict
from sim.tasks.common import axis_tilt, first_failure, is_upright, new_layout, not_held, put
from sim.world import SimWorld

INSTRUCTION = (
    "I want to pour some coffee into the cup; can you set up the cup on the table so I can do this "
    "properly?"
)


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    on_side = bool(layout.rng.random() < 0.5)
    put(world, layout, "mug", roll=math.pi / 2 if on_side else math.pi)
    world.settle(1.0)


def mug_upright_on_table(world: SimWorld) -> list[tuple[bool, str]]:
    """Checks shared by the mug tasks: upright (opening up) and resting on the table."""
    tilt = math.degrees(axis_tilt(world, "mug"))
    return [
        (
            is_upright(world, "mug"),
            f"the mug is not upright (its axis is {tilt:.0f}° from vertical)",
        ),
        (world.contacts("mug", "table"), "the mug is not resting on the table"),
    ]


def detect(world: SimWorld) -> Verdict:
    return first_failure(
        mug_upright_on_table(world) + not_held(world, "mug"), "the mug stands upright on the table"
    )


ORACLE_SKETCH = """\
The only object is a mug (the cup), which is not standing properly: it lies on its side or stands
upside down, so nothing could be poured into it. It has to stand upright on the table with its
opening facing up.

Plan:
pick(mug); grasp the mug by its body
place_ontop(mug, table); set the mug down upright on the table, opening facing up
achieve_goal(mug, table); the mug stands upright on the table with its opening up
"""

ORACLE_CHECKERS = """\
```python
def goal_check0():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "mug", "table")
    upright = abs(mug.pose.roll) < 0.2 and abs(mug.pose.pitch) < 0.2
    return position_within_bounds(get_obj_center(state, env, "mug"), b) and upright

def action_check1():
    return goal_check0()
```
"""

TASK = Task(
    name="coffee",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=2,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
