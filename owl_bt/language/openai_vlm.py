"""VLM backend `openai`: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
llama.cpp server), through the `openai` client pointed at a base URL.

The scene image goes with the prompt as a PNG data URL. Timeouts and bounded retries with
exponential backoff on 408/409/429/5xx and on timeouts are the client's own (`max_retries`,
`timeout`). Answers are cached on disk keyed by the full request (endpoint, model, messages with the
image, temperature), so re-running a benchmark costs nothing; each call's latency, tokens, retries
and whether it came from the cache are kept in `last_call` for the event log and the benchmark.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import openai

from owl_bt import safe_json
from owl_bt.errors import ModelAnswerError, OwlError
from owl_bt.language.settings import VLMSettings
from owl_bt.language.vlm import CallRecord

MAX_ANSWER_CHARS = 200_000  # characters of one answer (a sketch or checkers: a few thousand)


class ModelEndpointError(OwlError):
    """The endpoint did not give an answer (timeout, refused, HTTP error after the retries)."""


class ResponseCache:
    """Answers on disk, one JSON file per request hash under `folder` (None: no cache)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    @staticmethod
    def key(request: dict) -> str:
        return hashlib.sha256(
            json.dumps(request, sort_keys=True, ensure_ascii=False).encode()
        ).hexdigest()

    def get(self, key: str) -> dict | None:
        if self.folder is None:
            return None
        path = self.folder / key[:2] / f"{key}.json"
        try:
            record = safe_json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if _whole_record(record) else None

    def drop(self, key: str) -> None:
        """Forget the answer to `key` (one the caller rejected: a re-run asks the model again)."""
        if self.folder is not None:
            with contextlib.suppress(OSError):
                (self.folder / key[:2] / f"{key}.json").unlink()

    def put(self, key: str, record: dict) -> None:
        if self.folder is None:
            return
        path = self.folder / key[:2] / f"{key}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(record), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache folder only costs the saving


def _whole_record(record: object) -> bool:
    """Is a cache file's JSON a record `put` writes (a damaged or edited one is a miss: a list
    raised AttributeError, token counts that are not counts reached the run's accounting)?"""
    if not isinstance(record, dict):
        return False
    answer = record.get("answer")
    counts = [record.get(k, 0) for k in ("prompt_tokens", "completion_tokens")]
    return (
        isinstance(answer, str)
        and 0 < len(answer) <= MAX_ANSWER_CHARS
        and all(type(n) is int and n >= 0 for n in counts)
        and isinstance(record.get("model", ""), str)
    )


def with_images(messages: list[dict], images: list[bytes]) -> list[dict]:
    """The messages with each PNG attached to the first user message as a base64 data URL."""
    if not images:
        return [dict(m) for m in messages]
    out, done = [], False
    for m in messages:
        if m["role"] == "user" and not done and isinstance(m["content"], str):
            parts = [{"type": "text", "text": m["content"]}]
            parts += [
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()},
                }
                for png in images
            ]
            out.append({"role": "user", "content": parts})
            done = True
        else:
            out.append(dict(m))
    return out


