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
