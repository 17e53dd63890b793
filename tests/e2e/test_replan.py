"""Replanning through the real CLI on the real simulator: a failure repeated with the same constraints, or a
hopeless one seen twice, ends the run instead of replanning forever."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import last_line, owl_wide
from tests.support.paths import REPO

FRUIT_BOWL = str(REPO / "examples" / "fruit_bowl.toml")


@pytest.mark.slow
def test_an_attempt_failing_as_an_earlier_one_did_with_the_same_constraints_ends_the_run(plate_run):
    """The attempts fail exactly alike (same stage, action, reason, sketch and checkers): a sample
    budget spent in vain may be met by new draws once more, but the third time the run stops there
    instead of burning the last attempt."""
    out, proc = plate_run
    result = json.loads(proc.stdout)
    assert result["attempts"] == 3, result
    assert "the same failure as attempt 1 with the same plan sketch and checkers" in last_line(
        proc.stderr
    )
    failures = json.loads((out / "plan.json").read_text())["failures"]
    assert [f["observed"].get("repeat_of") for f in failures] == [None, None, 1]


@pytest.mark.slow
def test_a_hopeless_failure_repeated_ends_the_run_at_its_second_occurrence(tmp_path):
    """An apple wider than the mug's opening cannot go in however the draws fall: the run stopped only at
    attempt 3, as for a sampled failure; now the planner says so before drawing, and no replan
    follows."""
    proc = owl_wide(
        "run",
        "put the apple into the mug",
        "--scene",
        FRUIT_BOWL,
        "--perception",
        "sim-state",
        "--json",
        "--quiet",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 1, proc.stderr
    assert (
        json.loads(proc.stdout)["attempts"] == 1
    )  # judged before any sample; a replan would find the same
    assert "does not fit into mug" in last_line(
        proc.stderr
    ) and "wider than mug's opening" in last_line(proc.stderr)
