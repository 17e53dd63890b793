"""Mug1: stand the mug upright, then put in it whatever fits (only the fork does).

Fixed: the mug, lying on its side at (0.50, 0.15) (it rolls until its handle meets the table).
Seeded: the spots and yaws of the fork, the power drill and the potted meat can. Success: the mug
upright on the table with the fork inside it, and neither held.
"""

from __future__ import annotations

import math

from sim.tasks import Task, Verdict
from sim.tasks.coffee import mug_upright_on_table
from sim.tasks.common import first_failure, is_inside, new_layout, not_held, put
from sim.world import SimWorld

INSTRUCTION = "Setup the mug so it's upright, then put whatever object that fits inside of it"
MUG_AT = (0.50, 0.15)  # m


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "mug", at=MUG_AT, roll=math.pi / 2)
    for kind in ("fork", "power_drill", "potted_meat_can"):
        put(world, layout, kind)
    world.settle(1.0)


def detect(world: SimWorld) -> Verdict:
    checks = mug_upright_on_table(world) + [
        (is_inside(world, "fork", "mug"), "the fork is not inside the mug")
    ]
    return first_failure(
        checks + not_held(world, "mug", "fork"), "the mug stands upright with the fork inside it"
    )


ORACLE_SKETCH = """\
A mug lies on its side on the table, next to a fork, a power drill and a potted meat can. The mug
must first stand upright. Of the other objects only the fork is small enough to go inside the mug;
the drill and the can are far too big.

Plan:
pick(mug); grasp the mug lying on its side
place_ontop(mug, table); stand the mug upright on the table with its opening facing up
pick(fork); grasp the fork
place_inside(fork, mug); put the fork into the upright mug
achieve_goal(mug, fork); the mug stands upright on the table with the fork inside it
"""

ORACLE_CHECKERS = """\
```python
def mug_upright():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "mug", "table")
    upright = abs(mug.pose.roll) < 0.2 and abs(mug.pose.pitch) < 0.2
    return position_within_bounds(get_obj_center(state, env, "mug"), b) and upright

def fork_in_mug():
    # long cutlery stands in the mug leaning on its rim: its centre is over the mug, and its lower end (where
    # it touches down) is in the mug's opening, well under the rim; one lying across the rim, its handle on
    # the table, touches down beside the mug. A camera sees a thing in a mug only in part: where its lower
    # end is, is judged no finer than a centimetre across and 1.5 cm down
    lo, hi = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, "fork", "mug")
    b = (lo, (hi[0], hi[1], hi[2] + 0.1, hi[3], hi[4], hi[5]))
    mouth = get_opening(state, env, "mug")
    if mouth is None:
        return False
    x, y, r, floor, rim = mouth
    end = get_lower_end(state, env, "fork")
    into = math.hypot(end[0] - x, end[1] - y) <= r + 0.01 and floor - 0.015 < end[2] < rim - 0.03
    return position_within_bounds(get_obj_center(state, env, "fork"), b) and into

def goal_check0():
    return mug_upright()

def goal_check1():
    return fork_in_mug()

def action_check1():
    return mug_upright()

def action_check3():
    return mug_upright() and fork_in_mug()
```
"""

TASK = Task(
    name="mug1",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=4,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
