"""VLM backend `openai`: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
llama.cpp server), through the `openai` client pointed at a base URL (DESIGN §5).

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
            return safe_json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

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
        t0 = time.monotonic()
        hit = self.cache.get(key)
        if hit is not None and isinstance(hit.get("answer"), str):
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
        except openai.APITimeoutError:
            raise ModelEndpointError(
                f"the model at {self.where} did not answer within {self.settings.timeout_s:g} s "
                f"({self.settings.max_retries + 1} tries)"
            ) from None
        except openai.APIConnectionError as exc:
            raise ModelEndpointError(f"cannot reach the model at {self.where}: {exc}") from None
        except openai.APIStatusError as exc:
            raise ModelEndpointError(
                f"the model at {self.where} answered HTTP {exc.status_code}"
                f"{' after retries' if exc.status_code in (408, 409, 429) or exc.status_code >= 500 else ''}: "
                f"{_short(exc.message)}"
            ) from None
        except (
            openai.OpenAIError,
            ValueError,
        ) as exc:  # malformed JSON (JSONDecodeError), HTML and the like
            raise ModelEndpointError(
                f"the model at {self.where} sent an unusable response: {_short(str(exc))}"
            ) from None
        latency = time.monotonic() - t0
        choices = completion.choices or []
        text = choices[0].message.content if choices and choices[0].message else None
        usage = completion.usage
        self.last_call = CallRecord(
            self.name,
            completion.model or self.settings.model,
            latency,
            usage.prompt_tokens if usage else 0,
            usage.completion_tokens if usage else 0,
            cached=False,
            retries=raw.retries_taken,
        )
        if not text or not text.strip():
            raise ModelAnswerError("the model returned an empty answer")
        if (
            len(text) > MAX_ANSWER_CHARS
        ):  # (a 10 MB answer made a run folder its own --replay refused)
            raise ModelAnswerError(
                f"the answer is {len(text):,} characters long; answer in at most {MAX_ANSWER_CHARS:,}"
            )
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

    def forget_last(self) -> None:
        """Drop the last answer from the cache: the caller rejected it (a bad sketch stays a miss, so a
        re-run after the endpoint is fixed asks again; break-it: it replayed the rejected answer)."""
        if self.last_key is not None:
            self.cache.drop(self.last_key)


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
