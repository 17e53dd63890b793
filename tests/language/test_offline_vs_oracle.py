"""The offline grounder reads each benchmark instruction as the task's hand-written oracle answer means
it (tests/support/grounder_vs_oracle.py; no planning): the same sketch up to the order of independent steps on
every task, and checkers accepting the same regions, up to margins, where they once differed — the
round plate (Citrus), the round bowl (BerryCook), the emptied mug and its pour (Mug3), the room left
beside the apple and the soup in the bowl (SoupPour)."""

from __future__ import annotations

import pytest

from sim import tasks
from tests.support.grounder_vs_oracle import answers, differences, sketch_differences


@pytest.mark.parametrize("name", list(tasks.TASKS))
def test_the_sketch_means_what_the_oracle_sketch_means(name, schemas):
    a = answers(name, 1, schemas)
    assert a.offline is not None, a.error
    assert sketch_differences(a.oracle, a.offline) == []


@pytest.mark.parametrize("name", ["citrus", "mug3"])
def test_the_checkers_accept_what_the_oracle_checkers_accept(name, schemas):
    found = [d for d in differences(name, 0, schemas) if not d.startswith("at the edge only")]
    assert found == []
