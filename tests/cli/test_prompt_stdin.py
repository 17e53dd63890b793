"""The person's prompts (--interactive) when nobody answers: Ctrl-C at the replan prompt ends the
run with exit 130 (no interpreter abort over the stdin a waiting prompt holds), and a spoken goal
that cannot be confirmed because stdin is closed is a usage error (exit 2); feedback typed at the replan
prompt is one line of text."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sim.tasks.berry1 import INSTRUCTION
from tests.support.cli import owl

AUDIO = Path(__file__).parents[1] / "fixtures" / "audio" / "berry1.wav"


@pytest.mark.slow
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


@pytest.mark.slow
def test_feedback_at_the_replan_prompt_is_one_line_of_text(tmp_path):
    out = tmp_path / "r"
    typed = "\x1b[31mgo\x00 slow\x08ly\x1b[0m\x1b]0;owned\x07 \u202e" + "a" * 2000 + "\n"
    proc = owl(
        "run",
        INSTRUCTION,
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--interactive",
        "--faults",
        "arm-fault=1",
        "--max-attempts",
        "2",
        "--out",
        str(out),
        stdin=typed,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    text = next(e["text"] for e in events if e["event"] == "feedback")
    assert text.startswith("go slowly aaa") and text.endswith("…") and len(text) == 500
    assert all(ch.isprintable() for ch in text)
    for name in ("report.md", "report.html", "plan.json", "events.jsonl"):
        content = (out / name).read_text()
        assert "\x1b" not in content and "\\u001b" not in content and "owned" not in content, name
