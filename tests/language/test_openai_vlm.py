"""The `openai` backend against a real chat-completions server on 127.0.0.1 (tests/fixtures/
chat_server.py) replaying recorded answers: normal answers with the scene image, a malformed sketch,
checker code with a syntax error, a 429 then success, a timeout — plus the response cache and the
per-call accounting. No client object is patched: the `openai` package talks HTTP to the server."""

from __future__ import annotations

import base64
import time

import pytest

from owl_bt.errors import ModelAnswerError, UnsafeCodeError
from owl_bt.language.constraints import generate
from owl_bt.language.openai_vlm import ModelEndpointError, OpenAIVLM
from owl_bt.language.settings import VLMSettings
from owl_bt.tamp.grounding import ground
from tests.support.chat_server import ChatServer, Reply, answer

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)
TASK = "put the strawberry onto the light-grey region at the center of the table"


def _vlm(server: ChatServer, cache, timeout_s: float = 5.0, retries: int = 2) -> OpenAIVLM:
    return OpenAIVLM(
        VLMSettings(
            base_url=server.base_url,
            model="test-vlm",
            api_key="",
            timeout_s=timeout_s,
            max_retries=retries,
            cache_dir=cache,
        )
    )


def _generate(vlm, world, schemas):
    g = ground(world, schemas)
    return generate(vlm, world, TASK, schemas, g.ops, [PNG], literals=g.initial)


def test_normal_answers_send_the_image_and_are_accounted_and_cached(berry_world, schemas, tmp_path):
    script = [Reply(answer("berry1_sketch.txt")), Reply(answer("berry1_checkers.txt"))]
    with ChatServer(script) as server:
        c = _generate(_vlm(server, tmp_path), berry_world, schemas)
        # the same requests again (a fresh backend, same endpoint): answered from the cache
        again = _generate(_vlm(server, tmp_path), berry_world, schemas)
    assert len(server.requests) == 2
    assert [call.cached for call in again.calls] == [True, True]
    assert again.sketch == c.sketch
    assert [str(a.op) for a in c.sketch.actions] == [
        "pick(strawberry)",
        "place_ontop(strawberry, light_grey_region)",
    ]
    assert set(c.checkers.names()) == {"goal_check0", "action_check1"}
    first = server.requests[0]["body"]
    assert first["model"] == "test-vlm"
    parts = first["messages"][0]["content"]
    assert parts[0]["type"] == "text" and "## Task" in parts[0]["text"]
    assert parts[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert [call.cached for call in c.calls] == [False, False]
    assert all(
        call.prompt_tokens > 1000 and call.completion_tokens > 5 and call.latency_s > 0
        for call in c.calls
    )
    assert c.queries == 2 and c.transcript[0]["call"]["model"] == "test-vlm"


def test_a_malformed_sketch_goes_back_with_the_reason(berry_world, schemas, tmp_path):
    script = [
        Reply(answer("berry1_sketch_malformed.txt")),
        Reply(answer("berry1_sketch.txt")),
        Reply(answer("berry1_checkers.txt")),
    ]
    with ChatServer(script) as server:
        c = _generate(_vlm(server, None), berry_world, schemas)
    assert len(c.sketch.actions) == 2 and c.queries == 3
    follow_up = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in follow_up] == ["user", "assistant", "user"]
    assert "grab(strawberry) is not one of the ground operators listed" in follow_up[-1]["content"]


def test_checker_code_with_a_syntax_error_is_sent_back_then_the_stage_fails(
    berry_world, schemas, tmp_path
):
    bad = answer("berry1_checkers_syntax_error.txt")
    script = [Reply(answer("berry1_sketch.txt")), Reply(bad), Reply(answer("berry1_checkers.txt"))]
    with ChatServer(script) as server:
        c = _generate(_vlm(server, None), berry_world, schemas)
    assert "does not parse" in server.requests[2]["body"]["messages"][-1]["content"]
    assert c.checkers.names() == ["goal_check0", "action_check1"]
    # never fixed: rejected after 1 + 2 retries, one line, no traceback
    with (
        ChatServer([Reply(answer("berry1_sketch.txt"))] + [Reply(bad)] * 3) as server,
        pytest.raises(UnsafeCodeError, match="rejected after 3 tries: checker code does not parse"),
    ):
        _generate(_vlm(server, None), berry_world, schemas)
    with (
        ChatServer([Reply(answer("berry1_sketch_malformed.txt"))] * 3) as server,
        pytest.raises(ModelAnswerError, match="rejected after 3 tries"),
    ):
        _generate(_vlm(server, None), berry_world, schemas)


def test_429_then_success_is_retried_with_backoff(berry_world, schemas):
    script = [
        Reply("slow down", 429, headers={"retry-after-ms": "20"}),
        Reply(answer("berry1_sketch.txt")),
        Reply("overloaded", 503, headers={"retry-after-ms": "20"}),
        Reply(answer("berry1_checkers.txt")),
    ]
    with ChatServer(script) as server:
        c = _generate(_vlm(server, None), berry_world, schemas)
    assert [call.retries for call in c.calls] == [1, 1]
    assert [r["headers"].get("x-stainless-retry-count") for r in server.requests] == [
        "0",
        "1",
        "0",
        "1",
    ]
    # more 429s than retries: a one-line endpoint error, the stage fails cleanly
    with (
        ChatServer([Reply("slow down", 429, headers={"retry-after-ms": "10"})] * 3) as server,
        pytest.raises(ModelEndpointError, match="HTTP 429 after retries"),
    ):
        _generate(_vlm(server, None, retries=2), berry_world, schemas)
    assert len(server.requests) == 3


