"""Bad camera input ends in a clear failure record the replan subtree can act on — never an exception
out of the pipeline: an empty table, an object cut by the image border, depth full of zeros or NaNs."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import py_trees
import pytest

from owl_bt.episode import sim_camera_pipeline
from perception.source import CameraSource, PerceptionError
from sim import tasks
from sim.world import SimWorld
from trees.blackboard import client
from trees.perceive import Perceive
from trees.services import Services


@pytest.fixture()
def berry_frame():
    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 0)
        camera, pipeline = sim_camera_pipeline(world)
        return camera.capture(), pipeline
    finally:
        world.close()


def test_an_empty_table_is_a_failure_with_a_reason():
    world = SimWorld()
    try:
        camera, pipeline = sim_camera_pipeline(world)
        res = pipeline.perceive(camera.capture())
        src = CameraSource(camera, pipeline)
        with pytest.raises(PerceptionError, match="no objects found on the table"):
            src.observe()
    finally:
        world.close()
    assert res.failure == "no objects found on the table"
    assert src.last_annotated[:4] == b"\x89PNG"  # the failed round still leaves an image to look at


@pytest.mark.parametrize("fill,reason", [(0.0, "no readings"), (np.nan, "no readings")])
def test_depth_without_readings_is_a_failure(berry_frame, fill, reason):
    frame, pipeline = berry_frame
    bad = dataclasses.replace(frame, depth=np.full_like(frame.depth, fill))
    res = pipeline.perceive(bad)
    assert res.failure and reason in res.failure and res.objects == {}


def test_depth_mostly_missing_is_a_failure(berry_frame):
    frame, pipeline = berry_frame
    depth = frame.depth.copy()
    depth[np.random.default_rng(0).random(depth.shape) < 0.9] = (
        np.nan
    )  # a sensor that reads one pixel in ten
    res = pipeline.perceive(dataclasses.replace(frame, depth=depth))
    assert res.failure and "depth image is mostly empty" in res.failure


def test_an_object_cut_by_the_image_border_is_flagged(berry_frame):
    frame, pipeline = berry_frame
    inst = next(i for i, (n, _) in frame.labels.items() if n == "strawberry")
    cols = np.flatnonzero((frame.seg == inst).any(axis=0))
    u0 = int(cols[len(cols) // 2])  # the image now starts in the middle of the strawberry
    k = frame.intrinsics.copy()
    k[0, 2] -= u0
    cut = dataclasses.replace(
        frame,
        rgb=frame.rgb[:, u0:].copy(),
        depth=frame.depth[:, u0:].copy(),
        seg=frame.seg[:, u0:].copy(),
        intrinsics=k,
    )
    res = pipeline.perceive(cut)
    assert res.failure is None
    if "strawberry" in res.objects:
        assert "partly outside the image" in res.objects["strawberry"].flags
        assert any(i.startswith("strawberry: partly outside") for i in res.issues)
    else:
        assert "strawberry" in res.unmeasured


def test_the_perceive_subtree_records_a_failure_the_replan_reads():
    py_trees.blackboard.Blackboard.clear()
    world = SimWorld()  # nothing on the table
    try:
        camera, pipeline = sim_camera_pipeline(world)
        services = Services(
            backend=None,
            perception=CameraSource(camera, pipeline),
            vlm=None,
            skills={},
            rng=np.random.default_rng(0),
        )
        node = Perceive("perceive")
        node.setup(services=services)
        for _ in range(200):
            node.tick_once()
            if node.status != py_trees.common.Status.RUNNING:
                break
            time.sleep(0.02)
    finally:
        world.close()
    assert node.status == py_trees.common.Status.FAILURE
    failure = client("reader", read=("perceive_failure",)).perceive_failure
    assert failure.stage == "perceive" and "no objects found on the table" in failure.reason
    assert failure.observed.retryable is True
