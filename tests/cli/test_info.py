"""`owl-bt tasks`: the benchmark tasks are listed."""

from __future__ import annotations

from tests.support.cli import owl, owl_wide


def test_tasks_lists_berry1():
    proc = owl("tasks")
    assert proc.returncode == 0
    assert "berry1" in proc.stdout and "light-grey region" in proc.stdout


def test_tasks_all_lists_every_task_run_takes():
    proc = owl_wide("tasks", "--all")  # one line a task, whatever COLUMNS the test inherits
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == 40
    assert any(ln.split()[:2] == ["tower_hue", "stack"] for ln in lines)
    assert any(ln.startswith("scaling-n24 ") for ln in lines)
