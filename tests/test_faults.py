"""Fault injection and recovery (owl_bt.faults, trees/): each kind injected into a real simulated
Berry1 episode (real pybullet, the real planner and executive) and recovered from, with the fault
seed picked so that exactly the wanted fault fires where wanted; and bad --faults values."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from owl_bt.episode import EpisodeConfig, run_episode
from owl_bt.errors import UsageError
from owl_bt.faults import KINDS, parse_faults, seed_for
from sim import tasks

BERRY = tasks.get("berry1").instruction


def _events(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


def _run(tmp_path, faults: str, seed: int) -> tuple:
    out = tmp_path / "run"
    result = run_episode(EpisodeConfig(BERRY, "berry1", 0, out, vlm="oracle", perception="sim-state",
                                       faults=faults, fault_seed=seed))
    plan = json.loads((out / "plan.json").read_text())
    return result, plan, _events(out)


def _no_stale_text(tree_text: str) -> None:
    """Nodes that did not run in the last round (status [-]) show no earlier attempt's text."""
    for line in tree_text.splitlines():
        if "[-]" in line:
            assert " -- " not in line, line


@pytest.mark.parametrize("spec, says", [
    ("grasp-slip", "has no rate"),
    ("slip=0.2", "unknown fault kind 'slip'"),
    ("knock=1.5", "must be from 0 to 1"),
    ("knock=-0.1", "must be from 0 to 1"),
    ("knock=lots", "must be a number"),
    ("knock=0.1,knock=0.2", "given twice"),
    (" , ", "is empty"),
    ("", "is empty"),
])
def test_bad_fault_values_are_usage_errors(spec, says):
    with pytest.raises(UsageError) as info:
        parse_faults(spec)
    line = info.value.reason
    assert says in line and "\n" not in line and "grasp-slip=0.2" in line  # the usage example


def test_fault_values_parse_and_print_canonically():
    spec = parse_faults(" arm-fault=0.05, GRASP-SLIP=0.2,knock=0.1,miss-detect=0.1", seed=3)
    assert spec.text() == "grasp-slip=0.2,knock=0.1,miss-detect=0.1,arm-fault=0.05" and spec.seed == 3
    assert set(spec.rates) == set(KINDS)
    assert not parse_faults(None) and not parse_faults("knock=0")
    with pytest.raises(UsageError):
        parse_faults("knock=0.1", seed=-1)


