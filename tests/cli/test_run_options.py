"""Option values a run takes only within what a replay reads back (break-it): an address for the simulated
arm, and --max-attempts past 1000, which a replay of that run then called damage."""

from __future__ import annotations

import pytest

from tests.support.cli import here, last_line


def test_an_address_for_the_simulated_arm_is_refused(tmp_path):
    # break-it: `run --ip 1.2.3.4` with the simulated arm was taken silently
    res = here("run", "x", "--task", "berry1", "--ip", "1.2.3.4", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--ip is the address of a hardware arm" in last_line(
        res.stderr
    ), res.output


@pytest.mark.parametrize("command", ["run", "bench"])
def test_max_attempts_is_bounded_as_the_replay_reads_it(command, tmp_path):
    # break-it: --max-attempts 1001 was accepted, and --replay of that run then called its folder damaged
    args = (
        ["run", "x", "--task", "berry1"]
        if command == "run"
        else ["bench", "--tasks", "berry1", "--seeds", "1"]
    )
    res = here(*args, "--max-attempts", "1001", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--max-attempts must be from 1 to 1000, got 1001" in last_line(
        res.stderr
    ), res.output
