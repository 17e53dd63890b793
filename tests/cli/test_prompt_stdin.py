"""The person's prompts (--interactive) when nobody answers: Ctrl-C at the replan prompt ends the
run with exit 130 (no interpreter abort over the stdin a waiting prompt holds), and a spoken goal
that cannot be confirmed because stdin is closed is a usage error (exit 2)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

AUDIO = Path(__file__).parents[1] / "fixtures" / "audio" / "berry1.wav"


def test_ctrl_c_at_the_replan_prompt_exits_130(tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            "put the strawberry on the light-grey region",
            "--task",
            "berry1",
            "--interactive",
            "--faults",
            "arm-fault=1",
            "--perception",
            "sim-state",
            "--out",
            str(tmp_path / "r"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_sigint_default,
    )
    seen = ""
    while (
        "feedback for attempt" not in seen
    ):  # wait until the replan prompt is up (it ends without a newline)
        chunk = os.read(proc.stderr.fileno(), 4096).decode(errors="replace")
        assert chunk, seen
        seen += chunk
    proc.send_signal(signal.SIGINT)
    _, raw = proc.communicate(timeout=120)
    err = raw.decode(errors="replace")
    assert proc.returncode == 130, seen + err
    assert "Fatal Python error" not in err and "Traceback" not in err
    assert (tmp_path / "r").is_dir() and not (tmp_path / "r.partial").exists()


def test_a_spoken_goal_with_stdin_closed_is_a_usage_error(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "run",
            "--audio",
            str(AUDIO),
            "--task",
            "berry1",
            "--interactive",
            "--out",
            str(tmp_path / "r"),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        "Traceback" not in proc.stderr
        and "standard input is closed" in proc.stderr.strip().splitlines()[-1]
    )
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


def _sigint_default() -> None:
    """In the child: Ctrl-C as a terminal delivers it (pytest-xdist workers ignore SIGINT, and an
    ignored SIGINT is inherited, so Python would install no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
