"""Run reports: every run folder gets report.md / report.html and the final tree as tree.dot /
tree.png, built from the folder itself; the terminal shows the live tree only on a terminal."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import py_trees
import pydot
import pytest
from rich.console import Console

from owl_bt.episode import EpisodeConfig, run_episode
from owl_bt.report.live import LiveTree, render_tree
from owl_bt.report.writer import write_report
from sim import tasks

BERRY = "put the strawberry onto the light-grey region at the center of the table"


@pytest.fixture(scope="module")
def success_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "ok"
    result = run_episode(EpisodeConfig(BERRY, "berry1", 0, out))
    assert result.success
    return out


@pytest.mark.slow
def test_successful_run_folder_has_the_report_and_tree_drawings(success_run):
    out = success_run
    assert not out.with_name(out.name + ".partial").exists()
    for name in (
        "report.md",
        "report.html",
        "tree.dot",
        "tree.png",
        "tree.txt",
        "initial.png",
        "final.png",
        "plan.json",
    ):
        assert (out / name).is_file(), name
    assert (out / "tree.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (graph,) = pydot.graph_from_dot_file(str(out / "tree.dot"))
    labels = " ".join(str(n.get("label")) for n in graph.get_nodes())
    for behaviour in ("perceive", "generate-constraints", "plan", "execute", "replan"):
        assert behaviour in labels
    assert (
        "did not run" in labels and "invalid" not in labels
    )  # (tree.png said py_trees' 'invalid')
    md = (out / "report.md").read_text()
    plan = json.loads((out / "plan.json").read_text())
    assert md.startswith(f"# Run report: {BERRY}")
    assert "**success**" in md and "tick rate" in md
    assert "arm `ur5e` on `sim`" in md  # which arm ran (a Gen3 run's report did not say)
    assert (
        "![the scene before the run" in md
        and "| ![before](initial.png) | ![after](final.png) |" in md
    )
    # initial.png is the overview render; the perceive stage's own view is perception-1.png
    assert "from the overview camera" in md and "[perception-1.png](perception-1.png)" in md
    assert (out / "perception-1.png").is_file()
    assert "pick(strawberry); grasp the strawberry" in md  # the sketch
    assert "def goal_check0():" in md  # the checkers with their sources
    # the checkers come before the helper functions they call (the helpers filled the first page)
    assert md.index("**Checker `goal_check0`**") < md.index("**Helper `")
    from owl_bt.language.checker_names import called_helpers

    printed = re.findall(r"\*\*Helper `(\w+)`\*\*", md)
    assert printed and printed == called_helpers(
        plan["checkers"]
    )  # only the helpers the checkers call are printed
    assert "Defined but not called by the checkers" in md  # the offline grounder defines all twelve
    assert (
        "`pick(strawberry)` → `place_ontop(strawberry, light_grey_region)`" in md
    )  # the attempt's plan
    for step in plan["steps"]:
        assert f"`{step['action']}`" in md
    for stage in ("perceive", "generate-constraints", "plan", "execute"):
        assert f"| 1 | {stage} |" in md  # timings per stage
    assert "![the final tree (Graphviz)](tree.png)" in md and "--> execute [✓]" in md
    html = (out / "report.html").read_text()
    assert (
        "<table>" in html
        and '<img alt="after" src="final.png"' in html
        and '<code class="language-python">' in html
    )


@pytest.mark.slow
def test_the_report_says_where_everything_ended(success_run):
    md = (
        success_run / "report.md"
    ).read_text()  # the final-state table (tests/report/test_final_state.py)
    assert (
        "Where everything ended (the simulator;" in md
        and "| strawberry | on the light grey region |" in md
    )


@pytest.mark.slow
def test_the_plans_own_samples_are_told_apart_from_the_runs(success_run, tmp_path):
    # The header said 644 samples and the plan's rows added up to 11, with nothing to say why
    import shutil

    out = tmp_path / "run"
    shutil.copytree(success_run, out)
    plan = json.loads((out / "plan.json").read_text())
    kept = sum(s["samples"] for s in plan["steps"])
    plan["result"]["samples"] = kept + 633  # as after backtracking
    (out / "plan.json").write_text(json.dumps(plan))
    write_report(out)
    md = (out / "report.md").read_text()
    assert "| samples (all attempts) |" in md
    assert (
        f"The kept steps drew {kept} of the run's {kept + 633} samples; the others went to draws refused"
        in md
    )


@pytest.mark.slow
def test_failed_run_reports_each_attempt_its_failure_and_tree(tmp_path):
    """One sample per action on a cluttered task (no plan is found, twice): both attempts, their typed
    failures with evidence, the replan lines and the tree at the end of attempt 1 are in the report."""
    out = tmp_path / "fail"
    mug2 = tasks.get("mug2")
    result = run_episode(
        EpisodeConfig(mug2.instruction, "mug2", 0, out, vlm="oracle", max_attempts=2, budget=1)
    )
    assert not result.success and result.attempts == 2
    md = (out / "report.md").read_text()
    assert "**not done**" in md and "## Attempt 1" in md and "## Attempt 2" in md
    one, two = md.split("## Attempt 2")
    history = result.history
    assert len(history) == 2
    assert (
        "**Failure** — stage `" in one
        and f"Replan: {history[0]}" in one
        and "Tree at the end of attempt 1" in one
    )
    assert "**Failure** — stage `" in two and f"Replan: {history[1]} — giving up" in two
    assert '"offending_objects"' in md  # the failure records' evidence


def test_report_of_a_broken_folder_says_what_it_can(tmp_path):
    (tmp_path / "events.jsonl").write_bytes(
        b'not json\n[1, 2]\n{"event": "start", "instruction": "x", "timestamp": "bad"}\n'
        b'{"event": "perceived", "timestamp": 5}\n{"event": "end", "failure": "\xff"}\n'
    )
    (tmp_path / "plan.json").write_text("{truncated")
    (tmp_path / "speech.json").write_text("[1]")
    write_report(tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert (
        md.startswith("# Run report: x")
        and "**unfinished**" in md
        and "could not be made" not in md
    )
    assert (tmp_path / "report.html").read_text().startswith("<!doctype html>")


def _tree() -> py_trees.behaviour.Behaviour:
    root = py_trees.composites.Sequence(
        "owl",
        memory=True,
        children=[
            py_trees.behaviours.Success("perceive"),
            py_trees.behaviours.Running("plan"),
            py_trees.behaviours.Success("execute"),
        ],
    )
    root.tick_once()
    return root


def test_live_tree_draws_statuses_on_a_terminal():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    with LiveTree(console, fps=1000) as live:
        live(_tree())
    text = buf.getvalue()
    assert "perceive" in text and "success" in text and "running" in text
    plain = Console(file=io.StringIO(), width=100)
    plain.print(render_tree(_tree(), 1.5))
    assert "plan  … running" in plain.file.getvalue()
    # py_trees says 'invalid' for a behaviour not run in this round: while the run goes on, it is "not yet"
    assert "invalid" not in text and "execute  - not yet" in plain.file.getvalue()
    ended = py_trees.composites.Sequence(
        "owl",
        memory=True,
        children=[py_trees.behaviours.Failure("perceive"), py_trees.behaviours.Success("plan")],
    )
    ended.tick_once()
    plain = Console(file=io.StringIO(), width=100)
    plain.print(render_tree(ended, 1.5))
    assert "plan  - did not run" in plain.file.getvalue()  # once the run has ended, it did not run


@pytest.mark.slow
def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            BERRY,
            "--task",
            "berry1",
            "--out",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 0, r.stderr
    assert "perceive success" in " ".join(r.stderr.split()) and "\x1b[" not in r.stderr
    assert (tmp_path / "r" / "report.md").exists()


def test_the_persons_words_are_text_in_the_page(tmp_path):
    start = {
        "event": "start",
        "instruction": "put it <script>alert(1)</script> \x1b[2J there",
        "timestamp": "bad",
    }
    (tmp_path / "events.jsonl").write_text(json.dumps(start) + "\n")
    write_report(tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert "<script>" not in page and "<h1>Run report: put it &lt;script&gt;" in page
    assert "<title>Run report: put it &lt;script&gt;" in page  # escaped once, not twice


def test_quoted_text_cannot_script_the_page(tmp_path):
    words = "I did not understand <script>alert(1)</script> [c](javascript:alert(2)) <img src=x onerror=alert(3)>"
    events = [
        {
            "event": "start",
            "instruction": "put <b>it</b> there",
            "timestamp": "2026-01-01T00:00:00Z",
        },
        {
            "event": "failure",
            "stage": "plan<svg onload=alert(4)>",
            "reason": "<iframe src=x></iframe>",
        },
        {"event": "end", "success": False, "failure": words, "detector": "<script>d()</script>"},
    ]
    (tmp_path / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    write_report(tmp_path)
    page = (tmp_path / "report.html").read_text()
    for bad in ("<script", "<iframe", "<svg", '<img src="x"', "javascript:", "<b>it"):
        assert bad not in page
    assert (
        "I did not understand &lt;script&gt;alert(1)&lt;/script&gt;" in page
    )  # shown as the words they are


def test_the_safety_guard_of_a_healthy_run_is_drawn_as_not_needed_not_as_a_failure():
    # the live tree drew the healthy safety branch as a red "✕ failure"
    from trees.safety import ARM_KEY, ArmStatus, create_safety_subtree

    writer = py_trees.blackboard.Client(name="test-arm")
    writer.register_key(ARM_KEY, access=py_trees.common.Access.WRITE)
    writer.set(ARM_KEY, ArmStatus())
    guard = create_safety_subtree()
    guard.tick_once()
    assert guard.status == py_trees.common.Status.FAILURE
    plain = Console(file=io.StringIO(), width=120)
    plain.print(render_tree(guard, 0.0))
    first = plain.file.getvalue().splitlines()[1]
    assert first.startswith("safety  ✓ not needed") and "failure" not in first, first
    failed = py_trees.behaviours.Failure("plan")
    failed.tick_once()
    plain = Console(file=io.StringIO(), width=120)
    plain.print(render_tree(failed, 0.0))
    assert "plan  ✕ failure" in plain.file.getvalue()  # any other failure is still one


def test_a_tree_taller_than_the_terminal_is_folded_to_fit_keeping_what_runs():
    # on a small terminal the live tree piled up stale header lines
    S = py_trees.common.Status

    def node(name, status, *children):
        b = (
            py_trees.composites.Sequence(name, memory=True, children=list(children))
            if children
            else py_trees.behaviours.Success(name)
        )
        b.status = status
        return b

    guard = node(
        "safety",
        S.FAILURE,
        node("make-safe", S.INVALID, *(node(f"s{i}", S.INVALID) for i in range(4))),
    )
    guard.failure_means_all_well = True
    root = node(
        "owl",
        S.RUNNING,
        node("gather", S.SUCCESS, *(node(f"g{i}", S.SUCCESS) for i in range(4))),
        guard,
        node(
            "attempt",
            S.RUNNING,
            node("perceive", S.SUCCESS),
            node("plan", S.RUNNING),
            node("execute", S.INVALID),
        ),
    )
    full = render_tree(root, 1.0)
    assert len(full.renderables) == 17  # the header and 16 behaviours
    for height, folded_away in ((12, "(+5 inside)"), (8, "(+4 inside)")):
        folded = render_tree(root, 1.0, max_lines=height)
        plain = Console(file=io.StringIO(), width=60)
        plain.print(folded)
        text = plain.file.getvalue()
        assert (
            len(folded.renderables) <= height and "plan  … running" in text and folded_away in text
        ), text
        assert all(len(line) <= 60 for line in text.splitlines())  # cut, never wrapped
    tiny = Console(file=io.StringIO(), width=60)
    tiny.print(render_tree(root, 1.0, max_lines=5))
    assert tiny.file.getvalue().splitlines()[1:] == [
        "  … 4 lines above",
        "    └ perceive  ✓ success",
        "    └ plan  … running",
        "    └ execute  - not yet",
    ]


@pytest.mark.slow
def test_a_run_on_a_terminal_writes_no_colour_codes_into_its_files(tmp_path):
    # py_trees colours its tree when stdout is a terminal, and tree.txt, report.md and
    # report.html then held escape codes
    import shlex
    import shutil

    out = tmp_path / "r"
    assert shutil.which("script"), "util-linux's script(1) gives the run a terminal"
    cmd = shlex.join(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            BERRY,
            "--task",
            "berry1",
            "--perception",
            "sim-state",
            "--out",
            str(out),
        ]
    )
    proc = subprocess.run(
        ["script", "-q", "-e", "-c", cmd, "/dev/null"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=240,
    )
    assert b"\x1b[" in proc.stdout  # it did run on a terminal (the live tree is drawn)
    assert proc.returncode == 0
    for name in ("tree.txt", "report.md", "report.html"):
        assert "\x1b[" not in (out / name).read_text(), name
    assert "safety [✓ not needed]" in (out / "tree.txt").read_text()


def test_an_attempt_whose_plan_is_empty_says_nothing_to_do():
    # The line read "**Plan** (0 continuous samples drawn): " and nothing after it
    from owl_bt.report.events import Attempt
    from owl_bt.report.writer import _attempt

    empty = _attempt(Attempt(4, planned={"plan": [], "samples": 0}), {})
    assert (
        "**Plan**: nothing to do (the goal already holds)" in empty
        and "samples drawn): " not in "\n".join(empty)
    )
    two = _attempt(
        Attempt(1, planned={"plan": ["pick(apple)", "place_ontop(apple, plate)"], "samples": 7}), {}
    )
    assert (
        "**Plan** (7 continuous samples drawn): `pick(apple)` → `place_ontop(apple, plate)`" in two
    )


def test_a_guard_whose_work_ran_and_failed_is_drawn_failed_not_unentered():
    """Every failed run's tree.png showed `task — not entered: its condition is false`."""
    from trees.snapshot import tree_snapshot

    ran = py_trees.decorators.EternalGuard(
        name="task", child=py_trees.behaviours.Failure(name="work"), condition=lambda: True
    )
    shut = py_trees.decorators.EternalGuard(
        name="safety", child=py_trees.behaviours.Success(name="make safe"), condition=lambda: False
    )
    for guard in (ran, shut):
        guard.setup_with_descendants()
        guard.tick_once()
    assert "task\\nfailure" in tree_snapshot(ran)["dot"]
    assert "safety\\nnot entered: its condition is\\nfalse" in tree_snapshot(shut)["dot"]
