"""Whole runs whose model answers a hostile checker (C-level hashing no trace hook can stop): the run
ends with a one-line reason, its folder whole with the exchange on record, and a SIGTERM while the
checker runs ends the run within 2 s, its folder whole. The model is a real chat-completions server
on 127.0.0.1 (tests/fixtures/chat_server.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support.chat_server import ChatServer, Reply, answer

TASK = "put the strawberry onto the light-grey region at the center of the table"
HASHING = """```python
def goal_check0():
    t = (1, 2)
    for i in range(40):
        t = (t, t)
    return t in state.objects

def action_check1():
    return goal_check0()
```"""


def _env(tmp_path, server: ChatServer) -> dict:
    return {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OWL_BT_VLM_MODEL": "test-vlm",
        "OWL_BT_VLM_CACHE": "off",
        "OPENAI_API_KEY": "",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
        "HOME": str(tmp_path / "home"),
    }


def _run(out, env) -> subprocess.Popen:
    args = ["run", TASK, "--task", "berry1", "--vlm", "openai", "--perception", "sim-state"]
    return subprocess.Popen(
        [sys.executable, "-m", "owl_bt.cli", *args, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=out.parent,
    )


def _events(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_a_hashing_checker_ends_the_run_with_one_line_and_the_exchange_on_record(tmp_path):
    (tmp_path / "home").mkdir()
    out = tmp_path / "r"
    script = [Reply(answer("berry1_sketch.txt"))] + [Reply(HASHING)] * 6
    with ChatServer(script) as server:
        proc = _run(out, _env(tmp_path, server))
        stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 1, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("owl-bt: ") and "Traceback" not in stderr
    assert not out.with_name("r.partial").exists() and (out / "plan.json").is_file()
    events = _events(out)
    errors = [e["error"] for e in events if e["event"] == "checker_error"]
    assert any("stopped after" in e for e in errors) and any("disabled" in e for e in errors)
    calls = [e for e in events if e["event"] == "vlm_call"]
    transcript = [
        r for attempt in json.loads((out / "transcript.json").read_text()) for r in attempt
    ]
    assert len(calls) == len(transcript) >= 2
    assert sorted(os.listdir(tmp_path)) == ["home", "r"] and os.listdir(tmp_path / "home") == []


@pytest.mark.slow
def test_sigterm_during_a_hashing_checker_ends_the_run_within_2_s(tmp_path):
    (tmp_path / "home").mkdir()
    out = tmp_path / "r"
    script = [Reply(answer("berry1_sketch.txt"))] + [Reply(HASHING)] * 6
    with ChatServer(script) as server:
        proc = _run(out, _env(tmp_path, server))
        try:
            deadline = time.monotonic() + 300
            while len(server.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)  # the checkers were asked for …
            time.sleep(1.0)  # … and the hashing checker is running in the sandbox
            t0 = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=60)
            took = time.monotonic() - t0
        finally:
            proc.kill()
    assert took < 2.0, f"{took:.1f} s; {stderr[-500:]}"
    assert proc.returncode == 130, stderr
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr
    assert not out.with_name("r.partial").exists() and (out / "plan.json").is_file()