def test_a_timeout_is_retried_then_reported(berry_world, schemas):
    with ChatServer([Reply(answer("berry1_sketch.txt"), delay_s=1.5)] * 2) as server:
        t0 = time.monotonic()
        with pytest.raises(ModelEndpointError, match=r"did not answer within 0.3 s \(2 tries\)"):
            _generate(_vlm(server, None, timeout_s=0.3, retries=1), berry_world, schemas)
        assert time.monotonic() - t0 < 3.0
    assert len(server.requests) == 2
    # a slow first answer, then a prompt one: the retry gets it
    script = [
        Reply(answer("berry1_sketch.txt"), delay_s=1.5),
        Reply(answer("berry1_sketch.txt")),
        Reply(answer("berry1_checkers.txt")),
    ]
    with ChatServer(script) as server:
        c = _generate(_vlm(server, None, timeout_s=0.3, retries=1), berry_world, schemas)
    assert c.calls[0].retries == 1 and len(c.sketch.actions) == 2


def test_settings_come_from_the_file_and_the_environment(tmp_path):
    from owl_bt.errors import UsageError
    from owl_bt.language.settings import load_settings

    cfg = tmp_path / "owl-bt.toml"
    cfg.write_text(
        '[vlm]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "qwen"\ntimeout_s = 5\nmax_retries = 1\ncache_dir = "off"\n'
    )
    s = load_settings({}, cfg)
    assert (s.base_url, s.model, s.timeout_s, s.max_retries, s.cache_dir) == (
        "http://127.0.0.1:9/v1",
        "qwen",
        5.0,
        1,
        None,
    )
    s = load_settings(
        {
            "OWL_BT_VLM_MODEL": "other",
            "OPENAI_BASE_URL": "http://h/v1",
            "OWL_BT_VLM_CACHE": str(tmp_path),
        },
        cfg,
    )
    assert (s.model, s.base_url, s.cache_dir) == ("other", "http://h/v1", tmp_path)
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        load_settings({}, tmp_path / "missing.toml")
    cfg.write_text('[vlm]\napi_key = "sk-x"\n')
    with pytest.raises(UsageError, match="not in the file"):
        load_settings({}, cfg)
    cfg.write_text("[vlm\n")
    with pytest.raises(UsageError, match="not valid TOML"):
        load_settings({}, cfg)


def test_a_rejected_answer_is_not_kept_in_the_cache(berry_world, schemas, tmp_path):
    # the rejected answers were cached, so the same command failed again after the
    # endpoint was fixed, without asking it
    script = [Reply(answer("berry1_sketch_malformed.txt"))] * 3 + [
        Reply(answer("berry1_sketch.txt")),
        Reply(answer("berry1_checkers.txt")),
    ]
    with ChatServer(script) as server:  # (one endpoint: its address is part of the cache key)
        with pytest.raises(ModelAnswerError, match="rejected after 3 tries"):
            _generate(_vlm(server, tmp_path), berry_world, schemas)
        c = _generate(
            _vlm(server, tmp_path), berry_world, schemas
        )  # the endpoint fixed, the same command again
    assert len(server.requests) == 5 and [call.cached for call in c.calls] == [False, False]
    assert len(c.sketch.actions) == 2


def test_an_empty_or_oversized_answer_is_asked_again(berry_world, schemas):
    script = [
        Reply(""),
        Reply("Plan:\n" + "x" * 300_000),
        Reply(answer("berry1_sketch.txt")),
        Reply(answer("berry1_checkers.txt")),
    ]
    with ChatServer(script) as server:
        c = _generate(_vlm(server, None), berry_world, schemas)
    assert len(c.sketch.actions) == 2 and c.queries == 4
    assert "empty answer" in server.requests[1]["body"]["messages"][-1]["content"]
    assert "characters long" in server.requests[2]["body"]["messages"][-1]["content"]


@pytest.mark.parametrize(
    "body",
    [b'{"id": "x", "object": "chat.completion", "choices": [', b"<html>502 Bad Gateway</html>"],
)
def test_a_body_that_is_not_json_is_an_unusable_response(berry_world, schemas, body):
    with (
        ChatServer([Reply(raw=body)]) as server,
        pytest.raises(
            ModelEndpointError, match=f"the model at {server.base_url} sent an unusable response"
        ),
    ):
        _generate(_vlm(server, None, retries=0), berry_world, schemas)


@pytest.mark.parametrize(
    "damage",
    ["[1, 2]", '"an answer"', '{"answer": "x", "prompt_tokens": "many"}', "null"],
)
def test_a_damaged_cache_file_is_a_miss(berry_world, schemas, tmp_path, damage):
    """A cache file that is JSON but not a record (a list, a string, tokens that are not counts) is
    asked of the model again, as an unreadable one is; a list raised AttributeError."""
    script = [Reply(answer("berry1_sketch.txt")), Reply(answer("berry1_checkers.txt"))] * 2
    with ChatServer(script) as server:
        _generate(_vlm(server, tmp_path), berry_world, schemas)
        files = sorted(tmp_path.glob("*/*.json"))
        assert len(files) == 2
        for f in files:
            f.write_text(damage, encoding="utf-8")
        c = _generate(_vlm(server, tmp_path), berry_world, schemas)
    assert len(server.requests) == 4 and [call.cached for call in c.calls] == [False, False]
    assert all(isinstance(call.prompt_tokens, int) for call in c.calls)
