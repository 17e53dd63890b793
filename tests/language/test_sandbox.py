"""The sandbox's static allow-list and its run-time limits, on real checker code."""

from __future__ import annotations

import pytest

from owl_bt.errors import UnsafeCodeError
from owl_bt.language.sandbox import CheckerSet, check_source
from owl_bt.language.workspace import env_from_state


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("import os\ndef goal_check0():\n    return True", "Import"),
        ("def goal_check0():\n    from os import system\n    return True", "ImportFrom"),
        ("def goal_check0():\n    return ().__class__.__bases__", "private attribute '__"),
        ("def goal_check0():\n    return __builtins__", "forbidden '__builtins__'"),
        ("def goal_check0():\n    return eval('1')", "forbidden 'eval'"),
        ("def goal_check0():\n    return open('/etc/passwd')", "forbidden 'open'"),
        ("def goal_check0():\n    return 9 ** 99999999", "power"),
        ("def goal_check0():\n    return 99999999 + 1 > 0", "oversized constant"),
        ("def goal_check0():\n    return [0] * 10 ** 3 ** 3", "repeats a sequence"),
        ("def goal_check0():\n    while True:\n        pass", "While"),
        ("def goal_check0():\n    return (lambda: 1)()", "Lambda"),
        ("def goal_check0():\n    return banana.pose.x", "unknown name 'banana'"),
    ],
)
def test_static_rejections(source, reason):
    with pytest.raises(UnsafeCodeError) as exc:
        check_source(source, {"strawberry"})
    assert reason in exc.value.reason


def test_checker_evaluates_real_helpers(berry_world):
    src = (
        "def goal_check0():\n"
        "    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, 'strawberry', 'light_grey_region')\n"
        "    return position_within_bounds(get_obj_center(state, env, 'strawberry'), b)\n"
        "def low():\n    return strawberry.pose.z < 0.05 and strawberry.category == 'strawberry'\n"
    )
    cs = CheckerSet.compile(src, berry_world, env_from_state(berry_world))
    assert cs.evaluate("goal_check0", berry_world) is False  # the berry starts off the region
    region = berry_world.get("light_grey_region").pose
    moved = berry_world.with_pose(
        "strawberry", berry_world.get("strawberry").pose.__class__(region.x, region.y, 0.025)
    )
    assert cs.evaluate("goal_check0", moved) is True
    assert cs.evaluate("low", berry_world) is True


def test_runaway_and_raising_checkers_are_false(berry_world):
    src = (
        "def spin():\n    x = 0\n    for i in range(10000):\n        for j in range(10000):\n            x += 1\n    return True\n"
        "def boom():\n    return 1 / 0 > 0\n"
        "def text():\n    return 'yes'\n"
    )
    cs = CheckerSet.compile(src, berry_world, env_from_state(berry_world))
    assert cs.evaluate("spin", berry_world) is False
    assert cs.evaluate("boom", berry_world) is False
    assert cs.evaluate("text", berry_world) is False
    assert any("exceeded 50 ms" in e for e in cs.errors)
    assert any("ZeroDivisionError" in e and "(line 8: return 1 / 0 > 0)" in e for e in cs.errors)


def test_frame_walking_and_module_patching_are_refused(berry_world):
    from owl_bt.errors import UnsafeCodeError
    from owl_bt.language.sandbox import CheckerSet
    from owl_bt.language.workspace import env_from_state

    escape = """
def goal_check0():
    box = []
    g = (box[0].gi_frame.f_back.f_back.f_globals for x in [1])
    box.append(g)
    for gl in g:
        return False
    return True
"""
    patch = "def goal_check0():\n    math.pi = 3\n    return True\n"
    for src in (escape, patch):
        with pytest.raises(UnsafeCodeError):
            CheckerSet.compile(src, berry_world, env_from_state(berry_world))


def test_a_checker_answering_something_else_than_a_bool_is_false_and_logged_once(berry_world):
    # `return get_opening(state, env, "mug")` (a tuple) counted as False with no logged line,
    # unlike a checker that raises
    src = """
def goal_check0():
    return get_aabb_bounds(state, env, "strawberry")
"""
    c = CheckerSet.compile(src, berry_world, env_from_state(berry_world))
    logged = []
    c.on_error = logged.append
    assert c.evaluate("goal_check0", berry_world) is False
    assert c.evaluate("goal_check0", berry_world) is False
    assert logged == ["goal_check0: returned tuple, not bool"]


