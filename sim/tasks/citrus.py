"""Citrus: pack the citrus fruit (the lemon and the orange) onto the plate.

Fixed: the plate at the table's centre. Seeded: the spots and yaws of the six fruit, off the plate.
Success: the lemon and the orange rest on the plate and no other fruit does.
"""

from __future__ import annotations

from sim import catalog
from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, new_layout, not_held, put, rests_on
from sim.world import SimWorld

INSTRUCTION = "pack the citrus fruit onto the plate"
CITRUS = ("lemon", "orange")
OTHERS = ("strawberry", "apple", "pear", "plum")


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "plate", at=catalog.TABLE_CENTRE)
    for kind in ("strawberry", "apple", "pear", "lemon", "orange", "plum"):
        put(world, layout, kind)
    world.settle(0.5)


def detect(world: SimWorld) -> Verdict:
    checks = [(rests_on(world, f, "plate"), f"the {f} is not resting on the plate") for f in CITRUS]
    checks += [
        (not rests_on(world, f, "plate"), f"the {f} is on the plate but is not citrus")
        for f in OTHERS
    ]
    checks += not_held(world, *CITRUS)
    return first_failure(checks, "the lemon and the orange rest on the plate, no other fruit does")


ORACLE_SKETCH = """\
A white plate is in the middle of the table with six fruits around it: a strawberry, an apple, a
pear, a lemon, an orange and a plum. The citrus fruits are the lemon and the orange; the others
must stay off the plate. Nothing is on the plate, so there are no obstacles.

Plan:
pick(lemon); grasp the lemon
place_ontop(lemon, plate); put the lemon on the plate, to one side so the orange still fits
pick(orange); grasp the orange
place_ontop(orange, plate); put the orange on the plate next to the lemon
achieve_goal(lemon, orange, plate); both citrus fruits rest on the plate
"""

ORACLE_CHECKERS = """\
```python
def on_plate(name):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, "plate")
    c = get_obj_center(state, env, name)
    p = get_obj_center(state, env, "plate")
    round_enough = (c[0] - p[0]) ** 2 + (c[1] - p[1]) ** 2 < 0.09 ** 2
    return position_within_bounds(c, b) and round_enough

def goal_check0():
    return on_plate("lemon")

def goal_check1():
    return on_plate("orange")

def action_check1():
    return on_plate("lemon")

def action_check3():
    return on_plate("lemon") and on_plate("orange")
```
"""

TASK = Task(
    name="citrus",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=4,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
