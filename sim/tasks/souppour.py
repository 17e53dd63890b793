"""SoupPour: the apple and the peach onto the white mat (peach right of the apple), and
the soup poured into the red bowl.

Fixed: the white mat (14 × 20 cm) at (0.50, −0.12) with the open tomato soup can (the soup ball
inside) and the potted meat can standing on it, covering it; the red bowl at (0.55, 0.18). Seeded:
the apple's and the peach's spots and yaws, clear of the rest. "Right" is smaller y, seen from the
robot. Success: apple and peach rest on the mat, peach right of apple, the soup in the bowl.
"""

from __future__ import annotations

from sim.catalog.containers import tomato_soup_can
from sim.catalog.markers import THICKNESS
from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, is_inside, new_layout, not_held, put, rests_on
from sim.world import SimWorld

INSTRUCTION = (
    "Serve the fruits on the white mat (make sure the peach is to the right of the apple) and pour soup "
    "into the red container"
)
MAT_AT = (0.50, -0.12)  # m
SOUP_CAN_AT = (0.50, -0.07)
MEAT_CAN_AT = (0.50, -0.17)
BOWL_AT = (0.55, 0.18)


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "white_mat", at=MAT_AT)
    put(world, layout, "tomato_soup_can", at=SOUP_CAN_AT, support_z=THICKNESS)
    floor = tomato_soup_can().extra["cavity"]["bottom"]
    put(world, layout, "soup", at=SOUP_CAN_AT, support_z=THICKNESS + floor + 0.001)
    put(world, layout, "potted_meat_can", at=MEAT_CAN_AT, support_z=THICKNESS)
    put(world, layout, "bowl", at=BOWL_AT, colour="red")
    put(world, layout, "apple")
    put(world, layout, "peach")
    world.settle(1.0)


def detect(world: SimWorld) -> Verdict:
    a, pch = world.pose("apple"), world.pose("peach")
    checks = [
        (rests_on(world, f, "white_mat"), f"the {f} is not resting on the white mat")
        for f in ("apple", "peach")
    ]
    checks.append(
        (pch.y < a.y, f"the peach (y={pch.y:.3f}) is not right of the apple (y={a.y:.3f})")
    )
    checks.append((is_inside(world, "soup", "bowl"), "the soup is not in the red bowl"))
    checks += not_held(world, "apple", "peach")
    return first_failure(
        checks,
        "apple and peach are on the mat, peach right of apple, and the soup is in the red bowl",
    )


ORACLE_SKETCH = """\
A white mat is on the right of the table; the opened tomato soup can (with soup in it) and the
potted meat can stand on it and cover it. The red container is the bowl on the left. The apple and
the peach are on the table. The soup is poured from its can into the bowl, then both cans are set
down off the mat, then the apple and, to its right (smaller y), the peach go on the mat.

Plan:
pick(tomato_soup_can); grasp the soup can upright so the soup stays in
pour(tomato_soup_can, bowl); hold the can over the red bowl and tip it upside down so the soup falls in
place_ontop(tomato_soup_can, table); put the empty can on the table away from the mat
pick(potted_meat_can); grasp the meat can standing on the mat
place_ontop(potted_meat_can, table); put the meat can on the table away from the mat
pick(apple); grasp the apple
place_ontop(apple, white_mat); put the apple on the left part of the mat, leaving room on its right
pick(peach); grasp the peach
place_ontop(peach, white_mat); put the peach on the mat to the right of the apple
achieve_goal(apple, peach, white_mat, soup, bowl); apple and peach on the mat, the peach right of the apple; soup in the bowl
"""

ORACLE_CHECKERS = """\
```python
def on_mat(name):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, "white_mat")
    return position_within_bounds(get_obj_center(state, env, name), b)

def off_mat(name):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, "table")
    lo, hi = get_aabb_bounds(state, env, name)
    mlo, mhi = get_aabb_bounds(state, env, "white_mat")
    clear = hi[0] + 0.03 < mlo[0] or lo[0] - 0.03 > mhi[0] or hi[1] + 0.03 < mlo[1] or lo[1] - 0.03 > mhi[1]
    return position_within_bounds(get_obj_center(state, env, name), b) and clear

def soup_in_bowl():
    # over the bowl and lying on its floor, not on the table beside it
    b = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, "soup", "bowl")
    lo, hi = get_aabb_bounds(state, env, "soup")
    blo, bhi = get_aabb_bounds(state, env, "bowl")
    return position_within_bounds(get_obj_center(state, env, "soup"), b) and lo[2] > blo[2] + 0.004

def goal_check0():
    return on_mat("apple")

def goal_check1():
    b = modify_pose_bounds_to_be_right_of_object(state, env, init_bounds, "apple")
    return on_mat("peach") and position_within_bounds(get_obj_center(state, env, "peach"), b)

def goal_check2():
    return soup_in_bowl()

def action_check1():
    b = modify_pose_bounds_to_be_above_object(state, env, init_bounds, "bowl")
    tipped = math.cos(tomato_soup_can.pose.roll) * math.cos(tomato_soup_can.pose.pitch) < -0.55  # past ~125°
    return position_within_bounds(get_obj_center(state, env, "tomato_soup_can"), b) and tipped and soup_in_bowl()

def action_check2():
    return off_mat("tomato_soup_can")

def action_check4():
    return off_mat("potted_meat_can")

def action_check6():
    return on_mat("apple") and get_obj_center(state, env, "apple")[1] > get_obj_center(state, env, "white_mat")[1]

def action_check8():
    return goal_check0() and goal_check1() and goal_check2()
```
"""

TASK = Task(
    name="souppour",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=10,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
