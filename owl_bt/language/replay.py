"""VLM backend `replay`: answers from a recorded `transcript.json`.

A run folder's transcript is one list per attempt of {"prompt", "answer"} records. Replay answers
each prompt with the first unused record whose prompt is identical; when the run has drifted (a
prompt not in the recording) it answers with the next unused record in recorded order and counts a
divergence, so a re-run stays reproducible as far as it can and says where it was not.
"""

from __future__ import annotations

import time
from pathlib import Path

from owl_bt import safe_json
from owl_bt.errors import ModelAnswerError, UsageError
from owl_bt.language.vlm import CallRecord


class RecordingExhausted(ModelAnswerError):
    """The recording has no answer left for this request: asking again cannot help."""

    retryable = False


class ReplayVLM:
    name = "replay"

    def __init__(self, records: list[dict], source: str = "transcript") -> None:
        self.records = [
            r for r in records if isinstance(r, dict) and isinstance(r.get("answer"), str)
        ]
        if not self.records:
            raise UsageError(f"{source} has no recorded model answers to replay")
        self.source = source
        self.used = [False] * len(self.records)
        self.divergences = 0
        self.last_call: CallRecord | None = None

    @classmethod
    def from_path(cls, path: Path) -> ReplayVLM:
        """From a run folder (its transcript.json) or a transcript file; raises UsageError."""
        file = path / "transcript.json" if path.is_dir() else path
        try:
            data = safe_json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"no transcript to replay at {file}") from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read the transcript {file}: {exc}") from None
        if not isinstance(data, list):
            raise UsageError(f"{file} is not a transcript (a list of attempts)")
        flat = [
            r for attempt in data for r in (attempt if isinstance(attempt, list) else [attempt])
        ]
        return cls(flat, str(file))

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str:
        """The recorded answer to the last user message; raises RecordingExhausted (saying why an
        answer was refused when this is the stage asking again) when none is left."""
        self.last_call = None
        t0 = time.monotonic()
        prompt = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        i = next(
            (
                k
                for k, r in enumerate(self.records)
                if not self.used[k] and r.get("prompt") == prompt
            ),
            None,
        )
        if i is None:
            i = next((k for k in range(len(self.records)) if not self.used[k]), None)
            if i is None:
                why = refused_reason(prompt)
                if why is not None:  # this run refused a recorded answer and asked again
                    message = (
                        f"the recording {self.source} has no answer after the one refused here: "
                        f"{why}"
                    )
                else:
                    message = (
                        f"the recording {self.source} has no more answers "
                        f"({len(self.records)} used)"
                    )
                self.last_call = CallRecord(
                    self.name, "replay", time.monotonic() - t0, cached=True, error=message
                )
                raise RecordingExhausted(message)
            self.divergences += 1
        self.used[i] = True
        self.last_call = CallRecord(self.name, "replay", time.monotonic() - t0, cached=True)
        return self.records[i]["answer"]


RETRY_PREFIX = "That answer could not be used: "  # how a constraint stage asks again


def refused_reason(prompt: str) -> str | None:
    """Why the previous answer was refused, when `prompt` is the constraint stage's request to
    answer again; else None."""
    if not prompt.startswith(RETRY_PREFIX):
        return None
    reason = prompt[len(RETRY_PREFIX) :]
    return reason.removesuffix(" Please answer again.").removesuffix(".")
