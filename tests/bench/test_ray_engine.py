"""`owl-bt bench --engine ray`: real Berry1 episodes as tasks of a real local Ray (two CPUs) give the
records the process pool gives; a killed Ray worker's episode is retried once, then recorded as an
error; a driver killed with SIGKILL resumes with no duplicate line; usage errors; run folders sent
back as bytes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from owl_bt.bench import episodes
from owl_bt.bench.config import INSTALL_HINT, make_config
from owl_bt.bench.ray_address import check_reachable
from owl_bt.bench.ray_engine import (
    TOKEN_NAME,
    episode_task,
    pack_run,
    task_name,
    unpack_run,
)
from owl_bt.bench.run import run_bench
from owl_bt.bench.runner import plan_jobs
from owl_bt.errors import OwlError, UsageError
from tests.support.cli import owl

# the fields of a record that must not depend on where the episode ran (not its timings)
SAME = (
    "task",
    "seed",
    "method",
    "success",
    "declared_success",
    "samples",
    "skeletons",
    "attempts",
    "queries",
    "detector",
    "failure",
    "run_dir",
    "error",
)


def _config(out: Path, seeds: str, engine: str = "ray", tasks: str = "berry1"):
    return make_config("oracle", tasks, None, seeds, out, 2, 500, 4, engine=engine)


def _lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / episodes.FILENAME).read_text().splitlines()]


def _kept(recs: list[dict]) -> list[tuple]:
    return sorted(tuple(r.get(k) for k in SAME) for r in recs)


@pytest.mark.slow
def test_the_same_episodes_give_the_same_records_through_the_pool_and_ray(tmp_path, local_ray):
    pool = run_bench(_config(tmp_path / "pool", "0,1", engine="pool"))
    ray = run_bench(_config(tmp_path / "ray", "0,1"))
    assert pool.new == ray.new == 2 and not ray.interrupted
    assert _kept(_lines(tmp_path / "ray")) == _kept(_lines(tmp_path / "pool"))
    assert all(r["success"] and not r["error"] for r in _lines(tmp_path / "ray"))
    for rec in _lines(tmp_path / "ray"):
        assert (tmp_path / "ray" / rec["run_dir"] / "plan.json").is_file()
    assert not (tmp_path / "ray" / TOKEN_NAME).exists()
    again = run_bench(_config(tmp_path / "ray", "0,1"))  # resumable: nothing runs twice
    assert (again.already, again.new) == (2, 0) and len(_lines(tmp_path / "ray")) == 2


def _pids_running(name: str) -> list[int]:
    """Processes whose title is Ray's `ray::<task name>` (a worker running that task now)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith(f"ray::{name}"):
            found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_a_killed_worker_is_retried_once_then_its_episode_is_recorded_as_an_error(
    tmp_path, local_ray
):
    out = tmp_path / "bench"
    cfg = _config(out, "0,1")
    twice, once = (task_name(job) for job in plan_jobs(cfg))  # berry1 s0 dies twice, s1 once
    kills = {twice: 2, once: 1}
    killed: dict[str, set[int]] = {twice: set(), once: set()}
    result: dict = {}
    bench = threading.Thread(target=lambda: result.update(outcome=run_bench(cfg)))
    bench.start()
    deadline = time.monotonic() + 240
    while bench.is_alive() and time.monotonic() < deadline:
        for name, times in kills.items():
            for pid in _pids_running(name):
                if len(killed[name]) < times and pid not in killed[name]:
                    os.kill(pid, signal.SIGKILL)
                    killed[name].add(pid)
        time.sleep(0.05)
    bench.join(timeout=60)
    assert not bench.is_alive(), "the bench did not end"
    assert {k: len(v) for k, v in killed.items()} == kills
    recs = {r["seed"]: r for r in _lines(out)}
    assert len(_lines(out)) == 2 and set(recs) == {0, 1}
    assert recs[0]["error"] and recs[0]["failure"].startswith(
        "error: worker died: its process ended twice"
    ), recs[0]
    assert recs[1]["success"] and not recs[1]["error"], recs[1]  # the retry ran it whole
    assert (out / recs[1]["run_dir"] / "plan.json").is_file()
    assert not list(out.glob("runs/*/*.partial"))
    assert result["outcome"].new == 2


