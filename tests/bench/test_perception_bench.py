"""`owl-bt perception-bench`: bad arguments exit 2 in one line, and a bench stopped by Ctrl-C writes
what it measured."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from tests.support.cli import owl_scripted


@pytest.mark.parametrize(
    "bad, says",
    [  # --seeds and --tasks are parsed as bench's are (test_bench.py)
        (["--out", "FILE"], "is not a folder"),
        (["--out", "/proc"], "cannot write in the bench folder /proc"),
    ],
)
def test_perception_bench_bad_arguments_exit_2(tmp_path, bad, says):
    (tmp_path / "FILE").write_text("x")
    proc = owl_scripted(
        "perception-bench",
        "--tasks",
        "berry1",
        "--seeds",
        "1",
        *[str(tmp_path / "FILE") if a == "FILE" else a for a in bad],
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and says in proc.stderr, (
        proc.stderr
    )


@pytest.mark.slow
def test_perception_bench_stopped_by_ctrl_c_writes_what_it_measured(tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "perception-bench",
            "--tasks",
            "berry1",
            "--seeds",
            "500",
            "--out",
            str(tmp_path),
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_default,
    )
    first = proc.stderr.readline()
    while first and not first.startswith(
        "berry1-s0:"
    ):  # past any warning printed while starting up
        first = proc.stderr.readline()
    proc.send_signal(signal.SIGINT)  # the first scene is done
    out, err = proc.communicate(timeout=120)
    assert first.startswith("berry1-s0:") and proc.returncode == 130, err
    assert (
        err.strip().splitlines()[-1].startswith("owl-bt: perception-bench stopped by Ctrl-C after ")
    )
    data = json.loads(out)
    assert data["interrupted"] is True and 1 <= data["overall"]["scenes"] < 500
    assert (
        json.loads((tmp_path / "perception_bench.json").read_text())["overall"]["scenes"]
        == data["overall"]["scenes"]
    )


def _sigint_default() -> None:
    """In the child: Ctrl-C as a terminal delivers it (pytest-xdist workers ignore SIGINT, and an
    ignored SIGINT is inherited, so Python would install no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
