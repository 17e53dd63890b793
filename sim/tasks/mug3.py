"""Mug3: cutlery into the mug, and the mug near the condiment — but a golf ball is in the mug.

Fixed: the mug standing upright at (0.45, 0.20) with the golf ball lying inside it. Seeded: the
fork anywhere in reach, the mustard bottle on the right half (y < −0.05, more than 0.2 m from the
mug). The ball has to be poured out (it rolls out once the mug is tipped past about 110°).
Success: the fork inside the mug, the golf ball not, the mug upright on the table within 0.2 m (x
and y) of the mustard bottle's box, nothing held.
"""

from __future__ import annotations

from sim.catalog.containers import MUG_FLOOR
from sim.catalog.layout import REACH
from sim.tasks import Task, Verdict
from sim.tasks.coffee import mug_upright_on_table
from sim.tasks.common import first_failure, is_inside, new_layout, not_held, put
from sim.tasks.mug2 import mug_near_condiment
from sim.world import SimWorld

INSTRUCTION = "place cutlery into the mug and have the mug be near the condiment"
MUG_AT = (0.45, 0.20)  # m, the mug's box centre; its axis is 1.3 cm towards −x
RIGHT_HALF = (REACH[0], (REACH[1][0], -0.05))


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    mug = put(world, layout, "mug", at=MUG_AT)
    axis_x = MUG_AT[0] - (mug.bounds()[0][0] + mug.bounds()[1][0]) / 2
    put(world, layout, "golf_ball", at=(axis_x, MUG_AT[1]), support_z=MUG_FLOOR + 0.001)
    put(world, layout, "mustard_bottle", area=RIGHT_HALF)
    put(world, layout, "fork")
    world.settle(1.0)


def detect(world: SimWorld) -> Verdict:
    checks = [
        (is_inside(world, "fork", "mug"), "the fork is not inside the mug"),
        (not is_inside(world, "golf_ball", "mug"), "the golf ball is still inside the mug"),
    ]
    checks += (
        mug_upright_on_table(world) + mug_near_condiment(world) + not_held(world, "mug", "fork")
    )
    return first_failure(
        checks, "the fork is in the upright mug, the golf ball is out, the mug is near the mustard"
    )


ORACLE_SKETCH = """\
An upright mug stands on the left of the table with a golf ball inside it, so the fork (the only
cutlery) would not fit until the ball is tipped out. The condiment is the mustard bottle on the
right. The mug is emptied over the table, set down upright next to the mustard, and then the fork
goes in.

Plan:
pick(mug); grasp the mug holding the golf ball
pour(mug, table); tip the mug well past horizontal over an empty part of the table so the golf ball rolls out
place_ontop(mug, table); set the empty mug upright on the table next to the mustard bottle
pick(fork); grasp the fork
place_inside(fork, mug); put the fork into the mug
achieve_goal(fork, mug, mustard_bottle, golf_ball); the fork in the upright mug next to the mustard, the golf ball out of it
"""

ORACLE_CHECKERS = """\
```python
def in_mug(name):
    # long cutlery leans in the mug on its rim: its centre stays within the mug's walls (one leaning on the
    # mug from outside has its centre beside them) and its lower end (where it touches down) is in the mug's
    # opening, well under the rim (one lying across the rim, its handle on the table, touches down beside
    # the mug). A camera sees a thing in a mug only in part: where its lower end is, is judged no finer than
    # a centimetre across and 1.5 cm down
    lo, hi = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, name, "mug")
    b = (lo, (hi[0], hi[1], hi[2] + 0.1, hi[3], hi[4], hi[5]))
    c, m = get_obj_center(state, env, name), get_obj_center(state, env, "mug")
    walls = math.hypot(c[0] - m[0], c[1] - m[1]) <= min(state.get("mug").size[0], state.get("mug").size[1]) / 2
    mouth = get_opening(state, env, "mug")
    if mouth is None:
        return False
    x, y, r, floor, rim = mouth
    end = get_lower_end(state, env, name)
    into = math.hypot(end[0] - x, end[1] - y) <= r + 0.01 and floor - 0.015 < end[2] < rim - 0.03
    return position_within_bounds(c, b) and walls and into

def mug_placed():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "mug", "table")
    b = modify_pose_bounds_to_be_near_object(state, env, b, "mustard_bottle", 0.15)
    upright = abs(mug.pose.roll) < 0.2 and abs(mug.pose.pitch) < 0.2
    return position_within_bounds(get_obj_center(state, env, "mug"), b) and upright

def goal_check0():
    return in_mug("fork")

def ball_in_mug():
    b = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, "golf_ball", "mug")
    lo, hi = get_aabb_bounds(state, env, "golf_ball")
    mlo, mhi = get_aabb_bounds(state, env, "mug")
    return position_within_bounds(get_obj_center(state, env, "golf_ball"), b) and lo[2] > mlo[2] + 0.003

def goal_check1():
    return not ball_in_mug()

def goal_check2():
    return mug_placed()

def action_check1():
    b = modify_pose_bounds_to_be_above_object(state, env, init_bounds, "table")
    # tilted past ~1.2 rad: the pour itself turns the mouth at least 100 degrees, but a tipped mug in the hand
    # is seen by the camera 15-50 degrees less tipped than it is
    tipped = math.cos(mug.pose.roll) * math.cos(mug.pose.pitch) < math.cos(1.2)
    return position_within_bounds(get_obj_center(state, env, "mug"), b) and tipped and not ball_in_mug()

def action_check2():
    return mug_placed()

def action_check4():
    return in_mug("fork") and mug_placed()
```
"""

TASK = Task(
    name="mug3",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=8,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
