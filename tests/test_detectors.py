"""Each benchmark task's detector, on the real simulator: the built scene fails it, and a goal state
made by moving objects with pybullet resets (then settling under physics) passes it. The task's
oracle answers go through the real parser, validator and sandbox and agree with the detector."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from owl_bt.language.constraints import generate
from owl_bt.language.scripted import ScriptedVLM
from owl_bt.state import Pose
from owl_bt.tamp.grounding import ground_operators
from sim import tasks
from sim.catalog.layout import REACH, Layout, footprint, resting_pose
from sim.tasks.common import cavity_centre, held, new_layout, notes, put, rests_on
from sim.world import SimWorld

SEED = 3


def reset(world: SimWorld, name: str, pose: Pose) -> None:
    pos, quat = pose.position, p.getQuaternionFromEuler(pose.euler)
    p.resetBasePositionAndOrientation(world.body_id(name), pos, quat, physicsClientId=world.cid)
    p.resetBaseVelocity(world.body_id(name), (0, 0, 0), (0, 0, 0), physicsClientId=world.cid)


def rest_at(
    world: SimWorld, name: str, x: float, y: float, support_z: float = 0.0, roll: float = 0.0
) -> None:
    """Put `name` upright (or rolled) resting at (x, y) on a surface whose top is at support_z (m)."""
    reset(world, name, resting_pose(world.bodies[name].spec, x, y, roll, 0.0, 0.0, support_z))


def free_spot(
    world: SimWorld, name: str, area=REACH, moving: tuple[str, ...] = ()
) -> tuple[float, float]:
    """A spot in `area` where `name` (upright, yaw 0) is clear of every object not in `moving`."""
    layout = Layout(np.random.default_rng(0))
    for other, body in world.bodies.items():
        if other != name and other not in moving:
            layout.taken[other] = footprint(body.spec, world.pose(other))
    pose = layout.sample(world.bodies[name].spec, yaw=0.0, area=area)
    return pose.x, pose.y


def top(world: SimWorld, name: str) -> float:
    return world.object_states()[name].aabb()[1][2]


def stand_in_mug(world: SimWorld, obj: str, lean: float, side: float = 0.0) -> None:
    """Stand `obj` (long along its x) in the mug, lower end near the wall opposite `lean` (rad, the
    direction it leans in the table plane) and `side` m off the axis across it, leaning on the rim."""
    cx, cy, floor = cavity_centre(world, "mug")
    d = (math.cos(lean), math.sin(lean))
    tilt = 0.3  # rad from vertical
    length = world.bodies[obj].spec.size()[0]
    axis = (math.sin(tilt) * d[0], math.sin(tilt) * d[1], math.cos(tilt))
    low = (cx - 0.018 * d[0] - side * d[1], cy - 0.018 * d[1] + side * d[0], floor + 0.012)
    centre = tuple(low[i] + axis[i] * length / 2 for i in range(3))
    # body x axis along `axis`: pitch up from horizontal, then yaw towards the lean
    reset(world, obj, Pose(*centre, 0.0, -(math.pi / 2 - tilt), lean))


def mug_near_mustard(world: SimWorld) -> None:
    m = world.pose("mustard_bottle")
    area = ((m.x - 0.16, m.x + 0.16), (m.y - 0.16, m.y + 0.16))
    rest_at(world, "mug", *free_spot(world, "mug", area=area, moving=("mug",)))


def goal_berry1(world: SimWorld) -> None:
    rest_at(world, "strawberry", 0.55, 0.0, support_z=0.002)


def goal_berry2(world: SimWorld) -> None:
    rest_at(world, "potted_meat_can", *free_spot(world, "potted_meat_can"))
    rest_at(world, "strawberry", 0.55, 0.0, support_z=0.002)


def goal_citrus(world: SimWorld) -> None:
    rest_at(world, "lemon", 0.55, 0.045, support_z=top(world, "plate"))
    rest_at(world, "orange", 0.55, -0.045, support_z=top(world, "plate"))


def goal_berrycook(world: SimWorld) -> None:
    x, y, z = cavity_centre(world, "skillet")
    rest_at(world, "strawberry", x, y, support_z=z)
    world.settle(0.3)
    tasks.get("berrycook").observe(world)
    x, y, z = cavity_centre(world, "bowl")
    rest_at(world, "strawberry", x, y, support_z=z)


def goal_fruitsort(world: SimWorld) -> None:
    for f in ("pear", "strawberry", "apple"):
        rest_at(world, f, *free_spot(world, f, area=(REACH[0], (0.08, REACH[1][1])), moving=(f,)))


def goal_coffee(world: SimWorld) -> None:
    pose = world.pose("mug")
    rest_at(world, "mug", pose.x, pose.y)


def goal_mug1(world: SimWorld) -> None:
    rest_at(world, "mug", *free_spot(world, "mug", moving=("mug",)))
    world.settle(0.2)
    stand_in_mug(world, "fork", 0.0)


def goal_mug2(world: SimWorld) -> None:
    rest_at(world, "orange", *free_spot(world, "orange", moving=("orange",)))
    mug_near_mustard(world)
    world.settle(0.2)
    stand_in_mug(world, "fork", 0.0, side=-0.012)
    stand_in_mug(world, "knife", 0.0, side=0.012)


def goal_mug3(world: SimWorld) -> None:
    rest_at(world, "golf_ball", *free_spot(world, "golf_ball", moving=("golf_ball",)))
    mug_near_mustard(world)
    world.settle(0.2)
    stand_in_mug(world, "fork", 0.0)


def goal_souppour(world: SimWorld) -> None:
    for can in ("tomato_soup_can", "potted_meat_can"):
        rest_at(world, can, *free_spot(world, can, moving=(can, "soup")))
    x, y, z = cavity_centre(world, "bowl")
    rest_at(world, "soup", x, y, support_z=z)
    mat = world.pose("white_mat")
    rest_at(world, "apple", mat.x, mat.y + 0.05, support_z=0.002)
    rest_at(world, "peach", mat.x, mat.y - 0.05, support_z=0.002)


GOALS = {name[5:]: fn for name, fn in globals().items() if name.startswith("goal_")}


@pytest.fixture()
def world():
    w = SimWorld()
    yield w
    w.close()


def test_every_task_has_a_goal_here():
    assert sorted(GOALS) == sorted(tasks.TASKS)


@pytest.mark.parametrize("name", sorted(tasks.TASKS))
def test_initial_state_fails_and_goal_state_passes(world, name, schemas):
    task = tasks.get(name)
    task.build(world, SEED)
    verdict = task.detect(world)
    assert not verdict.success and verdict.reason and "\n" not in verdict.reason
    s0 = world.ground_truth()
    oracle = generate(
        ScriptedVLM("oracle", task.oracle_sketch, task.oracle_checkers),
        s0,
        task.instruction,
        schemas,
        ground_operators(s0, schemas),
    )
    goal_checks = oracle.goal_checkers()
    assert not all(oracle.checkers.evaluate(n, s0) for n in goal_checks)
    GOALS[name](world)
    world.settle(1.0)
    verdict = task.detect(world)
    assert verdict.success, verdict.reason
    assert not any(held(world, n) for n in world.bodies)
    final = world.ground_truth()
    last = oracle.action_checkers()[len(oracle.sketch.actions) - 1]
    assert all(oracle.checkers.evaluate(n, final) for n in [*goal_checks, last]), (
        oracle.checkers.errors
    )


def test_berrycook_needs_the_visit_to_the_pan(world):
    task = tasks.get("berrycook")
    task.build(world, SEED)
    x, y, z = cavity_centre(world, "bowl")
    rest_at(world, "strawberry", x, y, support_z=z)
    world.settle(0.5)
    task.observe(world)
    verdict = task.detect(world)
    assert not verdict.success and "never put in the pan" in verdict.reason


def test_detector_notes_are_per_world_and_reset_by_build(world):
    task = tasks.get("berrycook")
    task.build(world, SEED)
    notes(world)["visited_skillet"] = True
    other = SimWorld()
    try:
        task.build(other, SEED)
        assert (
            notes(other) == {"visited_skillet": False} and notes(world)["visited_skillet"] is True
        )
    finally:
        other.close()
    world.close()
    fresh = SimWorld()
    try:
        task.build(fresh, SEED)
        assert notes(fresh) == {"visited_skillet": False}
    finally:
        fresh.close()


@pytest.mark.parametrize(
    "name, held, target, content",
    [("souppour", "tomato_soup_can", "bowl", "soup"), ("mug3", "mug", "table", "golf_ball")],
)
def test_oracle_pour_checker_wants_a_tipped_container_over_the_target_and_the_contents_out(
    world, schemas, name, held, target, content
):
    task = tasks.get(name)
    task.build(world, SEED)
    s0 = world.ground_truth()
    oracle = generate(
        ScriptedVLM("oracle", task.oracle_sketch, task.oracle_checkers),
        s0,
        task.instruction,
        schemas,
        ground_operators(s0, schemas),
    )
    pour = next(i for i, a in enumerate(oracle.sketch.actions) if a.op.name == "pour")
    check = oracle.action_checkers()[pour]
    if target == "table":  # somewhere over the table, clear of everything
        x, y = 0.7, -0.25
        dropped = Pose(x + 0.1, y, 0.021)
    else:
        x, y, floor = cavity_centre(world, target)
        dropped = Pose(x, y, floor + 0.013)
    over = s0.get(target).aabb()[1][2] + 0.15
    tipped = s0.with_pose(held, Pose(x, y, over, 2.3, 0.0, 0.0)).with_pose(content, dropped)
    assert oracle.checkers.evaluate(check, tipped), oracle.checkers.errors
    upright = s0.with_pose(held, Pose(x, y, over, 0.0, 0.0, 0.0)).with_pose(content, dropped)
    assert not oracle.checkers.evaluate(check, upright)
    still_in = s0.with_pose(held, Pose(x, y, over, 2.3, 0.0, 0.0)).with_pose(
        content, Pose(x, y, over)
    )
    assert not oracle.checkers.evaluate(check, still_in)


def test_on_a_round_plate_means_over_the_disc_not_its_box():
    """A strawberry resting on the plate's rim at 9 cm from the centre is on it; one at 11.5 cm along
    the diagonal (inside the plate's 22 cm box, off the disc) touching its edge is not."""
    world = SimWorld()
    try:
        layout = new_layout(0)
        put(world, layout, "plate", at=(0.5, 0.0))
        put(world, layout, "strawberry", at=(0.5 + 0.09, 0.0), support_z=0.015)
        world.settle(0.3)
        assert rests_on(world, "strawberry", "plate")
        d = 0.115 / math.sqrt(2)
        rest_at(
            world, "strawberry", 0.5 + d, d, support_z=0.0
        )  # on the table, against the plate's edge
        world.step(1)
        assert world.contacts("strawberry", "plate")
        plate = world.object_states()["plate"]
        x, y, _ = world.pose("strawberry").position
        lo, hi = plate.aabb()
        assert lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]  # inside the box …
        assert not rests_on(world, "strawberry", "plate")  # … but not on the plate
    finally:
        world.close()
