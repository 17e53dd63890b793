"""Everyday tasks through the OpenAI-compatible path: `owl-bt run --vlm openai` asks a real HTTP
server on 127.0.0.1 answering from the tasks' recorded transcripts (tests/support/transcript_server.py),
and the task's detector judges the end state."""

from __future__ import annotations

import json

import openai
import pytest

from tests.support.cli import owl
from tests.support.transcript_server import FOLDER, load, serve

# a container task, an orientation task, an honest "cannot" (nothing may move, the run ends failed),
# and a run whose banana, stood on end in the bin, tipped against the open fingers (it once ended
# there, touching the hand, and said success)
RUNS = (("can_in_bin", 0), ("spoon_straight", 0), ("board_in_mug", 0), ("fruit_in_bin", 2))


def _env(tmp_path, base_url: str) -> dict:
    return {
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "",
        "OWL_BT_VLM_MODEL": "recorded-transcripts",
        "OWL_BT_VLM_CACHE": "off",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
    }


def test_every_everyday_task_has_a_recorded_transcript():
    from sim.tasks.everyday import EVERYDAY

    records = load(FOLDER)
    by_task = {r["task"]: r for r in records.values()}
    assert set(by_task) == set(EVERYDAY)
    for name, task in EVERYDAY.items():
        assert " ".join(task.instruction.split()) in records, name
        assert by_task[name]["answers"]["sketch"] and by_task[name]["answers"]["checker"]


def test_the_server_answers_by_task_kind_and_turn(tmp_path):
    record = load(FOLDER)
    instruction, rec = next(iter(record.items()))
    sketch = f"intro\n\n## Task\n{instruction}\n\n## Initial literals\nHandEmpty()\n"
    checker = f"intro\n\n## Task\n{instruction}\n\n## Plan sketch\npick(x)\n"
    with serve(FOLDER) as server:
        client = openai.OpenAI(api_key="x", base_url=server.base_url, max_retries=0)

        def ask(*users: str) -> str:
            messages = []
            for u in users:
                messages += [{"role": "user", "content": u}, {"role": "assistant", "content": "."}]
            out = client.chat.completions.create(model="m", messages=messages[:-1])
            return out.choices[0].message.content

        assert ask(sketch) == rec["answers"]["sketch"][0]
        assert ask(checker) == rec["answers"]["checker"][0]
        # a repair turn past the recording gets its last answer again (the same checkers back)
        assert ask(checker, "please fix it", "again") == rec["answers"]["checker"][-1]
        with pytest.raises(openai.NotFoundError, match="no recorded answer"):
            ask(sketch.replace(instruction, "juggle three eggs"))
        with pytest.raises(openai.NotFoundError, match="no recorded answer"):
            ask(f"## Task\n{instruction}\n\nwrite gen_plan\n")


@pytest.mark.slow
@pytest.mark.parametrize(("task", "seed"), RUNS)
def test_an_everyday_task_through_the_openai_backend(tmp_path, task, seed):
    with serve(FOLDER) as server:
        run = owl(
            "run",
            "--task",
            task,
            "--seed",
            str(seed),
            "--vlm",
            "openai",
            "--perception",
            "sim-state",
            "--out",
            str(tmp_path / "run"),
            "--json",
            "-q",
            env=_env(tmp_path, server.base_url),
        )
        asked = [r["body"]["messages"][0] for r in server.requests]
    assert "Traceback" not in run.stderr
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["success"] is True, (result.get("failure"), result.get("detector"))
    assert asked, "the model was never asked"
    events = [
        json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    ]
    calls = [e for e in events if e["event"] == "vlm_call"]
    assert calls and all(c["backend"] == "openai" and not c.get("cached") for c in calls)
    assert run.returncode == 0, run.stderr
    if task == "board_in_mug":  # an honest "cannot": one question, nothing moved, the reason told
        assert len(asked) == 1 and "6.4 cm opening" in run.stdout
    else:
        assert result["declared_success"] is True
