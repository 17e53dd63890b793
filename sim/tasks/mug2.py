"""Mug2: cutlery into the mug, then the mug on the table near the condiment.

Fixed: the mug standing upright at (0.45, −0.20) with an orange resting on its rim, blocking the
opening. Seeded: the fork, knife, sponge and strawberry anywhere in reach, and the mustard bottle
on the left half (y > 0.05, so more than 0.2 m from the mug). Success: fork and knife inside the
mug, the mug upright on the table with its centre within 0.2 m (in x and in y) of the mustard
bottle's box, nothing held.
"""

from __future__ import annotations

from sim.catalog.containers import MUG_H
from sim.catalog.layout import REACH
from sim.tasks import Task, Verdict
from sim.tasks.coffee import mug_upright_on_table
from sim.tasks.common import (
    cavity_centre,
    first_failure,
    is_inside,
    near,
    new_layout,
    not_held,
    put,
)
from sim.world import SimWorld

INSTRUCTION = (
    "Place cutlery inside the mug and then place the mug itself on the table near the condiment"
)
MUG_AT = (
    0.45,
    -0.20,
)  # m, the mug's box centre; its axis is 1.3 cm towards −x (the handle is on +x)
NEAR = 0.2  # m
LEFT_HALF = (REACH[0], (0.05, REACH[1][1]))


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    mug = put(world, layout, "mug", at=MUG_AT)
    axis_x = MUG_AT[0] - (mug.bounds()[0][0] + mug.bounds()[1][0]) / 2
    put(
        world, layout, "orange", at=(axis_x, MUG_AT[1]), support_z=MUG_H - 0.0205
    )  # sits in the 6.4 cm rim
    put(world, layout, "mustard_bottle", area=LEFT_HALF)
    for kind in ("fork", "knife", "sponge", "strawberry"):
        put(world, layout, kind)
    world.settle(1.0)


def mug_near_condiment(world: SimWorld) -> list[tuple[bool, str]]:
    c = cavity_centre(world, "mug")
    return [
        (
            near(world, c, "mustard_bottle", NEAR),
            f"the mug at ({c[0]:.3f}, {c[1]:.3f}) is not within {NEAR} m of the mustard bottle",
        )
    ]


def detect(world: SimWorld) -> Verdict:
    checks = [
        (is_inside(world, c, "mug"), f"the {c} is not inside the mug") for c in ("fork", "knife")
    ]
    checks += (
        mug_upright_on_table(world)
        + mug_near_condiment(world)
        + not_held(world, "mug", "fork", "knife")
    )
    return first_failure(
        checks, "fork and knife are in the upright mug, which stands near the mustard bottle"
    )


ORACLE_SKETCH = """\
An upright mug stands on the right of the table with an orange sitting on its rim, blocking its
opening. The cutlery is the fork and the knife; the condiment is the mustard bottle on the left.
The sponge and the strawberry do not matter. The orange must come off the mug first. Carrying a mug
with cutlery standing in it would spill it, so the mug goes near the mustard first and the fork and
the knife go into it there: the end state is the same.

Plan:
pick(orange); lift the orange off the mug's rim
place_ontop(orange, table); put the orange on the table away from the mug
pick(mug); grasp the empty mug, keeping it upright
place_ontop(mug, table); set the mug upright on the table next to the mustard bottle
pick(fork); grasp the fork
place_inside(fork, mug); put the fork into the mug
pick(knife); grasp the knife
place_inside(knife, mug); put the knife into the mug next to the fork
achieve_goal(fork, knife, mug, mustard_bottle); fork and knife in the upright mug, which stands near the mustard bottle
"""

ORACLE_CHECKERS = """\
```python
def in_mug(name):
    # long cutlery stands in the mug leaning on its rim: its centre is over the mug, and its lower end (where
    # it touches down) is in the mug's opening, well under the rim; one lying across the rim, its handle on
    # the table, touches down beside the mug. A camera sees a thing in a mug only in part: where its lower
    # end is, is judged no finer than a centimetre across and 1.5 cm down
    lo, hi = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, name, "mug")
    b = (lo, (hi[0], hi[1], hi[2] + 0.1, hi[3], hi[4], hi[5]))
    mouth = get_opening(state, env, "mug")
    if mouth is None:
        return False
    x, y, r, floor, rim = mouth
    end = get_lower_end(state, env, name)
    into = math.hypot(end[0] - x, end[1] - y) <= r + 0.01 and floor - 0.015 < end[2] < rim - 0.03
    return position_within_bounds(get_obj_center(state, env, name), b) and into

def mug_placed():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "mug", "table")
    b = modify_pose_bounds_to_be_near_object(state, env, b, "mustard_bottle", 0.15)
    upright = abs(mug.pose.roll) < 0.2 and abs(mug.pose.pitch) < 0.2
    return position_within_bounds(get_obj_center(state, env, "mug"), b) and upright

def goal_check0():
    return in_mug("fork")

def goal_check1():
    return in_mug("knife")

def goal_check2():
    return mug_placed()

def action_check1():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "orange", "table")
    olo, ohi = get_aabb_bounds(state, env, "orange")
    mlo, mhi = get_aabb_bounds(state, env, "mug")
    clear = ohi[0] < mlo[0] or olo[0] > mhi[0] or ohi[1] < mlo[1] or olo[1] > mhi[1]
    return position_within_bounds(get_obj_center(state, env, "orange"), b) and clear

def action_check3():
    return mug_placed()

def action_check5():
    return in_mug("fork") and mug_placed()

def action_check7():
    return in_mug("fork") and in_mug("knife") and mug_placed()
```
"""

TASK = Task(
    name="mug2",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=8,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
