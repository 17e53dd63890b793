"""Hand-written scenes for the offline grounder's tests (none is a benchmark task): `Thing` rows as
the grounder reads a scene, `ObjectState` worlds for its checkers, and the grounder's answer run
through the real parser and sandbox."""

from __future__ import annotations

from owl_bt.language.object_list import describe_objects
from owl_bt.language.offline import plan_for
from owl_bt.language.offline_plan import code
from owl_bt.language.parser import parse_checkers
from owl_bt.language.reading import Reader
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.scene_view import Thing, read_objects
from owl_bt.language.workspace import env_from_state
from owl_bt.state import ObjectState, Pose, WorldState


def thing(name, category, colour, x, y, size, fixed=False, z0=0.0, roll=0.0):
    lo = (x - size[0] / 2, y - size[1] / 2, z0)
    hi = (x + size[0] / 2, y + size[1] / 2, z0 + size[2])
    return Thing(
        name, category, colour, fixed, (x, y, z0 + size[2] / 2, roll, 0.0, 0.0), size, lo, hi
    )


SCENE = [
    thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
    thing("apple", "apple", "red", 0.45, -0.2, (0.07, 0.07, 0.07)),
    thing("strawberry", "strawberry", "red", 0.5, -0.1, (0.03, 0.03, 0.04)),
    thing("lemon", "lemon", "yellow", 0.6, -0.25, (0.06, 0.05, 0.05)),
    thing("lime", "lime", "green", 0.65, -0.15, (0.05, 0.05, 0.05)),
    thing("big_bowl", "bowl", "blue", 0.6, 0.2, (0.16, 0.16, 0.06)),
    thing("plate", "plate", "white", 0.45, 0.15, (0.2, 0.2, 0.02)),
    thing("mug", "mug", "green", 0.7, 0.05, (0.08, 0.08, 0.1)),
    thing("spoon", "spoon", "silver", 0.4, 0.3, (0.15, 0.03, 0.01)),
    thing("ketchup", "ketchup", "red", 0.75, -0.3, (0.05, 0.05, 0.18)),
]


def goals(text, scene=SCENE):
    return [
        (g.obj, g.how, g.support, tuple(g.spatial), g.upright, g.final, g.only)
        for g in Reader(scene).read(text).goals
    ]


PEAR = [*SCENE, thing("pear", "pear", "green", 0.35, -0.3, (0.06, 0.06, 0.09))]


def obj(name, category, x, y, size, shape="box", z0=0.0, roll=0.0, fixed=False):
    return ObjectState(
        name, category, Pose(x, y, z0 + size[2] / 2, roll, 0.0, 0.0), size, shape=shape, fixed=fixed
    )


def scene(*objs: ObjectState) -> WorldState:
    table = obj("table", "table", 0.55, 0.0, (0.7, 0.9, 0.05), z0=-0.05, fixed=True)
    return WorldState({o.name: o for o in (table, *objs)})


def answer(text: str, world: WorldState):
    """(plan, compiled checkers) of the offline grounder for `text` on `world`, through the real parser and sandbox."""
    plan = plan_for(text, read_objects(describe_objects(world)))
    wanted = [
        (i, f"{s.op}({', '.join(s.args)})", s.text)
        for i, s in enumerate(plan.steps)
        if s.op != "pick"
    ]
    names = [f"goal_check{i}" for i in range(len(plan.goal_checks))] + [
        f"action_check{i}" for i, _, _ in wanted
    ]
    return plan, CheckerSet.compile(
        parse_checkers(code(plan, wanted), names), world, env_from_state(world)
    )


def goal_holds(checkers: CheckerSet, state: WorldState) -> bool:
    return all(checkers.evaluate(n, state) for n in checkers.names() if n.startswith("goal_check"))
