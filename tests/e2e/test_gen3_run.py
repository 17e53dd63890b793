"""The Gen3 through the CLI: a simulated run, a hardware dry run that never contacts the arm, the
hardware usage errors, and `owl-bt doctor`."""

from __future__ import annotations

import json
import subprocess
import sys

from sim.tasks.berry1 import INSTRUCTION


def owl(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


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


def test_hardware_usage_errors_are_one_line_and_leave_no_folder(tmp_path):
    cases = [
        (("--backend", "kortex"), "--ip"),
        (("--backend", "rtde", "--ip", "127.0.0.1", "--robot", "kinova-gen3"), "--robot ur5e"),
        (("--backend", "kortex", "--ip", "192.0.2.1", "--execute"), "kortex_api is not on PyPI"),
        (("--backend", "rtde", "--ip", "127.0.0.1", "--execute"), "does not answer"),
        (
            (
                "--backend",
                "ros",
            ),
            "invalid value for '--backend': 'ros' is not one of 'sim'",
        ),
        (
            (
                "--robot",
                "panda",
            ),
            "invalid value for '--robot': 'panda' is not one of 'ur5e'",
        ),
        (
            (
                "--speed",
                "1.5",
            ),
            "--speed",
        ),
        (("--execute",), "--execute moves a hardware arm"),  # break-it: both were taken silently
        (("--backend", "rtde", "--ip", "999.1.1.1"), "--ip 999.1.1.1 is not an IPv4 address"),
    ]
    for i, (args, words) in enumerate(cases):
        out = tmp_path / f"r{i}"
        proc = owl("run", INSTRUCTION, "--out", str(out), "-q", *args, timeout=120)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert words in lines[-1] and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert not out.exists() and not out.with_name(out.name + ".partial").exists()


def test_doctor_reports_each_part():
    proc = owl("doctor", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(
        line.startswith("ok   robot models:") and "kinova-gen3 (7 joints, tool 1.332 m" in line
        for line in lines
    )
    assert any("kortex_api (Kinova Gen3):" in line for line in lines)
    proc = owl(
        "doctor", "--backend", "rtde", "--ip", "127.0.0.1", timeout=120
    )  # nothing listens: the arm does not answer
    assert proc.returncode == 1 and "FAIL UR at 127.0.0.1" in proc.stdout
    assert owl("doctor", "--backend", "kortex", timeout=60).returncode == 2
