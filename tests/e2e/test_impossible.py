"""An honest "cannot": a model answering `impossible(<reason>)` ends the run failed with that reason on
the last line (exit 1), after one question — no retries, no planning. Through the openai backend and a
chat-completions server on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.chat_server import ChatServer, Reply

SCENE = Path(__file__).parents[1] / "fixtures" / "pan_and_bowl.toml"
REASON = "the robot has no skill that slices things"


@pytest.mark.slow
def test_impossible_ends_the_run_failed_with_the_reason(tmp_path):
    env = {
        **os.environ,
        "OWL_BT_VLM_MODEL": "m",
        "OWL_BT_VLM_CACHE": "off",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
    }
    answer = f"The scene has a pan and a bowl.\n\nPlan:\nimpossible({REASON})\n"
    with ChatServer([Reply(answer)] * 3) as server:
        env["OPENAI_BASE_URL"] = server.base_url
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "owl_bt.cli",
                "run",
                "slice the bowl in two",
                "--scene",
                str(SCENE),
                "--vlm",
                "openai",
                "--out",
                str(tmp_path / "run"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        asked = len(server.requests)
    assert proc.returncode == 1, proc.stderr
    last = (proc.stdout.strip().splitlines() or [""])[-1] + (
        proc.stderr.strip().splitlines() or [""]
    )[-1]
    assert (
        REASON in proc.stdout.strip().splitlines()[-1]
        or REASON in proc.stderr.strip().splitlines()[-1]
    ), last
    assert asked == 1  # one question: not retried, no checker prompt
    assert "Traceback" not in proc.stderr
