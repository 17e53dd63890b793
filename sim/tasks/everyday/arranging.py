"""Everyday arranging tasks: cutlery set straight with tips forward beside a plate, a block stacked
on a can, things put on a scale or a cutting board (or on one half of it), and "put X where Y was".

Success is judged on the simulator's ground truth: resting on the named support (touching it, centre
over it), lying flat, ends pointing as asked (the catalogue's ENDS data), nothing held.
"""

from __future__ import annotations

import math

from sim.tasks import Task, Verdict
from sim.tasks.common import first_failure, new_layout, not_held, put, rests_on
from sim.tasks.everyday.common import (
    STRAIGHT,
    checkers,
    end_direction,
    lies_flat,
    remember_start,
    sketch,
    start_of,
)
from sim.world import SimWorld

PLATE_AT = (0.55, 0.0)
NEAR = ((0.35, 0.5), (-0.3, 0.3))


def _cutlery_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "plate", at=PLATE_AT)
    for thing in ("fork", "knife"):
        put(world, layout, thing, area=NEAR)
    world.settle(0.5)


def _beside(world: SimWorld, name: str, side: int) -> bool:
    """Is the object beside the plate on `side` (+1 the robot's left, -1 its right): clear of the
    plate's edge, within 12 cm of it, and level with it along x?"""
    p, q = world.pose("plate"), world.pose(name)
    off = side * (q.y - p.y)
    return 0.11 < off < 0.23 and abs(q.x - p.x) < 0.1


def _cutlery_detect(world: SimWorld) -> Verdict:
    checks = []
    for name, side, word in (("fork", 1, "left"), ("knife", -1, "right")):
        checks += [
            (rests_on(world, name, "table"), f"the {name} is not lying on the table"),
            (lies_flat(world, name), f"the {name} is not lying flat"),
            (_beside(world, name, side), f"the {name} is not just {word} of the plate"),
            (
                end_direction(world, name, "front")[0] >= math.cos(STRAIGHT),
                f"the {name} is not straight with its tip pointing away from the robot",
            ),
        ]
    return first_failure(
        checks + not_held(world, "fork", "knife"),
        "the fork lies left and the knife right of the plate, straight, tips forward",
    )


CUTLERY = """def set_beside(name, side):
    p = get_obj_center(state, env, "plate")
    c = get_obj_center(state, env, name)
    b = modify_pose_bounds_to_be_near_object(state, env, init_bounds, "plate", 0.1)
    if side == "left":
        b = modify_pose_bounds_to_be_left_of_object(state, env, b, "plate")
    else:
        b = modify_pose_bounds_to_be_right_of_object(state, env, b, "plate")
    level = abs(c[0] - p[0]) < 0.08 and is_upright(state, env, name)
    forward = is_straight(state, env, name) and points_towards(state, env, name, "front", (1, 0, 0))
    return position_within_bounds(c, b) and level and forward
"""

CUTLERY_STRAIGHT = Task(
    name="cutlery_straight",
    instruction="lay the fork left of the plate and the knife right of it, both straight with their "
    "tips pointing away from me",
    build=_cutlery_build,
    detect=_cutlery_detect,
    optimal_length=4,
    oracle_sketch=sketch(
        "A plate in the middle, a fork and a knife lying near the robot. Left and right are the "
        "robot's; tips away means the tines and the blade point along +x.",
        [
            ("pick(fork)", "grasp the fork"),
            ("place_ontop(fork, table)", "lay it flat left of the plate, straight, tines away"),
            ("pick(knife)", "grasp the knife"),
            ("place_ontop(knife, table)", "lay it flat right of the plate, straight, blade away"),
        ],
        "achieve_goal(fork, knife, plate); fork left, knife right of the plate, straight, tips away",
    ),
    oracle_checkers=checkers(
        CUTLERY,
        ['set_beside("fork", "left")', 'set_beside("knife", "right")'],
        {
            1: 'set_beside("fork", "left")',
            3: 'set_beside("fork", "left") and set_beside("knife", "right")',
        },
    ),
)


def _on_task(
    name: str,
    instruction: str,
    support: tuple[str, tuple[float, float]],
    things: list[str],
    scene: str,
    part: str = "",
) -> Task:
    kind, at = support

    def build(world: SimWorld, seed: int) -> None:
        layout = new_layout(seed)
        put(world, layout, kind, at=at)
        for thing in things:
            put(world, layout, thing, area=NEAR)
        world.settle(0.5)

    def detect(world: SimWorld) -> Verdict:
        checks = [
            (rests_on(world, t, kind), f"the {t} is not resting on the {kind}") for t in things
        ]
        if part == "left":
            checks += [
                (
                    world.pose(t).y > world.pose(kind).y,
                    f"the {t} is not on the left half of the {kind}",
                )
                for t in things
            ]
        return first_failure(
            checks + not_held(world, *things),
            ", ".join(f"the {t} rests on the {kind}" for t in things),
        )

    helper = (
        f"""def on(name):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, {kind!r})
    c = get_obj_center(state, env, name)
    half = get_part_bounds(state, env, {kind!r}, {part!r})
    inside_half = all(half[0][i] <= c[i] <= half[1][i] for i in (0, 1))
    return position_within_bounds(c, b) and inside_half
"""
        if part
        else f"""def on(name):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, {kind!r})
    return position_within_bounds(get_obj_center(state, env, name), b)
"""
    )
    steps, actions = [], {}
    for i, t in enumerate(things):
        where = f"on the {part} half of the {kind}" if part else f"on the {kind}"
        steps += [
            (f"pick({t})", f"grasp the {t.replace('_', ' ')}"),
            (f"place_ontop({t}, {kind})", f"set it {where}"),
        ]
        actions[2 * i + 1] = " and ".join(f"on({u!r})" for u in things[: i + 1])
    return Task(
        name=name,
        instruction=instruction,
        build=build,
        detect=detect,
        optimal_length=2 * len(things),
        oracle_sketch=sketch(
            scene, steps, f"achieve_goal({', '.join(things)}, {kind}); on the {kind}"
        ),
        oracle_checkers=checkers(helper, [f"on({t!r})" for t in things], actions),
    )


