"""Bench worker processes: a worker that dies ends its episode as an error record, and a bench killed
with SIGKILL or signalled as a process group leaves no worker or partial folder behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest


def _holder(path: Path) -> int | None:
    """The process that has `path` open (read from /proc), if any."""
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if any(os.readlink(fd) == str(path) for fd in fd_dir.iterdir()):
                return int(fd_dir.parent.name)
        except OSError:
            continue
    return None


@pytest.mark.slow
def test_a_bench_worker_that_dies_ends_its_episode_as_an_error_record(tmp_path):
    """kill -9 of the worker running seed 0, twice (the first time it is run again): that episode is an error
    record "worker died: …", the bench goes on with seed 1 and says nothing like a traceback."""
    import signal
    import time

    out = tmp_path / "b"
    bench = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "bench",
            "--method",
            "oracle",
            "--tasks",
            "berry1",
            "--seeds",
            "2",
            "--jobs",
            "1",
            "--perception",
            "sim-state",
            "--out",
            str(out),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    events = out / "runs" / "oracle" / "berry1-s0.partial" / "events.jsonl"
    try:
        for _ in range(2):
            deadline, pid = time.monotonic() + 120, None
            while pid is None and time.monotonic() < deadline and bench.poll() is None:
                pid = _holder(events) if events.exists() else None
                time.sleep(0.05)
            assert pid is not None and pid != bench.pid, "no worker was seen running seed 0"
            os.kill(pid, signal.SIGKILL)
            while _holder(events) == pid:
                time.sleep(0.05)
        stdout, stderr = bench.communicate(timeout=300)
    finally:
        bench.kill()
    assert bench.returncode == 0, stderr
    assert "Traceback" not in stderr and "Error:" not in stderr and "stopped by" not in stderr, (
        stderr
    )
    records = {
        r["seed"]: r for r in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())
    }
    assert records[0]["error"] is True and records[0]["failure"].startswith(
        "error: worker died: "
    ), records[0]
    assert records[1]["success"] is True


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parents.items() if pp == p}
        out |= kids
        todo += list(kids)
    return out


@pytest.mark.slow
def test_a_bench_killed_with_sigkill_leaves_no_workers_behind(tmp_path):
    # After kill -9 the worker (500 MB) ran on for minutes and held the run folder
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "b"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "bench",
            "--method",
            "oracle",
            "--tasks",
            "berry1",
            "--seeds",
            "1",
            "--jobs",
            "1",
            "--perception",
            "sim-state",
            "--out",
            str(out),
            "-q",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("runs/*/*.partial")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(out.glob("runs/*/*.partial")), "the episode never started"
    kids = _descendants(proc.pid)
    assert kids
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(
        Path(f"/proc/{k}").exists()
        and "Z" not in (Path(f"/proc/{k}/stat").read_text().split()[2:3] or ["Z"])
        for k in kids
    ):
        time.sleep(0.2)
    alive = [
        k
        for k in kids
        if Path(f"/proc/{k}").exists() and Path(f"/proc/{k}/stat").read_text().split()[2] != "Z"
    ]
    assert not alive, f"still running after the bench was killed: {alive}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "group"), [("SIGTERM", True), ("SIGHUP", True), ("SIGTERM", False)]
)
def test_a_bench_stopped_by_a_signal_to_its_whole_group_leaves_no_partial_folder(
    tmp_path, sig, group
):
    # `kill -TERM -<pgid>` reached the worker too, and its episode's `.partial` folder
    # stayed; a closed terminal's SIGHUP killed multiprocessing's resource tracker: a traceback per semaphore
    import subprocess
    import sys
    import time

    out = tmp_path / "b"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "bench",
            "--method",
            "oracle",
            "--tasks",
            "berry1",
            "--seeds",
            "1",
            "--jobs",
            "1",
            "--perception",
            "sim-state",
            "--out",
            str(out),
            "-q",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("runs/*/*.partial")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(out.glob("runs/*/*.partial")), "the episode never started"
    time.sleep(1.0)  # the episode is under way
    (os.killpg if group else os.kill)(proc.pid, getattr(signal, sig))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = err.decode().strip().splitlines()
    said = "Ctrl-C (SIGINT)" if sig == "SIGINT" else sig
    assert lines == [
        f"owl-bt: bench stopped by {said}: 0 of 1 episodes recorded; summary in {out}/summary.md"
    ], lines
    # no folder of the unrecorded episode: neither a `.partial` one nor the whole one a stopped episode
    # writes as it ends (that one stayed, complete-looking, though episodes.jsonl did not list it)
    assert not list(out.glob("runs/*/*")), list(out.glob("runs/**/*"))
