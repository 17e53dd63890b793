"""Everyday container tasks: a can into a bin, tall things into shallow containers, fruit into a
bin, a spoon into the utensil holder, sorting blocks into bins by colour, two things in the front
half of a pan.

Success: each named thing's lowest point lies in the container's cavity (sim/tasks/common.is_inside),
the container upright and nothing held.
"""

from __future__ import annotations

from sim.tasks import Task, Verdict
from sim.tasks.common import (
    cavity_centre,
    first_failure,
    is_inside,
    is_upright,
    new_layout,
    not_held,
    put,
)
from sim.tasks.everyday.common import checkers, sketch
from sim.world import SimWorld

NEAR = ((0.35, 0.5), (-0.3, 0.3))  # where the things to move start: the near part of the table
INSIDE = """def into(name, box):
    b = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, name, box)
    return position_within_bounds(get_obj_center(state, env, name), b) and is_in_opening(state, env, name, box)
"""


def _inside_verdict(world: SimWorld, pairs: list[tuple[str, str]]) -> Verdict:
    checks = [(is_inside(world, o, c), f"the {o} is not inside the {c}") for o, c in pairs]
    containers = sorted({c for _, c in pairs})
    checks += [(is_upright(world, c), f"the {c} is not upright") for c in containers]
    checks += not_held(world, *(o for o, _ in pairs))
    return first_failure(checks, ", ".join(f"the {o} is in the {c}" for o, c in pairs))


def _into_task(
    name: str,
    instruction: str,
    container: tuple[str, str | None, tuple[float, float]],
    things: list[str],
    scene: str,
    how: str = "lower it in, standing",
) -> Task:
    kind, colour, at = container

    def build(world: SimWorld, seed: int) -> None:
        layout = new_layout(seed)
        put(world, layout, kind, colour=colour, at=at)
        for thing in things:
            put(world, layout, thing, area=NEAR)
        world.settle(0.5)

    pairs = [(t, kind) for t in things]
    steps = []
    actions = {}
    for i, t in enumerate(things):
        steps += [
            (f"pick({t})", f"grasp the {t.replace('_', ' ')}"),
            (f"place_inside({t}, {kind})", how),
        ]
        actions[2 * i + 1] = " and ".join(f"into({u!r}, {kind!r})" for u in things[: i + 1])
    return Task(
        name=name,
        instruction=instruction,
        build=build,
        detect=lambda world: _inside_verdict(world, pairs),
        optimal_length=2 * len(things),
        oracle_sketch=sketch(
            scene,
            steps,
            f"achieve_goal({', '.join(things)}, {kind}); all of them are inside the {kind}",
        ),
        oracle_checkers=checkers(INSIDE, [f"into({t!r}, {kind!r})" for t in things], actions),
    )


CAN_IN_BIN = _into_task(
    "can_in_bin",
    "put the potted meat can into the bin",
    ("bin", None, (0.62, 0.12)),
    ["potted_meat_can"],
    "A grey open bin stands at the back of the table; the potted meat can stands near the robot.",
)
CARTON_IN_PAN = _into_task(
    "carton_in_pan",
    "put the milk carton in the frying pan",
    ("skillet", None, (0.6, 0.08)),
    ["milk_carton"],
    "A frying pan, only 4 cm deep, and a tall milk carton. The carton stands in the pan, sticking out.",
)
BOTTLE_IN_SAUCEPAN = _into_task(
    "bottle_in_saucepan",
    "stand the water bottle in the saucepan",
    ("saucepan", None, (0.6, 0.05)),
    ["water_bottle"],
    "A saucepan and a water bottle taller than the pan is deep.",
)
SPOON_IN_HOLDER = _into_task(
    "spoon_in_holder",
    "put the spoon into the utensil holder",
    ("utensil_holder", None, (0.6, 0.1)),
    ["spoon"],
    "A utensil holder (a tall open cup) and a spoon lying on the table.",
    how="stand the spoon in the holder, handle down or bowl down",
)
FRUIT_IN_BIN = _into_task(
    "fruit_in_bin",
    "put the banana and the lime into the bin",
    ("bin", None, (0.62, 0.0)),
    ["banana", "lime"],
    "An open bin at the back of the table, a banana and a lime near the robot.",
    how="lower it into the bin, clear of what is already there",
)


def _front_half_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "skillet", at=(0.62, 0.05))
    for thing in ("lime", "egg", "strawberry"):
        put(world, layout, thing, area=NEAR)
    world.settle(0.5)


