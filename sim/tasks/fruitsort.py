"""FruitSort: every fruit to the left of the red line that bisects the table.

Fixed: the red line along x through the table's centre (y = 0). Seeded: the three fruit (pear,
strawberry, apple) start right of the line (y < 0, nearer the robot's right hand); the sugar box,
hammer and soup can anywhere in reach. "Left" is larger y, seen from the robot. Success: every
fruit's centre is left of the line and it rests on the table (or the line), not in the gripper.
"""

from __future__ import annotations

from sim import catalog
from sim.catalog.layout import REACH
from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, new_layout, not_held, put, xy
from sim.world import SimWorld

INSTRUCTION = "Put all the fruit to the left of the line bisecting the table"
FRUIT = ("pear", "strawberry", "apple")
RIGHT_HALF = (REACH[0], (REACH[1][0], -0.06))  # m


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "red_line", at=catalog.TABLE_CENTRE)
    for kind in FRUIT:
        put(world, layout, kind, area=RIGHT_HALF)
    for kind in ("sugar_box", "hammer", "tomato_soup_can"):
        put(world, layout, kind)
    world.settle(0.5)


def detect(world: SimWorld) -> Verdict:
    line_left = world.object_states()["red_line"].aabb()[1][1]
    checks = []
    for f in FRUIT:
        pose = world.pose(f)
        checks.append(
            (
                pose.y > line_left,
                f"the {f} at {xy(pose)} is not left of the red line (y > {line_left:.3f})",
            )
        )
        checks.append(
            (
                world.contacts(f, "table") or world.contacts(f, "red_line"),
                f"the {f} is not resting on the table",
            )
        )
    checks += not_held(world, *FRUIT)
    return first_failure(checks, "every fruit is left of the red line, on the table")


ORACLE_SKETCH = """\
A red line runs along the middle of the table, away from the robot. The fruits are the pear, the
strawberry and the apple, all on the right of the line; the sugar box, the hammer and the tomato
soup can are not fruit and stay where they are. Left of the line means larger y.

Plan:
pick(pear); grasp the pear
place_ontop(pear, table); put the pear down on the table left of the red line
pick(strawberry); grasp the strawberry
place_ontop(strawberry, table); put the strawberry down on the table left of the red line
pick(apple); grasp the apple
place_ontop(apple, table); put the apple down on the table left of the red line
achieve_goal(pear, strawberry, apple, red_line); every fruit is on the table left of the red line
"""

ORACLE_CHECKERS = """\
```python
def left_of_line(name):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, "table")
    b = modify_pose_bounds_to_be_left_of_object(state, env, b, "red_line")
    return position_within_bounds(get_obj_center(state, env, name), b)

def goal_check0():
    return left_of_line("pear")

def goal_check1():
    return left_of_line("strawberry")

def goal_check2():
    return left_of_line("apple")

def action_check1():
    return left_of_line("pear")

def action_check3():
    return left_of_line("strawberry") and left_of_line("pear")

def action_check5():
    return left_of_line("apple") and left_of_line("strawberry") and left_of_line("pear")
```
"""

TASK = Task(
    name="fruitsort",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=6,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
