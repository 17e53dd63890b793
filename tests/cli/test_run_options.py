"""Run options checked before anything runs: --speed out of range, not a number or too small to
finish a motion; an empty --out, --task or file option; --gui without a display; --fault-seed without
--faults; --plan-time out of range; hardware options that do not go together (no --ip, a robot the
backend does not drive, an arm that does not answer); values a replay could not read back (an address
for the simulated arm, --max-attempts past 1000). Each is one line and exit 2. Real CLI."""

from __future__ import annotations

import pytest

from sim.tasks.berry1 import INSTRUCTION
from tests.support.cli import here, last_line, owl, owl_wide


def test_an_address_for_the_simulated_arm_is_refused(tmp_path):
    # `run --ip 1.2.3.4` with the simulated arm was taken silently
    res = here("run", "x", "--task", "berry1", "--ip", "1.2.3.4", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--ip is the address of a hardware arm" in last_line(
        res.stderr
    ), res.output


@pytest.mark.parametrize("command", ["run", "bench"])
def test_max_attempts_is_bounded_as_the_replay_reads_it(command, tmp_path):
    # --max-attempts 1001 was accepted, and --replay of that run then called its folder damaged
    args = (
        ["run", "x", "--task", "berry1"]
        if command == "run"
        else ["bench", "--tasks", "berry1", "--seeds", "1"]
    )
    res = here(*args, "--max-attempts", "1001", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--max-attempts must be from 1 to 1000, got 1001" in last_line(
        res.stderr
    ), res.output


def test_a_speed_too_small_to_finish_a_motion_is_a_usage_error(tmp_path):
    """Break-it: --speed 1e-9 was accepted ((0, 1]) and the first motion ran for ever."""
    proc = owl_wide(
        "run",
        "put the strawberry onto the light-grey region",
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--speed",
        "1e-9",
        "-q",
        "--out",
        str(tmp_path / "r"),
        timeout=60,
    )
    assert proc.returncode == 2
    assert "--speed must be a share of the joints' velocity limits from 0.01 to 1" in last_line(
        proc.stderr
    )
    assert not (tmp_path / "r").exists()


BERRY1 = "put the strawberry onto the light-grey region at the center of the table"


SHORT_BENCH = (
    "--tasks",
    "berry1",
    "--seeds",
    "1",
    "--method",
    "oracle",
    "--perception",
    "sim-state",
    "--jobs",
    "1",
)


# each short, so that a regression costs one quick episode, not a whole default bench
@pytest.mark.parametrize(
    "command",
    [
        ("bench", *SHORT_BENCH),
        ("bench", "--report-only"),
        ("perception-bench", "--tasks", "berry1", "--seeds", "1"),
        ("run", BERRY1, "--vlm", "oracle", "--perception", "sim-state"),
    ],
)
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_out_is_a_usage_error(tmp_path, monkeypatch, command, value):
    """Break-it: `bench --out ""` benched into the current folder (as a path, "" is "."). Now it is exit 2."""
    monkeypatch.chdir(tmp_path)
    res = here(*command, "--out", value)
    assert res.exit_code == 2, res.output
    assert last_line(res.stderr).startswith("owl-bt: --out is empty; give a folder, e.g. --out ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--task", "--scene", "--replay", "--audio"])
def test_an_empty_task_or_file_option_is_a_usage_error(tmp_path, option):
    """Break-it: `run GOAL --task ""` ran berry1; `--replay ""` looked for a run in the current folder and
    `--scene ""` called it a folder (as a path, "" is ".")."""
    res = here(
        "run",
        *([] if option == "--audio" else [BERRY1]),
        option,
        " " if option == "--scene" else "",
        "--vlm",
        "oracle",
        "--perception",
        "sim-state",
        "--out",
        str(tmp_path / "r"),
    )
    assert res.exit_code == 2, res.output
    assert last_line(res.stderr).startswith(f"owl-bt: {option} is empty; give ")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "0.001", "2"])
def test_a_speed_out_of_range_or_not_a_number_is_named_as_such(value, tmp_path):
    proc = owl(
        "run",
        "put the strawberry onto the light-grey region",
        "--task",
        "berry1",
        "--speed",
        value,
        "--out",
        str(tmp_path / "r"),
        timeout=60,
    )
    assert proc.returncode == 2
    line = last_line(proc.stderr)
    assert line.startswith(
        "owl-bt: --speed must be a share of the joints' velocity limits from 0.01 to 1, got "
    )
    assert not (tmp_path / "r").exists()


def test_gui_with_an_unreachable_display_is_one_line_and_leaves_nothing(tmp_path):
    proc = owl(
        "run",
        INSTRUCTION,
        "--gui",
        "--out",
        str(tmp_path / "r"),
        env={"DISPLAY": ":4242"},
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert last_line(proc.stderr).startswith("owl-bt: cannot open display :4242")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # no run folder, no .partial


@pytest.mark.parametrize(
    "command", [["run", INSTRUCTION], ["bench", "--tasks", "berry1", "--seeds", "1"]]
)
def test_fault_seed_without_faults_is_a_usage_error(tmp_path, command):
    res = here(*command, "--fault-seed", "3", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2, res.output
    assert last_line(res.stderr) == (
        "owl-bt: --fault-seed seeds the injected faults and there are none: add --faults "
        "KIND=RATE,… (e.g. --faults knock=0.1) or leave --fault-seed out"
    )
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.partial").exists()


@pytest.mark.parametrize("value", ["0", "-5", "100000", "1e-320", "86400.0001", "nan"])
def test_a_plan_time_out_of_range_is_a_usage_error(tmp_path, value):
    proc = owl("run", INSTRUCTION, "--plan-time", value, "--out", str(tmp_path / "run"))
    assert (
        proc.returncode == 2 and "--plan-time must be from 0.01 to 86400 seconds" in proc.stderr
    ), proc.stderr
    assert f"got {float(value)!r}" in proc.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
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
        (("--execute",), "--execute moves a hardware arm"),  # Both were taken silently
        (("--backend", "rtde", "--ip", "999.1.1.1"), "--ip 999.1.1.1 is not an IPv4 address"),
        (("--backend", "kortex", "--robot", "gen3", "--ip", "10.0.0.1:abc"), "nor a host name"),
    ]
    for i, (args, words) in enumerate(cases):
        out = tmp_path / f"r{i}"
        proc = owl("run", INSTRUCTION, "--out", str(out), "-q", *args, stdin="", timeout=120)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert words in lines[-1] and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert not out.exists() and not out.with_name(out.name + ".partial").exists()
