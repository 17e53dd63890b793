"""The Gen3 through the CLI: a hardware dry run plans and checks, and never contacts the arm. (Its usage
errors are in tests/cli/test_run_options.py, `owl-bt doctor` in tests/owl_bt/test_doctor.py.)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sim.tasks.berry1 import INSTRUCTION


def owl(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
def test_gen3_hardware_dry_run_plans_checks_and_never_contacts_the_arm(tmp_path):
    out = tmp_path / "dry"
    # 192.0.2.1 is a documentation address: nothing answers there, and a dry run must not try
    proc = owl(
        "run",
        INSTRUCTION,
        "--vlm",
        "oracle",
        "--backend",
        "kortex",
        "--ip",
        "192.0.2.1",
        "--out",
        str(out),
        "--json",
        "-q",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["success"] is True and result["guard_rejections"] == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    start = events[0]
    assert (start["robot"], start["backend"], start["speed"], start["dry_run"]) == (
        "kinova-gen3",
        "kortex",
        0.25,
        True,
    )
    assert events[-1]["guard_rejections"] == 0
    # and it says so on the console, not only in report.md (the account above it reads like a real run)
    plain = owl(
        "run",
        INSTRUCTION,
        "--vlm",
        "oracle",
        "--backend",
        "kortex",
        "--ip",
        "192.0.2.1",
        "--out",
        str(tmp_path / "p"),
    )
    assert (
        "dry run: planned, checked and executed in simulation only; the kinova-gen3 at 192.0.2.1 was not contacted"
        in plain.stdout
    ), plain.stdout
