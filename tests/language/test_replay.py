"""`owl-bt run --vlm openai` against a chat-completions server on 127.0.0.1, then `owl-bt run
--replay RUN_DIR` re-running that run from its transcript with no server at all; and the replay
backend's matching, divergence and exhaustion."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from owl_bt.errors import ModelAnswerError, UsageError
from owl_bt.language.replay import ReplayVLM
from tests.support.chat_server import ChatServer, Reply, answer

TASK = "put the strawberry onto the light-grey region at the center of the table"


def owl(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_openai_run_then_replay_reproduces_it(tmp_path):
    script = [Reply(answer("berry1_sketch.txt")), Reply(answer("berry1_checkers.txt"))]
    env = {
        "OPENAI_BASE_URL": "",
        "OWL_BT_VLM_MODEL": "test-vlm",
        "OWL_BT_VLM_CACHE": "off",
        "OPENAI_API_KEY": "",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
    }
    with ChatServer(script) as server:
        env["OPENAI_BASE_URL"] = server.base_url
        first = owl(
            "run",
            TASK,
            "--task",
            "berry1",
            "--seed",
            "1",
            "--vlm",
            "openai",
            "--out",
            str(tmp_path / "a"),
            "--json",
            "-q",
            env=env,
        )
    assert first.returncode == 0, first.stderr
    assert len(server.requests) == 2
    events = [
        json.loads(line) for line in (tmp_path / "a" / "events.jsonl").read_text().splitlines()
    ]
    calls = [e for e in events if e["event"] == "vlm_call"]
    assert [c["backend"] for c in calls] == ["openai", "openai"] and all(
        c["prompt_tokens"] > 1000 for c in calls
    )
    # no server now: the recorded answers drive the same run
    again = owl(
        "run",
        "--replay",
        str(tmp_path / "a"),
        "--out",
        str(tmp_path / "b"),
        "--json",
        "-q",
        env=env,
    )
    assert again.returncode == 0, again.stderr
    a, b = json.loads(first.stdout.splitlines()[-1]), json.loads(again.stdout.splitlines()[-1])
    assert a["plan"] == b["plan"] and a["samples"] == b["samples"]
    plan_a, plan_b = (json.loads((tmp_path / d / "plan.json").read_text()) for d in "ab")
    assert plan_a["sketch"] == plan_b["sketch"] and plan_a["checkers"] == plan_b["checkers"]
    assert plan_b["seed"] == 1
    # a folder that is not a run, and a conflicting backend: usage errors, one line
    for args in (["--replay", str(tmp_path)], ["--replay", str(tmp_path / "a"), "--vlm", "oracle"]):
        bad = owl("run", *args, "--out", str(tmp_path / "c"), "-q", env=env)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_replay_matches_prompts_counts_divergence_and_runs_out():
    vlm = ReplayVLM(
        [
            {"prompt": "p1", "answer": "a1"},
            {"prompt": "p2", "answer": "a2"},
            {"prompt": "p3", "answer": "a3"},
        ]
    )
    assert vlm.complete([{"role": "user", "content": "p2"}]) == "a2"
    assert vlm.complete([{"role": "user", "content": "something else"}]) == "a1"
    assert vlm.divergences == 1
    assert vlm.complete([{"role": "user", "content": "p3"}]) == "a3"
    with pytest.raises(ModelAnswerError, match="no more answers"):
        vlm.complete([{"role": "user", "content": "p1"}])
    with pytest.raises(UsageError, match="no recorded model answers"):
        ReplayVLM([{"prompt": "x"}])


@pytest.mark.slow
def test_a_replay_reruns_the_recorded_method_budget_skeletons_and_attempts(tmp_path):
    # a replay used to record and re-run only the language method in the VLM spec: a no-back run was
    # replayed with backtracking, --budget/--skeletons/--max-attempts fell back to their defaults, and
    # `-m no-back` on the replay was refused as "the recorded method (owl)"
    # (--plan-time too; a run that ran out of it was replayed with the default and succeeded)
    first = owl(
        "run",
        TASK,
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "-m",
        "no-back",
        "--budget",
        "40",
        "--max-attempts",
        "2",
        "--plan-time",
        "300",
        "--out",
        str(tmp_path / "a"),
        "-q",
    )
    assert first.returncode == 0, first.stderr
    again = owl(
        "run", "--replay", str(tmp_path / "a"), "-m", "no-back", "--out", str(tmp_path / "b"), "-q"
    )
    assert again.returncode == 0, again.stderr
    start = json.loads((tmp_path / "b" / "events.jsonl").read_text().splitlines()[0])
    assert (
        start["method"],
        start["budget"],
        start["skeletons"],
        start["max_attempts"],
        start["plan_time"],
    ) == ("no-back", 40, 1, 2, 300.0)
    for args, said in (
        (["--budget", "200"], "--budget (40)"),
        (["--plan-time", "60"], "--plan-time (300.0)"),
        (["-m", "no-sample"], "recorded method (no-back)"),
        (["--vlm", "offline"], "cannot be combined with --vlm offline"),
    ):
        bad = owl("run", "--replay", str(tmp_path / "a"), *args, "--out", str(tmp_path / "c"), "-q")
        assert (
            bad.returncode == 2 and said in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
        ), bad.stderr


@pytest.mark.slow
def test_a_replay_of_an_edited_folder_says_it_is_not_exact(tmp_path):
    # (plan.json's instruction edited to "put the banana on the plate", and the replay ran the
    # recorded answers silently and said success)
    import shutil

    first = owl(
        "run",
        TASK,
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--out",
        str(tmp_path / "a"),
        "-q",
    )
    assert first.returncode == 0, first.stderr
    shutil.copytree(tmp_path / "a", tmp_path / "e")
    plan = json.loads((tmp_path / "e" / "plan.json").read_text())
    plan["instruction"] = "put the strawberry onto the light-grey region"
    (tmp_path / "e" / "plan.json").write_text(json.dumps(plan))
    same = owl("run", "--replay", str(tmp_path / "a"), "--out", str(tmp_path / "b"), "-q", "--json")
    edited = owl(
        "run", "--replay", str(tmp_path / "e"), "--out", str(tmp_path / "c"), "-q", "--json"
    )
    assert same.returncode == 0 and "not an exact replay" not in same.stderr, same.stderr
    assert "replay_divergences" not in json.loads(same.stdout.splitlines()[-1])
    assert (
        "owl-bt: not an exact replay: 2 recorded answers went to prompts the recording does not have"
        in edited.stderr
    )
    assert json.loads(edited.stdout.splitlines()[-1])["replay_divergences"] == 2
    events = [
        json.loads(line) for line in (tmp_path / "c" / "events.jsonl").read_text().splitlines()
    ]
    assert [e["answers"] for e in events if e["event"] == "replay_diverged"] == [2]
