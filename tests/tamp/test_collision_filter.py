"""The planning model's collision check skips bodies whose bounding box is far from the arm's links:
it must find exactly what the exhaustive check finds (compound bodies included: a can's walls, a mug's
handle, a skillet's long handle are links of one body). And the arm is set in one call, so a grip
simulated with physics does not depend on where the arm was before (it did: per-joint resets left the
outcome hanging on the order of earlier settings)."""

from __future__ import annotations

import random

import pybullet as p

from owl_bt.tamp.planning_model import PlanningModel
from tests.support.worlds import task_state


def _exhaustive(model: PlanningModel, q, clearance: float) -> str | None:
    """What the arm touches at q by asking pybullet about every body (no box test), in the same order."""
    model.set_arm(q)
    for name, bid in model.bodies.items():
        near = 0.0 if model.objects[name].fixed else clearance
        if p.getClosestPoints(model.robot.body, bid, near, physicsClientId=model.cid):
            return name
    return None


def test_the_box_test_misses_no_collision_with_compound_bodies():
    model = PlanningModel(
        task_state("souppour", 0)
    )  # two hollow cans (25 parts each), a bowl, a mat
    try:
        rng = random.Random(3)
        home = model.robot.home
        hits = set()
        for _ in range(400):
            q = tuple(v + rng.gauss(0.0, 0.5) for v in home)
            clearance = rng.choice((0.0, 0.01, 0.03))
            want = _exhaustive(model, q, clearance)
            got = model.in_collision(q, clearance=clearance)
            if want is not None:  # the body check comes first: the same body is named
                assert got == want, (q, clearance)
                hits.add(want)
            elif got in model.bodies:
                raise AssertionError(f"{got} named at {q}, which the exhaustive check finds free")
        assert {"tomato_soup_can", "potted_meat_can"} & hits, (
            hits
        )  # the compound bodies were met, not just the table
    finally:
        model.close()


def test_a_grip_does_not_depend_on_where_the_arm_was_before():
    world = task_state("berrycook", 1)
    q = (-0.29703, -0.74532, 1.43529, -2.52372, -2.16135, -2.02151)  # the hand round the strawberry
    outcomes = []
    for before in (None, tuple(v + 0.3 for v in q), tuple(v - 0.2 for v in q)):
        model = PlanningModel(world)
        try:
            if before is not None:
                model.set_arm(before)
            assert model.grip("strawberry", q) == ["strawberry"]
            outcomes.append(
                (
                    tuple(round(v, 6) for v in model.robot.finger_joints()),
                    tuple(round(v, 6) for v in model.grasp[0]),
                )
            )
        finally:
            model.close()
    assert outcomes[0] == outcomes[1] == outcomes[2]
