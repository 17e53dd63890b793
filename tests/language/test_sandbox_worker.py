"""The sandbox worker process: its OS limits, the parent's deadline (kill and restart), disabling a
checker after three killed calls, batches, bound recording across the boundary, interrupts, forks."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from owl_bt.language.sandbox import KILLS_TO_DISABLE, CheckerSet
from owl_bt.language.sandbox_client import CALL_DEADLINE_S, shared
from owl_bt.language.workspace import env_from_state
from owl_bt.tamp import bounds_record

HANG = (
    "def hang():\n    t = (1, 2)\n    for i in range(40):\n        t = (t, t)\n"
    "    return t in state.objects\n"
)
FINE = (
    "def near():\n"
    "    b = modify_pose_bounds_to_be_near_object(state, env, init_bounds, 'light_grey_region', 0.05)\n"
    "    return position_within_bounds(get_obj_center(state, env, 'strawberry'), b)\n"
)


@pytest.fixture
def checkers(berry_world):
    return CheckerSet.compile(HANG + FINE, berry_world, env_from_state(berry_world))


def _limits(pid: int) -> dict[str, str]:
    out = {}
    with open(f"/proc/{pid}/limits") as f:
        for line in f.readlines()[1:]:
            out[line[:26].strip()] = line[26:47].strip()
    return out


def test_the_worker_holds_only_its_pipes_a_clean_environment_and_hard_limits(checkers):
    pid = shared().pid
    assert pid is not None and pid != os.getpid()
    assert sorted(os.listdir(f"/proc/{pid}/fd")) == ["0", "1", "2"]
    with open(f"/proc/{pid}/environ", "rb") as f:
        assert f.read() == b""  # a clean environment
    limits = _limits(pid)
    assert limits["Max open files"] == "3"
    assert limits["Max address space"] != "unlimited"
    assert limits["Max file size"] == "0"
    assert limits["Max processes"] == "0"


@pytest.mark.slow
def test_a_call_stuck_in_c_is_killed_and_counts_false_and_the_worker_restarts(
    checkers, berry_world
):
    logged: list[str] = []
    checkers.on_error = logged.append
    before = shared().pid
    t0 = time.monotonic()
    assert checkers.evaluate("hang", berry_world) is False
    assert time.monotonic() - t0 < CALL_DEADLINE_S + 1.0
    assert logged and logged[0].startswith("hang: stopped after")
    assert checkers.evaluate("near", berry_world) in (True, False)  # a fresh worker answers
    assert shared().pid != before
    assert checkers.errors[-1].startswith("hang: stopped")


@pytest.mark.slow
def test_three_killed_calls_in_a_row_disable_the_checker(checkers, berry_world):
    for _ in range(KILLS_TO_DISABLE):
        assert checkers.evaluate("hang", berry_world) is False
    assert "hang" in checkers.disabled
    assert any(e.startswith("hang: disabled:") for e in checkers.errors)
    t0 = time.monotonic()
    assert checkers.evaluate("hang", berry_world) is False  # not sent any more
    assert time.monotonic() - t0 < 0.5
    assert "near" not in checkers.disabled


def test_a_batch_answers_as_single_calls_do(checkers, berry_world):
    region = berry_world.get("light_grey_region").pose
    berry = berry_world.get("strawberry").pose
    states = [
        berry_world.with_pose("strawberry", berry.__class__(region.x + dx, region.y, berry.z))
        for dx in (0.0, 0.03, 0.2, -0.4)
    ]
    single = [checkers.evaluate("near", s) for s in states]
    assert checkers.evaluate_many([("near", s) for s in states]) == single
    assert single[:2] == [True, True] and single[3] is False


def test_a_batch_with_a_killed_call_goes_on_with_a_fresh_worker(checkers, berry_world):
    items = [("near", berry_world), ("hang", berry_world), ("near", berry_world)]
    alone = checkers.evaluate("near", berry_world)
    assert checkers.evaluate_many(items) == [alone, False, alone]


def test_the_regions_a_checker_tests_are_recorded_across_the_boundary(checkers, berry_world):
    with bounds_record.record_bounds() as found:
        checkers.evaluate("near", berry_world)
    assert [name for name, _ in found] == ["strawberry"]
    lo, hi = found[0][1]
    region = berry_world.get("light_grey_region").aabb()
    assert lo[0] == pytest.approx(region[0][0] - 0.05)
    assert hi[1] == pytest.approx(region[1][1] + 0.05)


def test_ctrl_c_during_a_hung_checker_ends_the_wait_at_once(checkers, berry_world):
    # Ctrl-C as the terminal sends it, to a process whose SIGINT raises KeyboardInterrupt (as
    # Python's default does), whatever an earlier test in this process installed
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent: list[float] = []

    def ctrl_c() -> None:
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    checkers.evaluate("near", berry_world)  # the worker is up and holds the program
    timer = threading.Timer(0.3, ctrl_c)
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            checkers.evaluate("hang", berry_world)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    assert sent and time.monotonic() - sent[0] < 1.0, (t0, sent)
    assert shared().pid is None  # the worker was ended with the exchange


def test_a_forked_child_starts_its_own_worker(checkers, berry_world):
    parent_worker = shared().pid
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover — runs in the child
        try:
            ok = checkers.evaluate("near", berry_world)
            mine = shared().pid
            os.write(write, f"{int(ok)} {mine}".encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    ok, mine = os.read(read, 100).decode().split()
    os.close(read)
    assert int(mine) != parent_worker
    assert bool(int(ok)) == checkers.evaluate("near", berry_world)
    assert shared().pid == parent_worker


def test_judge_batches_generated_checkers_and_calls_the_others(checkers, berry_world):
    from owl_bt.tamp.judge import judge

    region = berry_world.get("light_grey_region").pose
    berry = berry_world.get("strawberry").pose
    states = [
        berry_world.with_pose("strawberry", berry.__class__(region.x + dx, region.y, berry.z))
        for dx in (0.0, -0.4, 0.02)
    ]
    checkers.rejected = {}
    near = checkers.as_callable("near")

    def boom(state):
        raise ValueError("no")

    assert judge([("near", near)], states) == [near(s) for s in states] == [True, False, True]
    assert judge([("near", near), ("boom", boom)], states) == [False, False, False]
    assert judge([("near", near), ("any", lambda s: True)], states[:1]) == [True]
    assert len(checkers.rejected["near"]) == 3  # the batch and the single calls both kept it
