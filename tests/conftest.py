"""Shared fixtures: a real simulated Berry1 scene, the real skill registry, and a finished failed run
of the real CLI to inspect."""

from __future__ import annotations

import copy

import pytest

from owl_bt.state import WorldState
from sim import tasks
from sim.world import SimWorld
from skills.registry import load_skills
from tests.support.cli import owl_wide
from tests.support.paths import EXAMPLES

FRUIT_BOWL = str(EXAMPLES / "fruit_bowl.toml")


@pytest.fixture(scope="session")
def skills():
    return load_skills()


@pytest.fixture(scope="session")
def schemas(skills):
    return [s.schema for s in skills.values()]


@pytest.fixture(scope="session")
def berry_truth() -> WorldState:
    """Berry1 seed 0 as the simulator builds it (built once per test process)."""
    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 0)
        return world.ground_truth()
    finally:
        world.close()


@pytest.fixture()
def berry_world(berry_truth: WorldState) -> WorldState:
    """A test's own copy of Berry1 seed 0's ground truth: what one test changes, the next never sees."""
    return copy.deepcopy(berry_truth)


@pytest.fixture(scope="session")
def plate_run(tmp_path_factory):
    """The plate cannot be grasped, so every attempt fails at the plan stage the same way, by sampling. (Not
    "into the red bowl": the plate fits no bowl, which the planner now says before it draws a sample.)"""
    out = tmp_path_factory.mktemp("plate") / "r"
    proc = owl_wide(
        "run",
        "put the plate on the left side of the table",
        "--scene",
        FRUIT_BOWL,
        "--perception",
        "sim-state",
        "--budget",
        "60",
        "--json",
        "--quiet",
        "--out",
        str(out),
    )
    assert proc.returncode == 1, proc.stderr
    return out, proc


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests marked `slow` (end-to-end episodes of tens of seconds to minutes) first, in their
    collection order, then the rest: with `-n` (pytest-xdist) the short tests then fill in around the long
    ones instead of leaving one worker alone with a long episode at the end of the run."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _checkers_run_again():
    """Each test is a new run: a stop that an earlier test's run received in this process (the shared
    checker worker answers "stopping" until the next run begins) must not reach it."""
    from owl_bt.language import sandbox_client

    sandbox_client.shared().resume()
    yield


@pytest.fixture(params=["dangling", "loop"])
def link_to_nothing(request, tmp_path):
    """tmp_path/frames: a symbolic link to nothing, dangling or in a loop of two links."""
    link = tmp_path / "frames"
    if request.param == "dangling":
        link.symlink_to(tmp_path / "nothing")
    else:
        link.symlink_to(tmp_path / "other")
        (tmp_path / "other").symlink_to(link)
    return link
