"""A look at objects that have not moved refits them from their last fit (perception.refit): real world,
real camera frames, real pipeline."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pybullet as p

from owl_bt.episode import sim_camera_pipeline
from perception.refit import REFIT_SLACK, FitMemory
from tests.support.worlds import world_with

SCENE = (
    ("mug", (0.5, 0.12, 0.05, 0.0, 0.0, 0.6)),
    ("apple", (0.45, -0.15, 0.04)),
    ("tomato_soup_can", (0.62, -0.02, 0.06)),
)


def _yaw_error(a: float, b: float) -> float:
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


def test_unmoved_objects_are_refitted_where_the_full_fit_put_them():
    world = world_with(*SCENE)
    try:
        camera, pipeline = sim_camera_pipeline(world, 0)
        first = pipeline.perceive(camera.capture())
        second = pipeline.perceive(camera.capture())  # a new frame: new camera noise, nothing moved
        truth = world.object_states()
    finally:
        world.close()
    names = ("mug", "apple", "tomato_soup_can")
    assert not any(first.objects[n].refitted for n in names)
    assert all(second.objects[n].refitted for n in names)
    for n in names:
        a, b = first.objects[n].state, second.objects[n].state
        assert math.dist(a.pose.position, b.pose.position) < 0.002, n
        assert math.dist(b.pose.position, truth[n].pose.position) < 0.01, n
        assert np.allclose(a.size, b.size, atol=0.003), n
    assert (
        _yaw_error(second.objects["mug"].state.pose.yaw, truth["mug"].pose.yaw) < 0.2
    )  # the handle's side


def test_a_moved_or_turned_object_is_fitted_in_full_again():
    world = world_with(*SCENE)
    try:
        camera, pipeline = sim_camera_pipeline(world, 0)
        pipeline.perceive(camera.capture())
        can, mug = world.body_id("tomato_soup_can"), world.body_id("mug")
        pos, quat = p.getBasePositionAndOrientation(can, physicsClientId=world.cid)
        p.resetBasePositionAndOrientation(
            can, (pos[0], pos[1] + 0.05, pos[2]), quat, physicsClientId=world.cid
        )
        pos, _ = p.getBasePositionAndOrientation(
            mug, physicsClientId=world.cid
        )  # handle to the other side, in place
        p.resetBasePositionAndOrientation(
            mug, pos, p.getQuaternionFromEuler((0, 0, 0.6 + math.pi)), physicsClientId=world.cid
        )
        world.settle(0.3)
        res = pipeline.perceive(camera.capture())
        truth = world.object_states()
    finally:
        world.close()
    assert res.objects["apple"].refitted
    assert not res.objects["tomato_soup_can"].refitted and not res.objects["mug"].refitted
    assert (
        math.dist(
            res.objects["tomato_soup_can"].state.pose.position,
            truth["tomato_soup_can"].pose.position,
        )
        < 0.01
    )
    assert _yaw_error(res.objects["mug"].state.pose.yaw, truth["mug"].pose.yaw) < 0.2


def test_a_refit_scoring_worse_than_the_full_fit_it_descends_from_is_not_kept():
    world = world_with(*SCENE)
    try:
        camera, pipeline = sim_camera_pipeline(world, 0)
        frame = camera.capture()
        truth = world.object_states()["apple"]
        table_z = pipeline.perceive(frame).table_z
    finally:
        world.close()
    fitter = pipeline.shapes.fitter("apple")
    rot = np.asarray(p.getMatrixFromQuaternion(p.getQuaternionFromEuler(truth.pose.euler))).reshape(
        3, 3
    )
    up = (fitter.model.normals @ rot.T)[
        :, 2
    ] > 0  # the apple's upper half, where the camera sees it, 1 mm of noise
    pts = fitter.model.points[up] @ rot.T + np.asarray(truth.pose.position)
    pts = pts + np.random.default_rng(0).normal(0, 0.001, pts.shape)
    full = fitter.fit(pts, frame, table_z, np.random.default_rng(0))
    memory, calls = FitMemory(), []

    def counted(fit):
        def run():
            calls.append(1)
            return fit

        return run

    assert memory.fit("apple", "apple", fitter, pts, frame, True, True, counted(full)) == (
        full,
        False,
    )
    got, refitted = memory.fit("apple", "apple", fitter, pts, frame, True, True, counted(full))
    assert refitted and len(calls) == 1 and math.dist(got.t, truth.pose.position) < 0.01
    # the same points, but the full fit it descends from claimed a cost no refit reaches: fitted in full again
    boasting = type(full)(
        full.R, full.t, full.scale, full.cost - 0.01, full.rmse, full.see_through, full.inliers
    )
    memory = FitMemory()
    memory.fit("apple", "apple", fitter, pts, frame, True, True, counted(boasting))
    assert memory.fit("apple", "apple", fitter, pts, frame, True, True, counted(full)) == (
        full,
        False,
    )
    assert len(calls) == 3
    # points that moved 1 cm: a refit would follow them (judged without free space, which the frame's depth of the
    # apple where it was would refuse), but a moved thing may have turned over too, so the full search runs
    blind = dataclasses.replace(frame, depth=np.full_like(frame.depth, np.inf))
    moved = pts + (0.01, 0.0, 0.0)
    assert fitter.refit(moved, blind, full).cost <= full.cost + REFIT_SLACK
    assert memory.fit("apple", "apple", fitter, moved, blind, True, True, counted(full)) == (
        full,
        False,
    )
    assert len(calls) == 4
    # nor for what may not be refitted (a held object), nor for another kind under the same name
    assert memory.fit("apple", "apple", fitter, pts, frame, True, False, counted(full))[1] is False
    assert memory.fit("apple", "peach", fitter, pts, frame, True, True, counted(full))[1] is False
