"""Every model exchange is on the record: rejected answers and failed calls stay in the stage's
transcript and call records (attached to the raised error when the stage fails), the time waiting
on a silent endpoint counts, a non-OpenAI body is one line naming the endpoint, and a replayed
recording whose answer is refused here says why. The `openai` backend talks HTTP to a real server
on 127.0.0.1 (tests/fixtures/chat_server.py)."""

from __future__ import annotations

import json

import pytest

from owl_bt.errors import ModelAnswerError
from owl_bt.language.constraints import generate
from owl_bt.language.openai_vlm import ModelEndpointError, OpenAIVLM
from owl_bt.language.replay import ReplayVLM
from owl_bt.language.settings import VLMSettings
from owl_bt.tamp.grounding import ground
from tests.support.chat_server import ChatServer, Reply, answer

TASK = "put the strawberry onto the light-grey region at the center of the table"


def _vlm(server: ChatServer, timeout_s: float = 5.0, retries: int = 0) -> OpenAIVLM:
    return OpenAIVLM(
        VLMSettings(
            base_url=server.base_url,
            model="test-vlm",
            api_key="",
            timeout_s=timeout_s,
            max_retries=retries,
            cache_dir=None,
        )
    )


def _generate(vlm, world, schemas):
    g = ground(world, schemas)
    return generate(vlm, world, TASK, schemas, g.ops, [], literals=g.initial)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            Reply(raw=b"<html><body>Welcome to nginx!</body></html>", content_type="text/html"),
            "it answered an HTML page",
        ),
        (Reply(raw=b'{"result": "hello", "status": "ok"}'), "JSON without chat-completion"),
        (Reply(raw=b"plain words", content_type="text/plain"), "it answered text"),
    ],
)
def test_a_body_that_is_no_chat_completion_is_one_line_naming_the_endpoint(
    berry_world, schemas, reply, said
):
    with ChatServer([reply]) as server, pytest.raises(ModelEndpointError) as exc:
        _generate(_vlm(server), berry_world, schemas)
    reason = exc.value.reason
    assert server.base_url in reason and "not an OpenAI-compatible" in reason and said in reason
    assert "\n" not in reason and len(reason) < 300
    record = exc.value.exchange
    assert record.queries == 1 and record.calls[0].error == reason
    assert record.transcript[0]["error"] == reason


def test_the_time_waiting_on_a_silent_endpoint_counts(berry_world, schemas):
    script = [Reply(answer("berry1_sketch.txt"), delay_s=2.0)] * 2
    with ChatServer(script) as server, pytest.raises(ModelEndpointError) as exc:
        _generate(_vlm(server, timeout_s=0.4, retries=1), berry_world, schemas)
    assert "did not answer within 0.4 s" in exc.value.reason
    record = exc.value.exchange
    assert record.model_s >= 0.8  # two tries of 0.4 s
    assert record.calls[0].latency_s >= 0.8 and "did not answer" in record.calls[0].error
    assert record.transcript[0]["prompt"] and "did not answer" in record.transcript[0]["error"]


def test_rejected_answers_stay_in_the_transcript_and_the_call_records(berry_world, schemas):
    bad = "1. dance(strawberry)\n"
    with ChatServer([Reply(bad)] * 3) as server, pytest.raises(ModelAnswerError) as exc:
        _generate(_vlm(server), berry_world, schemas)
    record = exc.value.exchange
    assert [e["answer"] for e in record.transcript] == [bad] * 3
    assert all(e["rejected"] for e in record.transcript)
    assert len(record.calls) == 3 and record.queries == 3
    assert all(e["call"]["backend"] == "openai" for e in record.transcript)


def test_a_replayed_checker_refused_here_says_why(berry_world, schemas):
    code = answer("berry1_checkers.txt").replace("```python\n", "```python\nimport os\n", 1)
    assert "import os" in code
    records = [
        {"prompt": "sketch", "answer": answer("berry1_sketch.txt")},
        {"prompt": "checkers", "answer": code},
    ]
    with pytest.raises(ModelAnswerError) as exc:
        _generate(ReplayVLM(records), berry_world, schemas)
    reason = exc.value.reason
    assert "no answer after the one refused here" in reason
    assert "forbidden construct: Import (line 1)" in reason, reason
    assert "no more answers" not in reason
    record = exc.value.exchange
    assert record.transcript[1]["rejected"].startswith("checker code uses a forbidden construct")
    json.dumps(record.transcript)  # the run folder's transcript.json can hold it
