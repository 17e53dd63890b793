"""The run's account written to a file or a pipe (not a terminal) carries the code whole. Real CLI, real
simulator."""

from __future__ import annotations

import pytest

from tests.support.cli import owl


@pytest.mark.slow
def test_the_checkers_printed_to_a_pipe_are_whole(tmp_path):
    # `run … > file` cut a checker's line at 120 columns with no mark that it was cut
    proc = owl(
        "run",
        "put the strawberry near where the other fruit are",
        "--task",
        "citrus",
        "--perception",
        "sim-state",
        "--out",
        str(tmp_path / "r"),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    line = next(
        x for x in proc.stdout.splitlines() if x.strip().startswith('return all([on("strawberry"')
    )
    assert len(line) > 120 and line.endswith(")])")