@pytest.mark.parametrize("args, says", [
    (["--faults", "wobble=0.1"], "unknown fault kind 'wobble'"),
    (["--faults", "knock=2"], "must be from 0 to 1"),
    (["--faults", "knock=0.1", "--fault-seed", "-3"], "--fault-seed must be 0 or more"),
])
def test_bad_faults_on_the_command_line_exit_2_with_one_line(tmp_path, args, says):
    out = tmp_path / "r"
    proc = subprocess.run([sys.executable, "-m", "owl_bt.cli", "run", BERRY, "--out", str(out), *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in proc.stderr
    assert not out.exists() and not out.with_name("r.partial").exists()
    bench = subprocess.run([sys.executable, "-m", "owl_bt.cli", "bench", "--tasks", "berry1", "--seeds", "1",
                            "--out", str(tmp_path / "b"), *args], capture_output=True, text=True, timeout=120)
    assert bench.returncode == 2 and says in bench.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_knocked_object_is_seen_off_plan_and_the_task_replanned(tmp_path):
    # the knock's chance comes up after the second step only: the strawberry just set down is knocked away
    seed = seed_for("knock", 0.5, [None, True, False, False, False, False])
    result, plan, events = _run(tmp_path, "knock=0.5", seed)
    knocks = [e for e in events if e["event"] == "fault_injected"]
    assert [k["kind"] for k in knocks] == ["knock"] and knocks[0]["object"] == "strawberry"
    assert knocks[0]["moved_m"] >= 0.04
    assert result.success and result.declared_success, (result.failure, result.history)
    assert result.attempts == 2 and "strawberry" in result.history[0] and "came to rest" in result.history[0]
    assert plan["failures"][0]["kind"] == "POSTCONDITION" and plan["failures"][0]["offending_objects"] == ["strawberry"]
    assert plan["result"]["faults"]["counts"] == {"knock": 1} and plan["result"]["replans"] == 1
    _no_stale_text(result.tree_text)


@pytest.mark.slow
def test_a_slipping_grasp_is_noticed_between_commands_and_recovered(tmp_path):
    seed = seed_for("grasp-slip", 0.5, [None, True, False, False, False, False])  # during the transport to the region
    result, plan, events = _run(tmp_path, "grasp-slip=0.5", seed)
    slips = [e for e in events if e["event"] == "fault_injected"]
    assert [s["kind"] for s in slips] == ["grasp-slip"] and slips[0]["object"] == "strawberry"
    assert result.success and result.declared_success, (result.failure, result.history)
    assert result.attempts == 2 and "strawberry slipped from the gripper" in result.history[0]
    first = plan["failures"][0]
    assert first["kind"] == "EXECUTION" and first["action"].startswith("place_ontop(strawberry")
    assert "pose" in first["observed"]  # where it came to rest
    recover = [e for e in events if e["event"] == "recover"]
    assert recover and recover[0]["outcome"] == "home"


@pytest.mark.slow
def test_a_missed_detection_is_looked_at_again(tmp_path):
    seed = seed_for("miss-detect", 0.5, [True, *[False] * 11])  # the run's very first frame misses an object
    result, plan, events = _run(tmp_path, "miss-detect=0.5", seed)
    misses = [e for e in events if e["event"] == "fault_injected"]
    assert [m["kind"] for m in misses] == ["miss-detect"]
    first = next(e for e in events if e["event"] == "perceived")
    assert first["frames"] == 2 and misses[0]["object"] in first["objects"]  # the second frame saw it
    assert result.success and result.attempts == 1, (result.failure, result.history)


@pytest.mark.slow
def test_an_arm_fault_is_cleared_by_the_safety_guard_and_replanned(tmp_path):
    seed = seed_for("arm-fault", 0.5, [False, True, False, False, False, False])  # part-way through the place
    result, plan, events = _run(tmp_path, "arm-fault=0.5", seed)
    names = [e["event"] for e in events]
    assert names.count("fault_injected") == 1 and "fault_cleared" in names
    assert names.index("fault_injected") < names.index("arm_fault") < names.index("fault_cleared") < names.index("replan")
    assert result.success and result.declared_success, (result.failure, result.history)
    assert result.attempts == 2 and "the arm reported a fault" in result.history[0]
    assert plan["failures"][0]["kind"] == "EXECUTION"
    fault = next(e for e in events if e["event"] == "fault_injected")
    planned = [e["plan"] for e in events if e["event"] == "planned"]
    if fault["held"] == "strawberry":  # the fault came while carrying it: the resumed attempt does not pick again
        assert "the hand still holds strawberry" in result.history[0]
        assert planned[-1] == ["place_ontop(strawberry, light_grey_region)"]
    _no_stale_text(result.tree_text)


@pytest.mark.slow
def test_bench_records_faults_and_summarises_with_and_without(tmp_path):
    out = tmp_path / "b"
    proc = subprocess.run([sys.executable, "-m", "owl_bt.cli", "bench", "--method", "oracle", "--tasks", "berry1", "--seeds", "1",
                           "--jobs", "1", "--perception", "sim-state", "--faults", "knock=0.5", "--fault-seed",
                           str(seed_for("knock", 0.5, [None, True, False, False, False, False])), "--out", str(out), "-q"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    recs = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["method"] for r in recs) == ["oracle", "oracle+faults"]
    faulty = next(r for r in recs if r["method"] == "oracle+faults")
    assert faulty["faults"]["counts"] == {"knock": 1} and faulty["replans"] == 1 and faulty["success"]
    md = (out / "summary.md").read_text()
    assert "## Fault recovery — oracle+faults" in md
    row = next(line for line in md.splitlines() if line.startswith("| berry1 |") and "1.00" in line)
    assert row.startswith("| berry1 | 1 | 100.0 | 100.0 | 1.00 | 1 | 1 |")
    again = subprocess.run([sys.executable, "-m", "owl_bt.cli", "bench", "--method", "oracle", "--tasks", "berry1", "--seeds",
                            "1", "--perception", "sim-state", "--faults", "knock=0.2", "--out", str(out), "-q"],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "already holds oracle+faults episodes" in again.stderr
