"""Fixtures for perception tests: the pyrealsense2 fake installed in place of the library."""

from __future__ import annotations

import sys

import pytest

from tests.support import fake_pyrealsense2


@pytest.fixture()
def fake_realsense(monkeypatch: pytest.MonkeyPatch):
    """`import pyrealsense2` gives the fake (tests/support/fake_pyrealsense2.py) with a fresh,
    connected device; the fake module is returned (its DEVICE is what the test controls)."""
    monkeypatch.setattr(fake_pyrealsense2, "DEVICE", fake_pyrealsense2.Device())
    monkeypatch.setitem(sys.modules, "pyrealsense2", fake_pyrealsense2)
    return fake_pyrealsense2


@pytest.fixture()
def unlabelled_scene():
    """Build `task`'s scene for `seed` and return (world, camera, pipeline, task) with the
    label-free pipeline (`--perception camera-unlabelled`); the world is closed afterwards."""
    from owl_bt.episode import sim_camera_pipeline
    from sim import tasks
    from sim.world import SimWorld

    worlds = []

    def make(task_name: str, seed: int = 0):
        world = SimWorld()
        worlds.append(world)
        task = tasks.get(task_name)
        task.build(world, seed)
        camera, pipeline = sim_camera_pipeline(
            world, seed, unlabelled=True, instruction=task.instruction
        )
        return world, camera, pipeline, task

    yield make
    for w in worlds:
        w.close()


@pytest.fixture()
def standing_in_mug():
    """`make(*names)`: an upright mug at (0.45, 0.15) with each of one or two named things (a
    knife, a fork) set standing in it, settled; returns (world, the ground-truth states, a camera
    of that world). The world is closed afterwards."""
    import math

    from owl_bt.episode import sim_camera_pipeline
    from tests.support.worlds import world_with

    worlds = []

    def make(*names: str):
        spots = [(0.452, 0.15)] if len(names) == 1 else [(0.455, 0.16), (0.452, 0.14)]
        things = [
            (n, (x, y, 0.11, 0.0, math.pi / 2, 0.0)) for n, (x, y) in zip(names, spots, strict=True)
        ]
        world = world_with(("mug", (0.45, 0.15, 0.045, 0.0, 0.0, 0.0)), *things)
        worlds.append(world)
        world.settle(1.0)
        return world, world.object_states(), sim_camera_pipeline(world, seed=0)[0]

    yield make
    for world in worlds:
        world.close()


@pytest.fixture()
def mustard_bottle():
    """The mustard bottle of Mug2 seed 0 as label-free perception names it (kind set)."""
    from owl_bt.state import ObjectState, Pose

    return ObjectState(
        "mustard_bottle",
        "mustard_bottle",
        Pose(0.457, 0.062, 0.099),
        (0.08, 0.06, 0.19),
        "box",
        kind="mustard_bottle",
    )
