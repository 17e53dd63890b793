"""The program's output where it is not a terminal or cannot be written: widths off a terminal, a
nonsense or huge COLUMNS, a closed reader of a listing, a plugin's names printed as text, output
that cannot be written. One line, never a traceback."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys

import pytest
from rich.console import Console

from tests.support.cli import last_line, owl, owl_scripted
from tests.support.paths import REPO


@pytest.mark.parametrize("columns", ["0", "1"])
def test_a_nonsense_columns_still_prints_the_reason(tmp_path, columns):
    """Break-it: with COLUMNS=0 rich printed nothing at all — a usage error exited 2 without a word and
    `owl-bt tasks` listed nothing; COLUMNS=1 wrapped every line a letter a line."""
    proc = owl(
        "run",
        "put the apple in the bowl",
        "--scene",
        str(tmp_path / "none.toml"),
        env={"COLUMNS": columns},
    )
    assert proc.returncode == 2
    assert last_line(proc.stderr) == f"owl-bt: scene file '{tmp_path / 'none.toml'}' does not exist"
    listed = owl("tasks", env={"COLUMNS": columns})
    assert (
        listed.returncode == 0
        and "berry1     put the strawberry onto the light-grey region" in listed.stdout
    )


@pytest.mark.slow
def test_a_huge_columns_is_taken_as_500(tmp_path):
    """Break-it: COLUMNS=99999999999 ended a run that had succeeded in a MemoryError traceback (rules padded
    to that width); COLUMNS=10000000 wrote 120 MB. A run's output is now a few kilobytes."""
    proc = owl(
        "run",
        "",
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--out",
        str(tmp_path / "r"),
        env={"COLUMNS": "99999999999"},
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert len(proc.stdout) < 100_000 and proc.stdout.strip().endswith("success: true")
    rules = [line for line in proc.stdout.splitlines() if "plan sketch" in line]
    assert rules and max(len(line) for line in rules) <= 500


def test_output_that_cannot_be_written_is_one_line_not_a_traceback():
    """Break-it: `owl-bt tasks > /dev/full` (and skills, bench --help) ended in an OSError traceback; a
    reader that went away (`| head -1`) is left quietly."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "owl_bt.cli", "tasks"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "owl-bt: no space left on device writing the output"
    gone = subprocess.Popen(
        [sys.executable, "-m", "owl_bt.cli", "tasks"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    gone.stdout.close()  # before it writes a line
    assert (
        gone.wait(timeout=120) == 0
    )  # a listing the reader had enough of did what it was asked (session 16)
    assert gone.stderr.read() == ""


@pytest.mark.parametrize("command", ["tasks", "skills", "run --help", "--help"])
def test_a_listing_whose_reader_had_enough_exits_0(command):
    line = (
        f"{shlex.quote(sys.executable)} -m owl_bt.cli {command} | head -1; exit ${{PIPESTATUS[0]}}"
    )
    done = subprocess.run(
        ["bash", "-c", line], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr


def test_output_off_a_terminal_is_not_wrapped_at_80_columns():
    proc = owl_scripted("tasks")
    line = "berry1     put the strawberry onto the light-grey region at the center of the table"
    assert proc.returncode == 0 and len(line) > 80 and line in proc.stdout.splitlines()
    skills = owl_scripted("skills", "--json")
    assert {"pick", "place_ontop", "pour"} <= {
        s["name"] for s in json.loads(skills.stdout)
    }  # stdout: one JSON document


def test_a_plugins_names_are_printed_as_text_not_markup():
    from owl_bt.skills_cmd import print_skills

    buf = io.StringIO()
    record = {
        "signature": "wipe(o: Thing[/bold], s: [red]x)",
        "package": "pkg[/]",
        "entry_point": "m:[x]",
        "pre": "—",
        "add": "—",
        "delete": "—",
        "open_world": False,
        "description": "[link]d",
    }
    print_skills(Console(file=buf, width=200), [record])
    assert buf.getvalue().startswith("wipe(o: Thing[/bold], s: [red]x)  from pkg[/] (m:[x])\n")