LIME_ON_SCALE = _on_task(
    "lime_on_scale",
    "weigh the lime: put it on the kitchen scale",
    ("kitchen_scale", (0.6, 0.1)),
    ["lime"],
    "A flat kitchen scale and a lime; the lime goes on the scale's platform.",
)
BLOCK_ON_CAN = _on_task(
    "block_on_can",
    "put the block on top of the potted meat can",
    ("potted_meat_can", (0.6, 0.0)),
    ["block"],
    "A potted meat can stands upright; its flat lid can carry the block.",
)
BOARD_LEFT_HALF = _on_task(
    "board_left_half",
    "put the egg and the lime on the left half of the cutting board",
    ("cutting_board", (0.6, 0.0)),
    ["egg", "lime"],
    "A cutting board at the back; an egg and a lime near the robot. Left is the robot's left.",
    part="left",
)
BANANA_ON_BOARD = _on_task(
    "banana_on_board",
    "put the banana on the cutting board",
    ("cutting_board", (0.6, -0.05)),
    ["banana"],
    "A cutting board and a banana.",
)


def _where_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "plate", at=(0.62, -0.12))
    for thing in ("lime", "egg"):
        put(world, layout, thing, area=((0.38, 0.5), (0.0, 0.3)))
    world.settle(0.5)
    remember_start(world, "lime", "egg")


def _where_detect(world: SimWorld) -> Verdict:
    was = start_of(world, "lime")
    egg = world.pose("egg")
    checks = [
        (rests_on(world, "lime", "plate"), "the lime is not on the plate"),
        (math.dist(was[:2], (egg.x, egg.y)) <= 0.03, "the egg is not where the lime was"),
        (rests_on(world, "egg", "table"), "the egg is not on the table"),
    ]
    return first_failure(checks + not_held(world, "lime", "egg"), "the egg lies where the lime was")


WHERE = """def lime_on_plate():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "lime", "plate")
    return position_within_bounds(get_obj_center(state, env, "lime"), b)

def egg_where_lime_was():
    spot = get_bounds_around_point(init_state, env, get_obj_center(init_state, env, "lime"), 0.02)
    return position_within_bounds(get_obj_center(state, env, "egg"), spot)
"""

WHERE_WAS = Task(
    name="where_was",
    instruction="put the lime on the plate, then put the egg where the lime was",
    build=_where_build,
    detect=_where_detect,
    optimal_length=4,
    oracle_sketch=sketch(
        "A plate, a lime and an egg. The lime's spot at the start is where the egg must end up.",
        [
            ("pick(lime)", "grasp the lime"),
            ("place_ontop(lime, plate)", "set it on the plate"),
            ("pick(egg)", "grasp the egg"),
            ("place_ontop(egg, table)", "set it down where the lime was at the start"),
        ],
        "achieve_goal(lime, egg); the lime is on the plate and the egg where the lime was",
    ),
    oracle_checkers=checkers(
        WHERE,
        ["lime_on_plate()", "egg_where_lime_was()"],
        {1: "lime_on_plate()", 3: "lime_on_plate() and egg_where_lime_was()"},
    ),
)

BOARD_BACK_HALF = _on_task(
    "board_back_half",
    "put the lime on the back half of the cutting board",
    ("cutting_board", (0.6, 0.0)),
    ["lime"],
    "A cutting board and a lime; the back half is the half farther from the robot.",
    part="back",
)
CARTON_ON_SCALE = _on_task(
    "carton_on_scale",
    "weigh the milk carton on the kitchen scale",
    ("kitchen_scale", (0.62, -0.05)),
    ["milk_carton"],
    "A kitchen scale and a milk carton standing up; the carton stands on the scale's platform.",
)
SPONGE_ON_CAN = _on_task(
    "sponge_on_can",
    "put the sponge on top of the potted meat can",
    ("potted_meat_can", (0.6, 0.05)),
    ["sponge"],
    "A potted meat can and a sponge; the sponge goes on the can's flat lid.",
)


def _bottle_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "water_bottle", roll=math.pi / 2, area=((0.45, 0.6), (-0.2, 0.2)))
    world.settle(0.5)