def _front_half_detect(world: SimWorld) -> Verdict:
    x = cavity_centre(world, "skillet")[0]
    checks = [
        (is_inside(world, t, "skillet"), f"the {t} is not in the pan") for t in ("lime", "egg")
    ]
    checks += [
        (world.pose(t).x < x - 0.005, f"the {t} is not in the front half of the pan")
        for t in ("lime", "egg")
    ]
    checks += [(not is_inside(world, "strawberry", "skillet"), "the strawberry was put in the pan")]
    return first_failure(
        checks + not_held(world, "lime", "egg"), "the lime and the egg are in the pan's front half"
    )


FRONT = """def front_half(name):
    b = get_part_bounds(state, env, "skillet", "front")
    return position_within_bounds(get_obj_center(state, env, name), b) and is_in_opening(state, env, name, "skillet")
"""

PAN_FRONT_HALF = Task(
    name="pan_front_half",
    instruction="put the lime and the egg in the front half of the frying pan",
    build=_front_half_build,
    detect=_front_half_detect,
    optimal_length=4,
    oracle_sketch=sketch(
        "A frying pan at the back; a lime, an egg and a strawberry near the robot. Front means the "
        "half of the pan nearer the robot.",
        [
            ("pick(lime)", "grasp the lime"),
            (
                "place_inside(lime, skillet)",
                "put it in the pan's half nearer the robot, to one side",
            ),
            ("pick(egg)", "grasp the egg"),
            ("place_inside(egg, skillet)", "put it in the pan's front half beside the lime"),
        ],
        "achieve_goal(lime, egg, skillet); both are in the front half of the pan",
    ),
    oracle_checkers=checkers(
        FRONT,
        ['front_half("lime")', 'front_half("egg")'],
        {1: 'front_half("lime")', 3: 'front_half("lime") and front_half("egg")'},
    ),
)

BLOCKS = ("red", "blue")


def _sort_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "bin", "red_bin", colour="red", at=(0.64, 0.19))
    put(world, layout, "bin", "blue_bin", colour="blue", at=(0.64, -0.19))
    for i, colour in enumerate(BLOCKS * 2):
        put(world, layout, "block", f"{colour}_block_{i // 2 + 1}", colour=colour, area=NEAR)
    world.settle(0.5)


SORT_PAIRS = [(f"{c}_block_{k}", f"{c}_bin") for k in (1, 2) for c in BLOCKS]


def _sort_steps() -> tuple[list[tuple[str, str]], dict[int, str]]:
    steps, actions = [], {}
    for i, (b, bin_) in enumerate(SORT_PAIRS):
        steps += [
            (f"pick({b})", f"grasp the {b.replace('_', ' ')}"),
            (f"place_inside({b}, {bin_})", "drop it in"),
        ]
        actions[2 * i + 1] = " and ".join(f"into({o!r}, {c!r})" for o, c in SORT_PAIRS[: i + 1])
    return steps, actions


SORT_BINS = Task(
    name="sort_bins",
    instruction="sort the blocks into the bins by colour",
    build=_sort_build,
    detect=lambda world: _inside_verdict(world, SORT_PAIRS),
    optimal_length=8,
    oracle_sketch=sketch(
        "A red bin and a blue bin at the back; two red and two blue blocks near the robot. Each block "
        "goes into the bin of its colour.",
        _sort_steps()[0],
        "achieve_goal(red_block_1, red_block_2, blue_block_1, blue_block_2); each block is in the bin "
        "of its colour",
    ),
    oracle_checkers=checkers(
        INSIDE, [f"into({o!r}, {c!r})" for o, c in SORT_PAIRS], _sort_steps()[1]
    ),
)

EGG_IN_BOWL = _into_task(
    "egg_in_bowl",
    "put the egg in the bowl",
    ("bowl", None, (0.62, 0.1)),
    ["egg"],
    "A bowl and an egg.",
    how="lower it gently into the bowl",
)
LIME_IN_MUG = _into_task(
    "lime_in_mug",
    "put the lime in the mug",
    ("mug", None, (0.62, -0.05)),
    ["lime"],
    "A mug standing upright and a lime small enough to fit through its opening.",
    how="drop it in through the opening",
)

TASKS = (
    EGG_IN_BOWL,
    LIME_IN_MUG,
    CAN_IN_BIN,
    CARTON_IN_PAN,
    BOTTLE_IN_SAUCEPAN,
    SPOON_IN_HOLDER,
    FRUIT_IN_BIN,
    PAN_FRONT_HALF,
    SORT_BINS,
)
