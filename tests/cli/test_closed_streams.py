"""A standard stream the caller closed (`>&-`, `2>&-`) is taken as /dev/null (with stdout closed
the program ended in a traceback from py_trees' import; with stderr closed it printed nothing, not even
`--json`'s answer). The real program, in a subprocess."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import interrupted

ROOT = Path(__file__).resolve().parents[2]


def _owl(args: str, redirect: str) -> subprocess.CompletedProcess:
    """`python -m owl_bt.cli ARGS REDIRECT` through the shell, which closes the stream (`>&-`, `2>&-`)."""
    line = f"{shlex.quote(sys.executable)} -m owl_bt.cli {args} {redirect}"
    return subprocess.run(
        ["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_with_stdout_closed_the_program_runs_and_says_why_on_stderr() -> None:
    done = _owl("tasks", ">&-")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_with_stderr_closed_a_refused_json_run_still_answers_on_stdout() -> None:
    done = _owl("run x --task nosuch --json", "2>&-")
    assert done.returncode == 2
    answer = json.loads(done.stdout)
    assert answer["success"] is False and answer["exit_code"] == 2 and "nosuch" in answer["error"]


def _owl_in(tmp_path: Path, args: str, redirect: str) -> subprocess.CompletedProcess:
    """As _owl, run in `tmp_path` (its run folders go there) with the repository on the path."""
    line = f"PYTHONPATH={shlex.quote(str(ROOT))} {shlex.quote(sys.executable)} -m owl_bt.cli {args} {redirect}"
    return subprocess.run(
        ["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_with_stderr_on_a_full_disk_the_run_goes_on_and_answers_on_stdout(tmp_path: Path) -> None:
    # `2>/dev/full` ended the run at its first progress line, exit 1 and nothing on stdout
    done = _owl_in(tmp_path, "run --task berry1 --json --out out", "2>/dev/full")
    assert done.returncode == 0
    assert json.loads(done.stdout)["success"] is True
    assert (tmp_path / "out" / "events.jsonl").is_file() and not (tmp_path / "out.partial").exists()


@pytest.mark.slow
def test_with_the_reader_of_stderr_gone_the_run_folder_is_still_finished(tmp_path: Path) -> None:
    # `2>&1 | head -1` raised SystemExit from rich mid-run and left out.partial behind
    done = _owl_in(tmp_path, "run --task berry1 --out out", "2>&1 | head -1; exit ${PIPESTATUS[0]}")
    assert done.stdout.startswith("owl-bt: no goal given")
    assert (
        done.returncode == 0
    )  # stdout went with it once the task was done: the account is lost, not the task
    assert (tmp_path / "out" / "events.jsonl").is_file() and not (tmp_path / "out.partial").exists()


@pytest.mark.slow
def test_with_the_reader_of_stdout_gone_a_done_task_still_exits_0(tmp_path: Path) -> None:
    # `run … | head -1` ended 1 ("the task was not done") with no reason, the task done
    done = _owl_in(
        tmp_path,
        "run --task berry1 --perception sim-state --out out",
        "| head -1; exit ${PIPESTATUS[0]}",
    )
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr
    assert (tmp_path / "out" / "plan.json").is_file() and not (tmp_path / "out.partial").exists()


def test_a_json_run_stopped_while_setting_up_still_answers_on_stdout(tmp_path: Path) -> None:
    # `timeout -s TERM 1.5 owl-bt run … --json` printed nothing on stdout (exit 130)
    code, stdout, stderr = interrupted(
        "run", "", "--task", "berry1", "--json", "--out", str(tmp_path / "r"), after="setup running"
    )
    assert code == 130, stderr[-1500:]
    answer = json.loads(stdout.strip().splitlines()[-1])
    assert answer["success"] is False and "stopped by Ctrl-C (SIGINT)" in (
        answer.get("error") or answer.get("failure", "")
    )