def _bottle_detect(world: SimWorld) -> Verdict:
    checks = [
        (rests_on(world, "water_bottle", "table"), "the water bottle is not on the table"),
        (lies_flat(world, "water_bottle"), "the water bottle is not standing upright"),
    ]
    return first_failure(
        checks + not_held(world, "water_bottle"), "the water bottle stands upright"
    )


BOTTLE_UPRIGHT = Task(
    name="bottle_upright",
    instruction="stand the water bottle up",
    build=_bottle_build,
    detect=_bottle_detect,
    optimal_length=2,
    oracle_sketch=sketch(
        "A water bottle lies on its side on the table.",
        [
            ("pick(water_bottle)", "grasp the bottle lying down"),
            ("place_ontop(water_bottle, table)", "stand it upright on its base, cap up"),
        ],
        "achieve_goal(water_bottle); the bottle stands upright on the table",
    ),
    oracle_checkers=checkers(
        """def standing():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "water_bottle", "table")
    return position_within_bounds(get_obj_center(state, env, "water_bottle"), b) and is_upright(state, env, "water_bottle")
""",
        ["standing()"],
        {1: "standing()"},
    ),
)


def _parallel_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "fork", at=(0.55, 0.15), yaw=0.6)
    put(world, layout, "spoon", yaw=0.6 + math.pi / 2, area=((0.38, 0.55), (-0.3, -0.05)))
    world.settle(0.5)


def _parallel_detect(world: SimWorld) -> Verdict:
    a = end_direction(world, "fork", "front")
    b = end_direction(world, "spoon", "front")
    across = abs(a[0] * b[1] - a[1] * b[0]) / (math.hypot(a[0], a[1]) * math.hypot(b[0], b[1]))
    checks = [
        (rests_on(world, "spoon", "table"), "the spoon is not on the table"),
        (lies_flat(world, "spoon"), "the spoon is not lying flat"),
        (across <= math.sin(math.radians(15.0)), "the spoon is not parallel to the fork"),
        (rests_on(world, "fork", "table") and lies_flat(world, "fork"), "the fork was disturbed"),
    ]
    return first_failure(checks + not_held(world, "spoon"), "the spoon lies parallel to the fork")


SPOON_PARALLEL = Task(
    name="spoon_parallel",
    instruction="lay the spoon parallel to the fork",
    build=_parallel_build,
    detect=_parallel_detect,
    optimal_length=2,
    oracle_sketch=sketch(
        "A fork lies turned on the table; the spoon must lie the same way, flat, not touching it.",
        [
            ("pick(spoon)", "grasp the spoon"),
            ("place_ontop(spoon, table)", "lay it flat beside the fork, turned the same way"),
        ],
        "achieve_goal(spoon, fork); the spoon is parallel to the fork",
    ),
    oracle_checkers=checkers(
        """def parallel():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "spoon", "table")
    flat = is_upright(state, env, "spoon")
    return position_within_bounds(get_obj_center(state, env, "spoon"), b) and flat and is_parallel(state, env, "spoon", "fork")
""",
        ["parallel()"],
        {1: "parallel()"},
    ),
)


def _spoon_detect(world: SimWorld) -> Verdict:
    checks = [
        (rests_on(world, "spoon", "table"), "the spoon is not lying on the table"),
        (lies_flat(world, "spoon"), "the spoon is not lying flat"),
        (_beside(world, "spoon", -1), "the spoon is not just right of the plate"),
        (
            end_direction(world, "spoon", "front")[0] >= math.cos(STRAIGHT),
            "the spoon is not straight with its bowl pointing away from the robot",
        ),
    ]
    return first_failure(
        checks + not_held(world, "spoon"), "the spoon lies right of the plate, straight"
    )


def _spoon_build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    put(world, layout, "plate", at=PLATE_AT)
    put(world, layout, "spoon", area=NEAR)
    world.settle(0.5)


SPOON_STRAIGHT = Task(
    name="spoon_straight",
    instruction="lay the spoon to the right of the plate, straight, its bowl pointing away from me",
    build=_spoon_build,
    detect=_spoon_detect,
    optimal_length=2,
    oracle_sketch=sketch(
        "A plate in the middle and a spoon near the robot. Right is the robot's right.",
        [
            ("pick(spoon)", "grasp the spoon"),
            ("place_ontop(spoon, table)", "lay it flat right of the plate, straight, bowl away"),
        ],
        "achieve_goal(spoon, plate); the spoon lies right of the plate, straight, bowl away",
    ),
    oracle_checkers=checkers(
        CUTLERY, ['set_beside("spoon", "right")'], {1: 'set_beside("spoon", "right")'}
    ),
)

TASKS = (
    BOARD_BACK_HALF,
    CARTON_ON_SCALE,
    SPONGE_ON_CAN,
    BOTTLE_UPRIGHT,
    SPOON_PARALLEL,
    SPOON_STRAIGHT,
    CUTLERY_STRAIGHT,
    LIME_ON_SCALE,
    BLOCK_ON_CAN,
    BOARD_LEFT_HALF,
    BANANA_ON_BOARD,
    WHERE_WAS,
)
