"""A generated checker that raises counts as not satisfied, and the planning failure says so,
with the error and its source line — not only "not satisfied" (an IndexError in a checker
showed only in events.jsonl). Through the openai backend and a chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.chat_server import ChatServer, Reply, answer

SCENE = Path(__file__).parents[1] / "fixtures" / "pan_and_bowl.toml"


@pytest.mark.slow
def test_a_checker_that_raises_is_named_in_the_planning_failure(tmp_path):
    env = {
        **os.environ,
        "OWL_BT_VLM_MODEL": "m",
        "OWL_BT_VLM_CACHE": "off",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
    }
    # the model answers every repair request with the same checkers
    script = ["pan_bowl_sketch.txt"] + ["pan_bowl_checkers_raising.txt"] * 8
    with ChatServer([Reply(answer(n)) for n in script]) as server:
        env["OPENAI_BASE_URL"] = server.base_url
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "owl_bt.cli",
                "run",
                "",
                "--scene",
                str(SCENE),
                "--vlm",
                "openai",
                "--budget",
                "10",
                "--skeletons",
                "1",
                "--max-attempts",
                "1",
                "--out",
                str(tmp_path / "run"),
                "--json",
                "-q",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["success"] is False and result["failure"].startswith("plan:"), result["failure"]
    assert "checkers that raised (counted as not satisfied): " in result["failure"]
    assert "IndexError" in result["failure"] and "b[5][0] > 0" in result["failure"]
    events = [
        json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    ]
    assert any(e["event"] == "checker_error" and "IndexError" in e["error"] for e in events)
