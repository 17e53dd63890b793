"""A standard stream the caller closed (`>&-`, `2>&-`) is taken as /dev/null (break-it: with stdout closed
the program ended in a traceback from py_trees' import; with stderr closed it printed nothing, not even
`--json`'s answer). The real program, in a subprocess."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _owl(args: str, redirect: str) -> subprocess.CompletedProcess:
    """`python -m owl_bt.cli ARGS REDIRECT` through the shell, which closes the stream (`>&-`, `2>&-`)."""
    line = f"{shlex.quote(sys.executable)} -m owl_bt.cli {args} {redirect}"
    return subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_with_stdout_closed_the_program_runs_and_says_why_on_stderr() -> None:
    done = _owl("tasks", ">&-")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_with_stderr_closed_a_refused_json_run_still_answers_on_stdout() -> None:
    done = _owl("run x --task nosuch --json", "2>&-")
    assert done.returncode == 2
    answer = json.loads(done.stdout)
    assert answer["success"] is False and answer["exit_code"] == 2 and "nosuch" in answer["error"]
