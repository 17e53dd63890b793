"""The scaling family: the same goal on tables of N objects, to measure how planning cost grows with
clutter (`owl-bt bench --tasks scaling`).

Task `scaling-n<N>` puts N objects on the table: a plate fixed at the table's centre, the three fruit
the goal moves (a strawberry, a plum and a peach: seeded spots in the arm's reach) and N − 4
distractors, the objects the goal leaves alone, on seeded spots anywhere on the table (data:
`DISTRACTOR_KINDS`, taken in turn and numbered, e.g. `apple_1`). The goal is the same for every N:
put the three fruit on the plate. Success: the three fruit rest on the plate, no distractor does, and
the gripper holds nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from sim import catalog
from sim.catalog.layout import TABLE_XY
from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, new_layout, not_held, put, rests_on
from sim.world import SimWorld

SIZES = (4, 8, 16, 24)  # N: objects on the table, the plate and the moved fruit included
MOVED = ("strawberry", "plum", "peach")
# what the distractors are, in turn (kinds a robot can pick, none of the moved fruit's kinds)
DISTRACTOR_KINDS = (
    "apple",
    "tomato_soup_can",
    "lemon",
    "sponge",
    "orange",
    "golf_ball",
    "pear",
    "potted_meat_can",
    "mug",
    "fork",
)
INSTRUCTION = "put the strawberry, the plum and the peach on the plate"


def distractors(n: int) -> list[tuple[str, str]]:
    """(kind, name) of the N − 4 distractors of a table of `n` objects, e.g. ("apple", "apple_1")."""
    count = n - 1 - len(MOVED)
    out = []
    for i in range(count):
        kind = DISTRACTOR_KINDS[i % len(DISTRACTOR_KINDS)]
        out.append((kind, f"{kind}_{i // len(DISTRACTOR_KINDS) + 1}"))
    return out


def _builder(n: int) -> Callable[[SimWorld, int], None]:
    def build(world: SimWorld, seed: int) -> None:
        layout = new_layout(seed)
        put(world, layout, "plate", at=catalog.TABLE_CENTRE)
        for kind in MOVED:
            put(world, layout, kind)  # in the arm's reach
        for kind, name in distractors(n):
            put(world, layout, kind, name, area=TABLE_XY)  # anywhere on the table
        world.settle(0.5)

    return build


def _detector(n: int) -> Callable[[SimWorld], Verdict]:
    def detect(world: SimWorld) -> Verdict:
        checks = [
            (rests_on(world, f, "plate"), f"the {f} is not resting on the plate") for f in MOVED
        ]
        checks += [
            (not rests_on(world, name, "plate"), f"{name} is on the plate and was not to be moved")
            for _, name in distractors(n)
        ]
        checks += not_held(world, *MOVED)
        return first_failure(checks, "the strawberry, the plum and the peach rest on the plate")

    return detect


def _sketch(n: int) -> str:
    others = ", ".join(name for _, name in distractors(n)) or "nothing else"
    return f"""\
A white plate is in the middle of a table of {n} objects. The goal moves three fruit onto the
plate: the strawberry, the plum and the peach. The other objects stay where they are: {others}.
Nothing is on the plate.

Plan:
pick(strawberry); grasp the strawberry
place_ontop(strawberry, plate); put it on the plate, to one side
pick(plum); grasp the plum
place_ontop(plum, plate); put it on the plate beside the strawberry
pick(peach); grasp the peach
place_ontop(peach, plate); put it on the plate in the space left
achieve_goal(strawberry, plum, peach, plate); the three fruit rest on the plate
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
    return on_plate("strawberry")

def goal_check1():
    return on_plate("plum")

def goal_check2():
    return on_plate("peach")

def action_check1():
    return on_plate("strawberry")

def action_check3():
    return on_plate("strawberry") and on_plate("plum")

def action_check5():
    return on_plate("strawberry") and on_plate("plum") and on_plate("peach")
```
"""


def task(n: int) -> Task:
    """The scaling task with `n` objects on the table (n ≥ 4)."""
    if n < 1 + len(MOVED):
        raise ValueError(f"a scaling table holds at least {1 + len(MOVED)} objects, got {n}")
    return Task(
        name=f"scaling-n{n}",
        instruction=INSTRUCTION,
        build=_builder(n),
        detect=_detector(n),
        optimal_length=2 * len(MOVED),
        oracle_sketch=_sketch(n),
        oracle_checkers=ORACLE_CHECKERS,
        objects=n,
        moved=len(MOVED),
    )


FAMILY: tuple[Task, ...] = tuple(task(n) for n in SIZES)