def test_a_raising_checker_is_quoted_by_the_line_python_counts(berry_world):
    # A \x0b inside a string literal made splitlines() count one line more, and the error quoted
    # the wrong source line
    src = "def boom():\n    note = 'a\x0bb'\n    return 1 / 0 > 0\n"
    cs = CheckerSet.compile(src, berry_world, env_from_state(berry_world))
    assert cs.evaluate("boom", berry_world) is False
    assert any("(line 3: return 1 / 0 > 0)" in e for e in cs.errors), cs.errors


def test_checker_errors_in_a_planning_failure_are_one_short_printable_line():
    # A raw ESC from the generated code reached the terminal, and a 9,000-character literal gave an
    # 18,571-character last line
    from trees.plan import RAISED_LIMIT, _raised

    line = _raised(
        [
            f"goal_check0: ValueError: \x1b[31m{'x' * 9000}\x1b[0m\nmore",
            "action_check1: KeyError: 'a'",
        ]
        * 3
    )
    assert "\x1b" not in line and "\n" not in line
    assert line.startswith(
        "; checkers that raised (counted as not satisfied): goal_check0: ValueError: xxx"
    )
    assert len(line) < 2 * RAISED_LIMIT + 100 and line.endswith("…; action_check1: KeyError: 'a'")


@pytest.mark.slow
def test_the_limit_is_the_checkers_own_cpu_time_not_the_machines_load(berry_world):
    # Beside a benchmark, a trivial checker passed 50 ms of wall clock and counted as False,
    # so a run's outcome hung on the machine's load. Twelve busy threads here take the interpreter from it
    # most of the time: its wall clock grows, its CPU time does not. (How much it grows varies: with three
    # threads a fresh-clone CI saw 2.3-fold, with five 2.5-fold, both under the 2.5-fold limit, so no load to
    # speak of; measured here, five gave 4.7- to 13-fold, twelve 9.4- to 19-fold.)
    import threading
    import time

    src = "def work():\n    x = 0\n    for i in range(3000):\n        x += i\n    return x > 0\n"
    cs = CheckerSet.compile(src, berry_world, env_from_state(berry_world))
    alone = []
    for _ in range(
        7
    ):  # (one measurement alone made the limit hang on that one run: failed once in three)
        assert cs.evaluate("work", berry_world) is True
        alone.append(cs.last_cpu_s)  # the worker's CPU time for the call
    cs.time_limit_s = (
        2.5 * sorted(alone)[3]
    )  # 2.5 times the median: under twelve hogs the wall clock grows ~10x or more
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(1000))

    hogs = [threading.Thread(target=busy, daemon=True) for _ in range(12)]
    for t in hogs:
        t.start()
    try:
        wall = time.monotonic()
        ok = [cs.evaluate("work", berry_world) for _ in range(5)]
        wall = (time.monotonic() - wall) / 5
    finally:
        stop.set()
        for t in hogs:
            t.join()
    assert (
        wall > cs.time_limit_s
    )  # (the load is real: each call took longer than the limit by the wall clock)
    assert all(ok), cs.errors


def test_a_garbage_collection_does_not_count_against_a_checker(berry_world):
    # "action_check3 exceeded 50 ms of CPU time (line 3: r = state.get(ref))": a collection of
    # the whole heap, set off by the checker's allocations, ran on its thread's clock. Here each collection
    # costs 80 ms of CPU (a callback), and the checker allocates enough to set one off.
    import gc
    import time

    src = "def work():\n    xs = [(i, i) for i in range(5000)]\n    return len(xs) == 5000\n"
    cs = CheckerSet.compile(src, berry_world, env_from_state(berry_world))

    def slow(phase: str, info: dict) -> None:
        if phase == "start":
            end = time.thread_time() + 0.08
            while time.thread_time() < end:
                pass

    gc.callbacks.append(slow)
    threshold = gc.get_threshold()
    gc.set_threshold(100)
    try:
        assert all(cs.evaluate("work", berry_world) for _ in range(3)), cs.errors[-1:]
    finally:
        gc.callbacks.remove(slow)
        gc.set_threshold(*threshold)
    assert gc.isenabled()