def _bench_cmd(out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "owl_bt.cli",
        "bench",
        "--engine",
        "ray",
        "--method",
        "oracle",
        "--tasks",
        "berry1",
        "--seeds",
        "3",
        "--jobs",
        "2",
        "--out",
        str(out),
        "-q",
    ]


@pytest.mark.slow
def test_a_driver_killed_with_sigkill_resumes_with_no_duplicate_line(tmp_path):
    out = tmp_path / "bench"
    driver = subprocess.Popen(_bench_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = out / episodes.FILENAME
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and driver.poll() is None:
            if path.is_file() and path.read_text().count("\n") >= 1:
                break
            time.sleep(0.1)
    finally:
        driver.kill()  # SIGKILL: episodes in flight are lost with it
        driver.wait()
    first = path.read_text()
    assert first.count("\n") in (1, 2), first  # some recorded, some not yet
    # The killed driver's Ray workers may still be finishing an episode (they outlive a SIGKILLed
    # driver), and its folder lock refuses a second writer: the resume waits for them, as a person
    # would run it again.
    retry_until = time.monotonic() + 180
    while True:
        proc = subprocess.run(_bench_cmd(out), capture_output=True, text=True, timeout=300)
        busy = proc.returncode == 2 and "another owl-bt run is writing" in proc.stderr
        if not busy or time.monotonic() > retry_until:
            break
        time.sleep(3)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    text = path.read_text()
    assert text.startswith(first)  # append-only: the lines before the kill are kept as they were
    recs = _lines(out)
    assert sorted(episodes.key(r) for r in recs) == [("berry1", s, "oracle") for s in range(3)]
    for rec in recs:
        assert (out / rec["run_dir"] / "plan.json").is_file()
    assert not list(out.glob("runs/*/*.partial"))


def test_engine_usage_errors(tmp_path, monkeypatch):
    with pytest.raises(UsageError, match="unknown engine 'spark'"):
        make_config("oracle", "berry1", 1, None, tmp_path, 1, 500, 4, engine="spark")
    with pytest.raises(UsageError, match="--address joins a Ray cluster"):
        make_config("oracle", "berry1", 1, None, tmp_path, 1, 500, 4, address="10.0.0.1:6379")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as when it is not installed
    with pytest.raises(UsageError) as missing:
        make_config("oracle", "berry1", 1, None, tmp_path, 1, 500, 4, engine="ray")
    assert str(missing.value.reason) == INSTALL_HINT and "\n" not in INSTALL_HINT


def test_address_without_the_ray_engine_is_one_line_and_exit_2(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", "bench", "--address", "auto", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "owl-bt: --address joins a Ray cluster: give it with --engine ray"
    ]


def test_a_run_folder_sent_as_bytes_unpacks_whole_and_a_damaged_one_leaves_nothing(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "events.jsonl").write_text('{"event": "x"}\n')
    (src / "plan.json").write_text("{}")
    (src / "tree.png").write_bytes(bytes(range(256)) * 10)
    out = tmp_path / "bench"
    final = unpack_run(pack_run(src), out, "runs/oracle/berry1-s0")
    assert final == out / "runs/oracle/berry1-s0"
    for f in src.iterdir():
        assert (final / f.name).read_bytes() == f.read_bytes()
    with pytest.raises(OwlError, match="came back damaged"):
        unpack_run(b"not a tar", out, "runs/oracle/berry1-s1")
    assert sorted(p.name for p in (out / "runs/oracle").iterdir()) == ["berry1-s0"]


@pytest.mark.slow
def test_a_worker_that_cannot_see_the_bench_folder_returns_the_run_folder(tmp_path):
    """episode_task (the function Ray runs) with a token it cannot find: written elsewhere, sent back."""
    out = tmp_path / "bench"
    (job,) = plan_jobs(_config(out, "0"))
    reply = episode_task(job, str(out), "a token this worker cannot see")
    assert reply["record"]["success"] and reply["record"]["run_dir"] == job.run_dir
    assert not (out / job.run_dir).exists()  # nothing written into the driver's folder
    final = unpack_run(reply["folder"], out, job.run_dir)
    assert (final / "plan.json").is_file() and (final / "events.jsonl").is_file()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def test_an_address_where_nothing_answers_is_one_line_at_once() -> None:
    port = _closed_port()
    t0 = time.monotonic()
    with pytest.raises(UsageError, match=f"127.0.0.1:{port}: nothing answers there") as info:
        check_reachable(f"127.0.0.1:{port}")
    assert time.monotonic() - t0 < 5 and "\n" not in info.value.reason


def test_auto_is_probed_where_ray_would_go(monkeypatch) -> None:
    """'auto' joins the head node Ray's cluster file (or RAY_ADDRESS) names; one that has gone is
    one line at once, as a HOST:PORT is, not Ray's GCS retries for minutes."""
    port = _closed_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    with pytest.raises(UsageError, match=rf"at auto \(127.0.0.1:{port}\): nothing answers"):
        check_reachable("auto")
    monkeypatch.delenv("RAY_ADDRESS")
    import ray._private.services as services

    def none_found(addr, temp_dir):
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(services, "get_ray_address_from_environment", none_found)
    with pytest.raises(UsageError, match="no Ray cluster runs on this machine"):
        check_reachable("auto")


@pytest.mark.parametrize("address", [":", "127.0.0.1:99999", "host:0", "host", "http://host:6379"])
def test_an_address_that_is_not_host_port_is_refused_before_the_folder(tmp_path, address):
    out = tmp_path / "bench"
    with pytest.raises(UsageError, match="is not HOST:PORT") as info:
        make_config("oracle", "berry1", 1, None, out, 1, 500, 4, engine="ray", address=address)
    assert "\n" not in info.value.reason
    assert not out.exists()


def test_an_address_where_nothing_answers_says_one_line_and_makes_no_folder(tmp_path):
    """Refused before the bench folder is made and before the 'episodes to run' line."""
    out = tmp_path / "bench"
    address = f"127.0.0.1:{_closed_port()}"
    proc = owl(
        *("bench", "--engine", "ray", "--address", address),
        *("--tasks", "berry1", "--seeds", "1", "--out", str(out)),
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"owl-bt: cannot join the Ray cluster at {address}: nothing answers")
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"])
def test_an_address_where_a_server_that_is_not_ray_listens_is_one_line_and_exit_2(
    tmp_path, plain_tcp_server, reply
):
    """A plain TCP server on 127.0.0.1 (silent, or answering as a web server) is no Ray head node:
    the bench says so in one line, exit 2, in bounded time, and writes no episode."""
    port = plain_tcp_server(reply)
    address = f"127.0.0.1:{port}"
    t0 = time.monotonic()
    proc = owl(
        *("bench", "--engine", "ray", "--address", address),
        *("--tasks", "berry1", "--seeds", "1", "--out", str(tmp_path / "bench"), "-q"),
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"owl-bt: cannot join the Ray cluster at {address}: something listens")
    assert "not a Ray head node" in line
    assert time.monotonic() - t0 < 60  # Ray's own ray.init waited here without bound
    assert not (tmp_path / "bench" / episodes.FILENAME).exists() or not _lines(tmp_path / "bench")


@pytest.mark.slow
def test_the_gcs_address_of_a_running_ray_passes_the_probe(local_ray):
    check_reachable(local_ray.get_runtime_context().gcs_address)  # a real head node: no error