class OpenAIVLM:
    """complete(messages, images) → the model's text; raises ModelEndpointError (no answer) or
    ModelAnswerError (an empty answer)."""

    name = "openai"

    def __init__(self, settings: VLMSettings) -> None:
        self.settings = settings
        self.client = openai.OpenAI(
            api_key=settings.api_key or "not-needed",
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
        )
        self.cache = ResponseCache(settings.cache_dir)
        self.last_call: CallRecord | None = None
        self.last_key: str | None = None  # the cache key of the last request
        self.where = settings.base_url or "api.openai.com"

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str:
        request = {
            "model": self.settings.model,
            "messages": with_images(messages, list(images or [])),
            "temperature": self.settings.temperature,
        }
        key = self.last_key = ResponseCache.key({"base_url": self.where, **request})
        self.last_call = None
        t0 = time.monotonic()
        hit = self.cache.get(key)
        if hit is not None:
            self.last_call = CallRecord(
                self.name,
                self.settings.model,
                time.monotonic() - t0,
                hit.get("prompt_tokens", 0),
                hit.get("completion_tokens", 0),
                cached=True,
            )
            return hit["answer"]
        try:
            raw = self.client.chat.completions.with_raw_response.create(**request)
            completion = raw.parse()
            text, model, usage = _read_completion(completion)
        except (openai.OpenAIError, ValueError, NotOpenAI) as exc:
            error = self._endpoint_error(exc)
            self.last_call = CallRecord(
                self.name, self.settings.model, time.monotonic() - t0, error=error.reason
            )
            raise error from None
        latency = time.monotonic() - t0
        self.last_call = CallRecord(
            self.name,
            model or self.settings.model,
            latency,
            usage[0],
            usage[1],
            cached=False,
            retries=raw.retries_taken,
        )
        if not text or not text.strip():
            self.last_call = replace(self.last_call, error="the model returned an empty answer")
            raise ModelAnswerError(self.last_call.error)
        if (
            len(text) > MAX_ANSWER_CHARS
        ):  # (a 10 MB answer made a run folder its own --replay refused)
            error = f"the answer is {len(text):,} characters long; answer in at most {MAX_ANSWER_CHARS:,}"
            self.last_call = replace(self.last_call, error=error)
            raise ModelAnswerError(error)
        self.cache.put(
            key,
            {
                "answer": text,
                "prompt_tokens": self.last_call.prompt_tokens,
                "completion_tokens": self.last_call.completion_tokens,
                "model": self.last_call.model,
            },
        )
        return text

    def _endpoint_error(self, exc: BaseException) -> OwlError:
        """The one-line ModelEndpointError for what the client raised (or a non-OpenAI body)."""
        if isinstance(exc, openai.APITimeoutError):
            return ModelEndpointError(
                f"the model at {self.where} did not answer within {self.settings.timeout_s:g} s "
                f"({self.settings.max_retries + 1} tries)"
            )
        if isinstance(exc, openai.APIConnectionError):
            return ModelEndpointError(f"cannot reach the model at {self.where}: {exc}")
        if isinstance(exc, openai.APIStatusError):
            again = exc.status_code in (408, 409, 429) or exc.status_code >= 500
            return ModelEndpointError(
                f"the model at {self.where} answered HTTP {exc.status_code}"
                f"{' after retries' if again else ''}: {_short(exc.message)}"
            )
        if isinstance(exc, NotOpenAI):
            return ModelEndpointError(
                f"the endpoint at {self.where} is not an OpenAI-compatible chat-completions "
                f"endpoint: it answered {exc}"
            )
        # malformed JSON (JSONDecodeError), a body the client could not read, and the like
        return ModelEndpointError(
            f"the model at {self.where} sent an unusable response: {_short(str(exc))}"
        )

    def forget_last(self) -> None:
        """Drop the last answer from the cache: the caller rejected it (a bad sketch stays a miss, so a
        re-run after the endpoint is fixed asks again instead of replaying the rejected answer)."""
        if self.last_key is not None:
            self.cache.drop(self.last_key)


class NotOpenAI(Exception):
    """The body was not a chat completion (an HTML page, another API's JSON)."""


def _read_completion(completion: object) -> tuple[str | None, str, tuple[int, int]]:
    """(answer text, model, (prompt tokens, completion tokens)) of a parsed chat completion; raises
    NotOpenAI describing the body when it is not one (the client returns an HTML page as a string
    and unknown JSON as an unchecked object)."""
    if isinstance(completion, str | bytes):
        body = completion if isinstance(completion, str) else completion.decode("utf-8", "replace")
        kind = "an HTML page" if "<html" in body[:2000].lower() else "text"
        raise NotOpenAI(f"{kind}: {_short(body, 80)}")
    try:
        choices = completion.choices
        if not isinstance(choices, list) or not choices:
            raise TypeError("no choices")
        message = choices[0].message
        text = message.content if message is not None else None
        usage = completion.usage
        tokens = (
            (int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)) if usage else (0, 0)
        )
        model = completion.model
    except (AttributeError, TypeError, IndexError, KeyError, ValueError):
        raise NotOpenAI(
            f"JSON without chat-completion choices: {_short(repr(completion), 80)}"
        ) from None
    if text is not None and not isinstance(text, str):
        raise NotOpenAI(f"a message content that is not text: {_short(repr(text), 80)}")
    return text, model if isinstance(model, str) else "", tokens


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
