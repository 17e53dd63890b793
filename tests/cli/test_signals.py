"""A signal that comes while a finished run's folder is written (break-it, polish round 5), through the real
CLI in a subprocess on the real simulator."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.support.cli import last_line

BERRY1 = "put the strawberry onto the light-grey region at the center of the table"


@pytest.mark.parametrize(
    ("sig", "after"), [(signal.SIGTERM, 0.05), (signal.SIGINT, 0.12), (signal.SIGHUP, 0.2)]
)
def test_a_signal_while_the_finished_run_is_written_keeps_its_folder(tmp_path, sig, after):
    """Break-it: a signal 0.05-0.5 s after the last step (the run judged, its folder written) removed the
    finished run as an unfinished `.partial`, or ended the process as 143 with nothing said. Now the
    folder is kept whole, the exit is 130 and one line says which signal came."""
    # A signal after the run's account is printed is ignored by design (exit 0): a run that got that far
    # before the signal came is run again, the signal sent sooner.
    for delay in (after, after / 2, 0.0):
        out = tmp_path / f"r{delay}"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "owl_bt.cli",
                "run",
                BERRY1,
                "--task",
                "berry1",
                "--vlm",
                "oracle",
                "--perception",
                "sim-state",
                "--out",
                str(out),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            for line in proc.stderr:
                if (
                    "steps done" in line
                ):  # the last step is done: the tree ends, the folder is written
                    break
            time.sleep(delay)
            sent = proc.poll() is None
            if sent:
                proc.send_signal(sig)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            proc.kill()
        if sent and not (proc.returncode == 0 and "stopped by" not in stderr):
            break
    assert sent, "every run ended before the signal could be sent"
    name = "Ctrl-C (SIGINT)" if sig == signal.SIGINT else sig.name
    assert proc.returncode == 130, stderr
    assert last_line(stderr).startswith(f"owl-bt: stopped by {name} after ")  # one line, the last
    assert stdout.strip().splitlines()[-1] == "success: true"  # the account is printed whole
    assert not out.with_name("r.partial").exists()
    for name in (
        "events.jsonl",
        "plan.json",
        "report.md",
        "report.html",
        "tree.txt",
        "initial.png",
        "final.png",
    ):
        assert (out / name).is_file(), name
    assert json.loads((out / "plan.json").read_text())["result"]["success"] is True
