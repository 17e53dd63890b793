"""Fault specifications (owl_bt.faults): bad --faults values are usage errors, also on the command
line (exit 2, one line); values parse and print canonically; a rate is a plain decimal."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from owl_bt.errors import UsageError
from owl_bt.faults import KINDS, parse_faults
from sim import tasks

BERRY = tasks.get("berry1").instruction


@pytest.mark.parametrize(
    "spec, says",
    [
        ("grasp-slip", "has no rate"),
        ("slip=0.2", "unknown fault kind 'slip'"),
        ("knock=1.5", "must be from 0 to 1"),
        ("knock=-0.1", "must be from 0 to 1"),
        ("knock=lots", "must be a number"),
        ("knock=0.1,knock=0.2", "given twice"),
        (" , ", "is empty"),
        ("", "is empty"),
    ],
)
def test_bad_fault_values_are_usage_errors(spec, says):
    with pytest.raises(UsageError) as info:
        parse_faults(spec)
    line = info.value.reason
    assert says in line and "\n" not in line and "grasp-slip=0.2" in line  # the usage example


def test_fault_values_parse_and_print_canonically():
    spec = parse_faults(
        " arm-fault=0.05, GRASP-SLIP=0.2,knock-off=0.01,knock=0.1,miss-detect=0.1", seed=3
    )
    assert (
        spec.text() == "grasp-slip=0.2,knock=0.1,miss-detect=0.1,arm-fault=0.05,knock-off=0.01"
        and spec.seed == 3
    )
    assert set(spec.rates) == set(KINDS)
    assert not parse_faults(None) and not parse_faults("knock=0")
    with pytest.raises(UsageError):
        parse_faults("knock=0.1", seed=-1)


@pytest.mark.slow
def test_bad_faults_on_the_command_line_exit_2_with_one_line(tmp_path):
    out = tmp_path / "r"
    for cmd in (
        ["run", BERRY, "--out", str(out)],
        ["bench", "--tasks", "berry1", "--seeds", "1", "--out", str(tmp_path / "b")],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "owl_bt.cli", *cmd, "--faults", "wobble=0.1"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert (
            len(lines) == 1
            and "unknown fault kind 'wobble'" in lines[0]
            and "Traceback" not in proc.stderr
        )
    assert (
        not out.exists()
        and not out.with_name("r.partial").exists()
        and not (tmp_path / "b" / "episodes.jsonl").exists()
    )


@pytest.mark.parametrize("rate", ["1_0", "0_5", "\uff10.\uff15", "nan", "1e-1", "0x1", "--1"])
def test_a_fault_rate_is_a_plain_decimal(rate):
    with pytest.raises(
        UsageError, match=re.escape(f"the rate of knock must be a number, got {rate!r}")
    ):
        parse_faults(f"knock={rate}")


def test_plain_fault_rates_are_read():
    assert parse_faults("knock=.5, grasp-slip=1,miss-detect=0").rates == {
        "knock": 0.5,
        "grasp-slip": 1.0,
        "miss-detect": 0.0,
    }
