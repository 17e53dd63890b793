"""Progress lines on the terminal: left-aligned, feedback and failures printed as text (never as
rich markup)."""

from __future__ import annotations

import io

from rich.console import Console


def test_progress_lines_are_left_aligned(monkeypatch):
    import py_trees

    from owl_bt.cli import progress

    buf = io.StringIO()
    monkeypatch.setattr(progress, "err", Console(file=buf, width=200))
    root = py_trees.composites.Sequence(
        "owl",
        memory=True,
        children=[
            py_trees.behaviours.Success("plan"),
            py_trees.behaviours.Failure("generate-constraints"),
        ],
    )
    root.tick_once()
    progress.Progress()(root)
    lines = buf.getvalue().splitlines()
    assert [ln[:30] for ln in lines] == [
        "plan                   success",
        "generate-constraints   failure",
    ], lines


def test_progress_lines_print_feedback_as_text(monkeypatch):
    import py_trees

    from owl_bt.cli import progress as cli

    buf = io.StringIO()
    monkeypatch.setattr(cli, "err", Console(file=buf, width=200))
    root = py_trees.composites.Sequence(
        "owl", memory=True, children=[py_trees.behaviours.Failure("perceive")]
    )
    root.tick_once()
    root.children[
        0
    ].feedback_message = (
        "failed near [/bold] the [red]x"  # e.g. a reason quoting the person's words
    )
    cli._Progress()(root)
    assert buf.getvalue().split() == [
        "perceive",
        "failure",
        "—",
        "failed",
        "near",
        "[/bold]",
        "the",
        "[red]x",
    ]


def test_the_bench_bar_shows_a_failure_as_text():
    from owl_bt.bench.progress import BenchProgress
    from owl_bt.bench.runner import Outcome

    console = Console(file=io.StringIO(), width=200)
    with BenchProgress(console, "owl", 2, 0, 0) as bar:
        bar(
            {"task": "berry1", "seed": 0, "success": False, "failure": "x [/bold] y"},
            Outcome(total=2, new=1),
        )
    assert "berry1 s0 failed: x [/bold] y" in console.file.getvalue()
