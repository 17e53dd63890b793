"""Fixtures of the CLI tests: finished runs of the real CLI on the real simulator, to replay and to
read the account of (session-scoped: each runs once per test process)."""

from __future__ import annotations

import pytest

from owl_bt.faults import seed_for
from sim.tasks.berry1 import INSTRUCTION
from tests.support.cli import owl, owl_wide
from tests.support.paths import REPO

KNOCK_SEED = seed_for(
    "knock", 0.5, [None, True, False, False, False, False], start=10
)  # the placed strawberry knocked once


@pytest.fixture(scope="session")
def scene_run(tmp_path_factory):
    """A finished run on a scene file (a copy of examples/fruit_bowl.toml) to replay."""
    base = tmp_path_factory.mktemp("scene")
    scene = base / "bowl.toml"
    scene.write_bytes((REPO / "examples" / "fruit_bowl.toml").read_bytes())
    out = base / "r"
    proc = owl_wide(
        "run",
        "",
        "--scene",
        str(scene),
        "--perception",
        "sim-state",
        "--budget",
        "100",
        "--quiet",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    # The task's instruction was echoed for `run "" --task …`, the scene file's never
    assert (
        'owl-bt: no goal given; using the scene file\'s instruction: "put the apple into the red bowl"'
        in proc.stderr
    )
    return scene, out


@pytest.fixture(scope="session")
def faulty_run(tmp_path_factory):
    """Berry1 with knocks injected (one fires: a replan), the offline model, ground-truth perception."""
    out = tmp_path_factory.mktemp("faulty") / "run"
    proc = owl(
        "run",
        INSTRUCTION,
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--faults",
        "knock=0.5",
        "--fault-seed",
        str(KNOCK_SEED),
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    return out, proc
