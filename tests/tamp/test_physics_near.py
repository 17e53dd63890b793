"""The planning model runs a physics stretch (grip, release, settle) with only the bodies involved in
what happens: far ones at rest are parked asleep and put back exactly; near ones at rest that touch
nothing involved sleep where they rest and wake when struck; moving ones take part."""

from __future__ import annotations

import math

import pybullet as p
import pytest

from owl_bt.tamp.planning_model import NEAR_M, PlanningModel
from sim import tasks
from sim.world import SimWorld


@pytest.fixture(scope="module")
def model():
    world = SimWorld()
    try:
        tasks.get("scaling-n24").build(world, 0)
        state = world.ground_truth()
    finally:
        world.close()
    m = PlanningModel(state)
    try:
        yield m
    finally:
        m.close()


def _where(m: PlanningModel) -> dict[str, tuple]:
    return {
        n: p.getBasePositionAndOrientation(b, physicsClientId=m.cid) for n, b in m.bodies.items()
    }


def test_far_bodies_are_parked_for_the_stretch_and_put_back_exactly(model):
    before = _where(model)
    fruit = model.pose("strawberry")
    with model.physics_near("strawberry"):
        during = _where(model)
        for _ in range(60):
            p.stepSimulation(physicsClientId=model.cid)
    after = _where(model)
    parked = [n for n in before if during[n][0] != before[n][0]]
    assert len(parked) >= 5  # most of the 20 distractors are far from the strawberry
    for name in parked:
        assert math.dist(before[name][0][:2], (fruit.x, fruit.y)) > NEAR_M
        assert after[name][0] == before[name][0]  # back where it was, to the bit
        assert max(abs(a - b) for a, b in zip(after[name][1], before[name][1], strict=True)) < 1e-12
    for name in ("strawberry", "plate", "table"):
        assert name not in parked
    assert all(math.dist(after[n][0], before[n][0]) < 2e-3 for n in before)  # all at rest


def test_a_moving_body_takes_part_wherever_it_is(model):
    far = max(
        (n for n in model.bodies if not model.objects[n].fixed),
        key=lambda n: math.dist(model.pose(n).position[:2], model.pose("strawberry").position[:2]),
    )
    p.resetBaseVelocity(model.bodies[far], (0, 0, 0.5), (0, 0, 0), physicsClientId=model.cid)
    z0 = model.pose(far).z
    with model.physics_near("strawberry"):
        p.stepSimulation(physicsClientId=model.cid)
        assert abs(model.pose(far).z - z0) < 0.05  # not parked 100 m away: it is simulated here
    model.settle(0.5)


def test_near_bodies_sleep_where_they_rest_and_wake_when_struck(model):
    before = _where(model)
    with model.physics_near("strawberry"):
        during = _where(model)
        # a body near the strawberry but not touching it is not parked: it sleeps where it rests
        near = [n for n in before if during[n] == before[n] and not model.objects[n].fixed]
        near.remove("strawberry")
        assert near
        body = near[0]
        pos, quat = before[body]
        # lifted 2 cm and left asleep, it hangs there: it is not integrated
        lifted = (pos[0], pos[1], pos[2] + 0.02)
        p.resetBasePositionAndOrientation(
            model.bodies[body], lifted, quat, physicsClientId=model.cid
        )
        for _ in range(60):
            p.stepSimulation(physicsClientId=model.cid)
        assert _where(model)[body][0] == pytest.approx(lifted, abs=1e-9)
        # struck by a falling ball, it wakes and takes part
        ball = p.createMultiBody(
            0.3,
            p.createCollisionShape(p.GEOM_SPHERE, radius=0.02, physicsClientId=model.cid),
            basePosition=(pos[0], pos[1], lifted[2] + 0.15),
            physicsClientId=model.cid,
        )
        for _ in range(240):
            p.stepSimulation(physicsClientId=model.cid)
        assert _where(model)[body][0][2] < lifted[2] - 0.01  # it fell back to the table
        p.removeBody(ball, physicsClientId=model.cid)
    model.settle(0.5)
    after = _where(model)
    assert all(math.dist(after[n][0][:2], before[n][0][:2]) < 0.02 for n in before)
