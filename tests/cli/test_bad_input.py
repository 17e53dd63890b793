"""Bad input ends in a one-line reason and the right exit code — never a traceback or a result folder:
unknown objects, option errors, arguments that are not UTF-8, a run started from a removed folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support.cli import last_line, owl
from tests.support.paths import REPO


def _one_line_error(proc):
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert lines, "expected a reason on stderr"
    return lines[-1]


def test_empty_instruction_is_usage_error(tmp_path):
    proc = owl("run", "   ", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "instruction is empty" in _one_line_error(proc)
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


def test_unknown_task_is_usage_error(tmp_path):
    proc = owl(
        "run", "put the strawberry onto the region", "--task", "nope", "--out", str(tmp_path / "r")
    )
    assert proc.returncode == 2
    assert "unknown task 'nope'" in _one_line_error(proc)


def test_a_misspelt_task_gets_the_near_name(tmp_path):
    proc = owl("run", "stand the mug upright", "--task", "cofee", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "unknown task 'cofee' (did you mean 'coffee'?); known tasks: " in _one_line_error(proc)


def test_a_usage_error_is_found_before_the_planner_and_simulator_are_loaded(tmp_path):
    # An unknown task took ~10 s to be refused, the time the planner's imports take
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "owl_bt.cli",
            "run",
            "put it down",
            "--task",
            "nope",
            "--out",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "unknown task 'nope'" in proc.stderr
    imported = {
        ln.split("|")[-1].strip()
        for ln in proc.stderr.splitlines()
        if ln.startswith("import time:")
    }
    assert "sim.tasks" in imported  # (the import log was read)
    assert not imported & {
        "trees.runner",
        "owl_bt.tamp.pddl",
        "perception.pipeline",
        "owl_bt.episode",
    }


@pytest.mark.slow
def test_a_run_says_what_it_sets_up_before_the_first_tick_and_counts_those_seconds(tmp_path):
    proc = owl(
        "run",
        "put the strawberry onto the light-grey region at the center of the table",
        "--task",
        "berry1",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 0, proc.stderr
    first = next(ln for ln in proc.stderr.splitlines() if ln.strip())
    assert (
        first.startswith("setup")
        and "building the berry1 scene (seed 0), the ur5e and its camera perception" in first
    )
    set_up = re.search(r"wall: [\d.]+ s \(after ([\d.]+) s of set-up\)", proc.stdout)
    assert set_up and float(set_up.group(1)) > 0, proc.stdout


def test_an_occupied_out_folder_is_refused_before_the_run_sets_up(tmp_path):
    # An out folder holding an earlier run was refused only after the planner had loaded
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "report.md").write_text("an earlier run")
    proc = owl("run", "put the strawberry onto the light-grey region", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2 and "already exists and is not empty" in _one_line_error(proc)
    assert (
        "setup" not in proc.stderr
        and (tmp_path / "r" / "report.md").read_text() == "an earlier run"
    )


def test_negative_seed_is_usage_error(tmp_path):
    proc = owl(
        "run", "put the strawberry onto the region", "--seed", "-3", "--out", str(tmp_path / "r")
    )
    assert proc.returncode == 2
    assert "--seed must be from 0 to" in _one_line_error(proc)


def test_run_and_bench_accept_the_same_seed_range(tmp_path):
    from owl_bt.episode_config import MAX_SEED

    too_big = str(MAX_SEED + 1)
    run = owl("run", "--task", "berry1", "--seed", too_big, "--out", str(tmp_path / "r"))
    bench = owl("bench", "--tasks", "berry1", "--seed-list", too_big, "--out", str(tmp_path / "b"))
    for proc in (run, bench):
        assert proc.returncode == 2
        assert f"from 0 to {MAX_SEED}, got {too_big}" in _one_line_error(proc)
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_object_not_in_scene_is_a_usage_error_at_once(tmp_path):
    # retrying cannot make a banana appear: no second attempt, exit 2, the object and the scene's objects named, no folder
    proc = owl(
        "run", "put the banana on the plate", "--task", "berry1", "--out", str(tmp_path / "r")
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        _one_line_error(proc)
        == "owl-bt: there is no 'banana' in the scene; it has: light_grey_region, strawberry, table"
    )
    assert "attempt 2" not in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()
    # the reason is said on its stage's line and in the last line, not again by the replan (5 times)
    assert proc.stderr.count("there is no 'banana'") == 2, proc.stderr
    assert "giving up after attempt 1: a replan cannot mend this" in proc.stderr


@pytest.mark.slow
def test_unknown_words_are_named(tmp_path):
    proc = owl(
        "run",
        "frobnicate the strawberry onto the light-grey region",
        "--out",
        str(tmp_path / "r"),
        "--max-attempts",
        "1",
    )
    assert proc.returncode == 1
    assert "'frobnicate'" in _one_line_error(proc)


def test_out_path_that_is_a_file_is_usage_error(tmp_path):
    target = tmp_path / "afile"
    target.write_text("keep me")
    proc = owl("run", "put the strawberry onto the light-grey region", "--out", str(target))
    assert proc.returncode == 2
    assert "is not a folder" in _one_line_error(proc)
    assert target.read_text() == "keep me"


def test_out_path_that_links_to_nothing_is_usage_error(tmp_path):
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "nowhere" / "dir")
    proc = owl("run", "put the strawberry onto the light-grey region", "--out", str(link))
    assert proc.returncode == 2
    assert "symbolic link to nothing" in _one_line_error(proc)
    assert not (tmp_path / "dangling.partial").exists()


@pytest.mark.slow
def test_non_english_words_are_named_not_called_empty(tmp_path):
    proc = owl("run", "把草莓放在灰色区域上", "--out", str(tmp_path / "r"), "--max-attempts", "1")
    assert proc.returncode == 1
    assert "did not understand" in _one_line_error(proc)


@pytest.mark.slow
def test_object_onto_itself_is_refused(tmp_path):
    proc = owl(
        "run",
        "put the strawberry on the strawberry",
        "--out",
        str(tmp_path / "r"),
        "--max-attempts",
        "1",
    )
    assert proc.returncode == 1
    assert "cannot put the strawberry on itself" in _one_line_error(proc)


def test_gui_without_a_display_is_usage_error(tmp_path):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            "put the strawberry onto the region",
            "--gui",
            "--out",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 2
    assert "--gui needs a display" in _one_line_error(proc)
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


def test_a_run_from_a_removed_folder_is_one_line(tmp_path):
    """Break-it: `owl-bt run` from a folder removed under the shell ended with open3d's MKL saying
    "FATAL ERROR: Cannot load libOpen3D" (exit 2, nothing of ours)."""
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
            "sys.argv = ['owl-bt', 'run', 'put the strawberry onto the light-grey region']; "
            "from owl_bt.cli import main; main()",
            str(gone),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert (
        last_line(stderr)
        == "owl-bt: the current folder no longer exists (it was removed); cd into one that does"
    )


def test_arguments_that_are_not_utf8_are_one_line(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            b"put the \xff\xfe strawberry on the region",
            "--out",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.splitlines() == [
        "owl-bt: argument 2 is not UTF-8 text ('put the \\xff\\xfe strawberry on the region'); "
        "give goals, names and paths in UTF-8"
    ]
    assert (
        list(tmp_path.iterdir()) == []
    )  # it used to write report.md with surrogates: a traceback and a .partial


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["run", "x", "--seed", "abc"], "owl-bt: invalid value for '--seed' / '-s': "),
        (["run", "x", "--bogus"], "owl-bt: no such option: --bogus"),
        (["nope"], "owl-bt: no such command 'nope'"),
        (["bench", "--jobs", "two"], "owl-bt: invalid value for '--jobs' / '-j': "),
    ],
)
def test_option_errors_are_one_line(args, reason):
    proc = owl(*args, timeout=120)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith(reason), (
        proc.stderr
    )
    assert proc.stderr.strip().endswith("--help")  # where to look
