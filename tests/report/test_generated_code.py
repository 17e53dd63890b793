"""The generated code in a run's report: each function printed once, checkers counted as the console
counts them. Real CLI, real simulator."""

from __future__ import annotations

import re

import pytest


@pytest.mark.slow
def test_the_report_prints_each_function_once_and_counts_checkers_as_the_console_does(plate_run):
    out, proc = plate_run
    md = (out / "report.md").read_text()
    assert md.count("## Attempt ") == 3
    assert (
        md.count("def within_rim(") == 1 and md.count("def goal_check0(") == 1
    )  # attempt 2 refers to attempt 1
    assert (
        "The same as in attempt 1 (source there): `goal_check0`" in md and "`within_rim`" in md
    )  # checkers first
    said = re.search(
        r"(\d+ checkers? \(and \d+ helper functions? they call)[^;)]*(; \d+ more defined, unused)?",
        proc.stderr,
    )
    console = said.group(1) + (
        said.group(2) or ""
    )  # the console also names the helpers; the report prints them
    assert f"**Generated code**: {console})" in md
    assert (
        f"4 sketch actions and a goal, {console})" in md
    )  # the tree's feedback in the report's snapshot says the same
    assert md.count("achieve_goal(") >= 1  # the goal is the sketch's fifth line
