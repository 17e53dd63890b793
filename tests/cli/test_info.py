"""`owl-bt tasks`: the benchmark tasks are listed."""

from __future__ import annotations

from tests.support.cli import owl


def test_tasks_lists_berry1():
    proc = owl("tasks")
    assert proc.returncode == 0
    assert "berry1" in proc.stdout and "light-grey region" in proc.stdout
