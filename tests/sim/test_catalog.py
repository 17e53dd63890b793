"""The object catalogue on the real simulator: every kind spawns and settles, containers hold what is
put in them, the soup can empties only when tipped, and what the robot must pick fits the gripper."""

from __future__ import annotations

import math

import pybullet as p
import pytest

from owl_bt.language.vocabulary import ONTOLOGY
from owl_bt.state import Pose
from owl_bt.tamp.operators import CONTAINER_CATEGORIES, SURFACE_CATEGORIES
from sim import catalog
from sim.catalog.layout import resting_pose
from sim.tasks.common import cavity_centre, is_inside
from sim.world import SimWorld

KINDS = sorted(k for k in catalog.KINDS if k != "table")
GRIPPER_FIT = (
    0.072  # m: the width across the fingers every pickable kind must manage in some direction
)


@pytest.fixture(scope="module")
def shared_world():
    w = SimWorld()
    yield w
    w.close()


def remove(world: SimWorld, name: str) -> None:
    p.removeBody(world.body_id(name), physicsClientId=world.cid)
    del world.bodies[name]


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_spawns_and_settles_on_the_table(shared_world, kind):
    w = shared_world
    spec = catalog.make(kind)
    start = resting_pose(spec, 0.55, 0.05, yaw=0.4)
    w.add(spec, start)
    try:
        w.settle(1.0)
        end = w.pose(kind)
        lin, ang = p.getBaseVelocity(w.body_id(kind), physicsClientId=w.cid)
        assert math.dist(start.position, end.position) < 0.003, (start, end)
        assert abs(end.roll) < 0.02 and abs(end.pitch) < 0.02
        assert math.hypot(*lin) < 0.005 and math.hypot(*ang) < 0.05
        if not spec.region:
            assert w.contacts(kind, "table")
        assert spec.kind == kind and spec.mass >= 0 and 0 < spec.friction <= 1.5 and spec.colour
    finally:
        remove(w, kind)


@pytest.mark.parametrize("kind", sorted(catalog.PICKABLE))
def test_pickable_kinds_fit_the_gripper(kind):
    dx, dy, _ = catalog.make(kind).size()
    assert min(dx, dy) <= GRIPPER_FIT + 1e-9, f"{kind} is {dx:.3f} × {dy:.3f} m"


def test_categories_match_the_planner_and_the_ontology():
    cat = {k: catalog.make(k).category for k in KINDS}
    for fruit in ("strawberry", "apple", "pear", "lemon", "orange", "plum", "peach"):
        assert cat[fruit] == fruit and fruit in ONTOLOGY["fruit"]
    assert {cat["lemon"], cat["orange"]} <= ONTOLOGY["citrus"]
    assert {cat["fork"], cat["knife"]} <= ONTOLOGY["cutlery"]
    assert cat["mustard_bottle"] in ONTOLOGY["condiment"]
    assert {cat["mug"], cat["bowl"], cat["skillet"]} <= CONTAINER_CATEGORIES
    for k in ("plate", "skillet", "white_mat", "red_line", "light_grey_region", "region"):
        assert cat[k] in SURFACE_CATEGORIES, k
    for k in ("mug", "bowl", "skillet", "tomato_soup_can"):
        assert "cavity" in catalog.make(k).extra


def test_make_names_and_recolours():
    bowl = catalog.make("bowl", "red_bowl", colour="red")
    assert (bowl.name, bowl.colour, bowl.rgba, bowl.kind) == (
        "red_bowl",
        "red",
        catalog.COLOURS["red"],
        "bowl",
    )
    with pytest.raises(KeyError, match="known: apple"):
        catalog.make("durian")
    with pytest.raises(KeyError, match="unknown colour"):
        catalog.make("bowl", colour="mauve")


def test_planning_model_rebuilds_kinds_from_the_catalogue():
    mug = catalog.make("mug")
    rebuilt = catalog.spec_for_state(mug.to_state(Pose(0.5, 0.0, 0.045)))
    assert len(rebuilt.parts) == len(mug.parts) and rebuilt.size() == pytest.approx(mug.size())


@pytest.mark.parametrize("container", ["mug", "bowl"])
def test_containers_hold_a_dropped_ball(container):
    w = SimWorld()
    try:
        w.add(catalog.make(container), resting_pose(catalog.make(container), 0.55, 0.0, yaw=0.7))
        x, y, _ = cavity_centre(w, container)
        w.add(catalog.make("golf_ball"), Pose(x + 0.01, y, 0.15))
        w.settle(2.0)
        assert is_inside(w, "golf_ball", container)
        assert w.contacts("golf_ball", container) and not w.contacts("golf_ball", "table")
    finally:
        w.close()


def tilt_can(degrees: float) -> bool:
    """Stand the soup can with its soup, lift it and tip it slowly by `degrees`; is the soup still in it?"""
    w = SimWorld()
    try:
        can = catalog.make("tomato_soup_can")
        start = resting_pose(can, 0.55, 0.0)
        body = w.add(can, start)
        w.add(catalog.make("soup"), Pose(0.55, 0.0, 0.03))
        w.settle(0.5)
        assert is_inside(w, "soup", "tomato_soup_can")
        pin = p.createConstraint(
            body,
            -1,
            -1,
            -1,
            p.JOINT_FIXED,
            (0, 0, 0),
            (0, 0, 0),
            start.position,
            physicsClientId=w.cid,
        )
        for i in range(1, 241):
            quat = p.getQuaternionFromEuler((math.radians(degrees) * i / 240, 0.0, 0.0))
            p.changeConstraint(
                pin,
                (0.55, 0.0, start.z + 0.2 * min(1.0, i / 60)),
                quat,
                maxForce=200,
                physicsClientId=w.cid,
            )
            w.step(2)
        w.step(240)
        return is_inside(w, "soup", "tomato_soup_can")
    finally:
        w.close()


def test_soup_can_keeps_its_soup_until_tipped_past_90_degrees():
    assert tilt_can(0.0)
    assert tilt_can(70.0)
    assert not tilt_can(150.0)
