"""Shared fixtures: a real simulated Berry1 scene and the real skill registry."""

from __future__ import annotations

import pytest

from owl_bt.state import WorldState
from sim import tasks
from sim.world import SimWorld
from skills.registry import load_skills


@pytest.fixture(scope="session")
def skills():
    return load_skills()


@pytest.fixture(scope="session")
def schemas(skills):
    return [s.schema for s in skills.values()]


@pytest.fixture()
def berry_world() -> WorldState:
    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 0)
        return world.ground_truth()
    finally:
        world.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests marked `slow` (end-to-end episodes of tens of seconds to minutes) first, in their
    collection order, then the rest: with `-n` (pytest-xdist) the short tests then fill in around the long
    ones instead of leaving one worker alone with a long episode at the end of the run."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
