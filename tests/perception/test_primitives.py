"""perception.primitives: a thing of no catalogue kind becomes the box, upright cylinder or sphere
that lies closest to its points — on synthetic partial surfaces, on real simulated frames without
labels, and as the planning model grasps and places it."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from perception.primitives import fit_primitive

RNG = np.random.default_rng(0)


def _seen_side(points: np.ndarray, eye=(0.0, -1.0, 1.0)) -> np.ndarray:
    """The half of a closed surface's points that faces the camera at `eye` (a view sees one side)."""
    centre = points.mean(axis=0)
    out = (points - centre) @ (np.asarray(eye) - centre)
    return points[out > 0] + RNG.normal(0, 0.001, (int((out > 0).sum()), 3))


def test_a_cylinders_arc_and_top_give_its_radius_and_height() -> None:
    a = RNG.uniform(0, 2 * math.pi, 3000)
    z = RNG.uniform(0, 0.12, 3000)
    side = np.stack([0.5 + 0.04 * np.cos(a), 0.1 + 0.04 * np.sin(a), z], axis=1)
    r = 0.04 * np.sqrt(RNG.uniform(0, 1, 800))
    b = RNG.uniform(0, 2 * math.pi, 800)
    top = np.stack([0.5 + r * np.cos(b), 0.1 + r * np.sin(b), np.full(800, 0.12)], axis=1)
    prim = fit_primitive(np.vstack([_seen_side(side), top]), 0.0)
    assert prim.shape == "cylinder"
    assert prim.centre == pytest.approx((0.5, 0.1, 0.06), abs=0.004)
    assert prim.size == pytest.approx((0.08, 0.08, 0.12), abs=0.006)


def test_a_balls_cap_gives_a_sphere_resting_on_the_floor() -> None:
    v = RNG.normal(size=(4000, 3))
    ball = 0.035 * v / np.linalg.norm(v, axis=1, keepdims=True) + (0.4, -0.2, 0.035)
    prim = fit_primitive(_seen_side(ball[ball[:, 2] > 0.01]), 0.0)
    assert prim.shape == "sphere"
    assert prim.centre == pytest.approx((0.4, -0.2, 0.035), abs=0.004)
    assert prim.size[0] == pytest.approx(0.07, abs=0.006)


def test_a_boxs_faces_stay_a_box() -> None:
    u = RNG.uniform(-1, 1, (6000, 3)) * (0.06, 0.02, 0.045)
    face = RNG.integers(0, 3, 6000)
    u[np.arange(6000), face] = (
        np.sign(u[np.arange(6000), face]) * np.array((0.06, 0.02, 0.045))[face]
    )
    prim = fit_primitive(_seen_side(u + (0.45, 0.2, 0.045)), 0.0)
    assert prim.shape == "box"
    assert sorted(prim.size, reverse=True) == pytest.approx((0.12, 0.09, 0.04), abs=0.008)


def _spawn(world, shape: str, dims, at, rgba) -> int:
    """A body of no catalogue kind: a cylinder (radius, height) or a sphere (radius), m."""
    if shape == "sphere":
        geom, col, vis = p.GEOM_SPHERE, {"radius": dims[0]}, {"radius": dims[0]}
    else:
        geom = p.GEOM_CYLINDER
        col = {"radius": dims[0], "height": dims[1]}
        vis = {"radius": dims[0], "length": dims[1]}
    c = p.createCollisionShape(geom, physicsClientId=world.cid, **col)
    v = p.createVisualShape(geom, rgbaColor=rgba, physicsClientId=world.cid, **vis)
    return p.createMultiBody(0.2, c, v, basePosition=at, physicsClientId=world.cid)


@pytest.mark.slow
def test_round_things_of_no_kind_are_seen_as_cylinders_and_spheres_and_can_be_moved(
    unlabelled_scene, skills
) -> None:
    from owl_bt.state import RobotState, WorldState
    from owl_bt.tamp.operators import GroundOp
    from owl_bt.tamp.search import SketchItem, plan

    world, camera, pipeline, _ = unlabelled_scene("berry1")
    _spawn(world, "cylinder", (0.03, 0.11), (0.45, 0.2, 0.056), (0.1, 0.8, 0.8, 1))
    _spawn(world, "sphere", (0.045,), (0.62, 0.22, 0.046), (0.8, 0.2, 0.8, 1))
    world.settle(0.5)
    res = pipeline.perceive(camera.capture())
    prim = {o.state.shape: o.state for o in res.objects.values() if o.source == "primitive"}
    assert set(prim) == {"cylinder", "sphere"}, [
        (n, o.state.shape, o.source) for n, o in res.objects.items()
    ]
    cyl, ball = prim["cylinder"], prim["sphere"]
    assert math.dist(cyl.pose.position, (0.45, 0.2, 0.055)) < 0.012
    assert cyl.size == pytest.approx((0.06, 0.06, 0.11), abs=0.012)
    assert math.dist(ball.pose.position, (0.62, 0.22, 0.045)) < 0.012
    assert ball.size[0] == pytest.approx(0.09, abs=0.012)
    r = world.robot
    state = WorldState(
        objects={n: o.state for n, o in res.objects.items()},
        robot=RobotState(tuple(r.arm_q()), r.opening(), None, r.spec.name),
    )
    for thing in (cyl.name, ball.name):
        items = [
            SketchItem(GroundOp("pick", (thing,))),
            SketchItem(GroundOp("place_ontop", (thing, "light_grey_region"))),
        ]
        found = plan(state, skills, items, [], np.random.default_rng(0), budget=300)
        assert found.failure is None, found.failure
