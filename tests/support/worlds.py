"""A simulated world holding given catalogue objects, settled: the scene the planning tests build."""

from __future__ import annotations

from owl_bt.state import Pose, WorldState
from sim import catalog
from sim.world import SimWorld


def world_with(*objs: tuple[str, tuple[float, ...]]) -> SimWorld:
    """A SimWorld with each (kind, pose) added — pose: (x, y, z[, roll, pitch, yaw]), metres/radians,
    world frame — and settled for 1 s. The caller closes it."""
    world = SimWorld()
    for kind, pose in objs:
        world.add(catalog.make(kind), Pose(*pose))
    world.settle(1.0)
    return world


def settled_state(*objs: tuple[str, tuple[float, ...]]) -> WorldState:
    """The ground-truth WorldState of `world_with(*objs)` (settled for 1 s); the world is closed."""
    world = world_with(*objs)
    try:
        return world.ground_truth()
    finally:
        world.close()


def task_state(task: str, seed: int):
    """The settled initial WorldState (ground truth) of a benchmark task's seed; the world is closed."""
    from sim import tasks

    world = SimWorld()
    try:
        tasks.get(task).build(world, seed)
        return world.ground_truth()
    finally:
        world.close()


def perceived_state(task: str, seed: int):
    """The WorldState the camera pipeline perceives in a benchmark task's initial scene for `seed` (what
    a run plans in: poses and sizes off by perception's errors); the world is closed."""
    from owl_bt.episode import sim_camera_pipeline
    from perception.source import CameraSource
    from sim import tasks

    world = SimWorld()
    try:
        tasks.get(task).build(world, seed)
        camera, pipeline = sim_camera_pipeline(world, seed)
        return CameraSource(camera, pipeline, robot=lambda: world.robot_state(None)).observe().world
    finally:
        world.close()
