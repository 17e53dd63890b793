"""BerryCook: the strawberry into the pan first, then into the bowl, and only the bowl at the end.

Fixed: the skillet (pan) on the left, its handle towards the left edge, and a white bowl on the
right. Seeded: the strawberry's spot and yaw, clear of both. The detector watches the run through
`observe` (called after every executed step) and notes whether the strawberry ever lay in the pan;
success needs that visit, the strawberry in the bowl at the end, and not in the pan.
"""

from __future__ import annotations

import math

from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, held, is_inside, new_layout, not_held, notes, put
from sim.world import SimWorld

INSTRUCTION = (
    "Cook the strawberry by putting it in the pan, then finally simply place it in the bowl. "
    "The strawberry should only be in the bowl at the end!"
)
SKILLET_AT = (0.52, 0.17 + 0.0615)  # m: the pan's centre at (0.52, 0.17), the handle along +y
BOWL_AT = (0.52, -0.17)  # m


def build(world: SimWorld, seed: int) -> None:
    notes(world).clear()
    notes(world)["visited_skillet"] = False
    layout = new_layout(seed)
    put(world, layout, "skillet", at=SKILLET_AT, yaw=math.pi / 2)
    put(world, layout, "bowl", at=BOWL_AT)
    put(world, layout, "strawberry")
    world.settle(0.5)


def in_pan(world: SimWorld) -> bool:
    """The strawberry lies in the skillet (its lowest point inside, touching it, not held)."""
    return (
        is_inside(world, "strawberry", "skillet")
        and world.contacts("strawberry", "skillet")
        and not held(world, "strawberry")
    )


def observe(world: SimWorld) -> None:
    if in_pan(world):
        notes(world)["visited_skillet"] = True


def detect(world: SimWorld) -> Verdict:
    observe(world)
    checks = [
        (notes(world).get("visited_skillet", False), "the strawberry was never put in the pan"),
        (
            not world.contacts("strawberry", "skillet"),
            "the strawberry is still in (touching) the pan at the end",
        ),
        (
            is_inside(world, "strawberry", "bowl") and world.contacts("strawberry", "bowl"),
            "the strawberry is not in the bowl",
        ),
    ]
    checks += not_held(world, "strawberry")
    return first_failure(checks, "the strawberry was cooked in the pan and ends in the bowl only")


ORACLE_SKETCH = """\
There is a strawberry on the table, a skillet (the pan) on the left and a bowl on the right. The
strawberry must first go into the pan to be cooked, then be taken out again and put in the bowl, so
that at the end it is only in the bowl.

Plan:
pick(strawberry); grasp the strawberry from the table
place_inside(strawberry, skillet); put the strawberry into the pan, on its flat bottom, to cook it
pick(strawberry); take the cooked strawberry back out of the pan
place_inside(strawberry, bowl); put the strawberry into the bowl
achieve_goal(strawberry, bowl, skillet); the strawberry is in the bowl and no longer in the pan
"""

ORACLE_CHECKERS = """\
```python
def in_container(name, container):
    # over the container and resting on its floor, not on the table beside it
    b = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, name, container)
    lo, hi = get_aabb_bounds(state, env, name)
    clo, chi = get_aabb_bounds(state, env, container)
    return position_within_bounds(get_obj_center(state, env, name), b) and lo[2] > clo[2] + 0.004

def goal_check0():
    return in_container("strawberry", "bowl")

def goal_check1():
    return not in_container("strawberry", "skillet")

def action_check1():
    return in_container("strawberry", "skillet")

def action_check3():
    return in_container("strawberry", "bowl") and not in_container("strawberry", "skillet")
```
"""

TASK = Task(
    name="berrycook",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=4,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
    observe=observe,
)
