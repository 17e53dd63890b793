"""The VLM protocol: what every backend offers (`owl_bt.language.backends` picks one).

`complete(messages, images)`: messages are OpenAI-style dicts ({'role', 'content'}), images are PNG
bytes of the scene; returns the model's text. After each call a backend leaves a `CallRecord` in
`last_call` (latency, tokens, cache hit, retries) for the event log and the benchmark.

Backends: `offline` (the default deterministic grounder), `openai` (an OpenAI-compatible endpoint,
see `owl_bt.language.settings`), `replay` (answers from a recorded transcript.json) and `oracle`
(a benchmark task's hand-written answers). A backend spec may carry an argument after a colon
(`replay:runs/x/transcript.json`) and a comparison method before a slash (`no-cont/offline`,
docs/benchmark.md), which `owl_bt.language.constraints.generate` reads from the backend's `method`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

from owl_bt.errors import UsageError


@dataclass(frozen=True)
class CallRecord:
    """One model call: backend name, model, wall-clock latency (s), tokens, from the cache or not,
    HTTP retries taken."""

    backend: str
    model: str
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    retries: int = 0
    error: str = ""  # why the call gave no usable answer ('' when it did)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["latency_s"] = round(self.latency_s, 4)
        if not self.error:
            del d["error"]
        return d


class VLM(Protocol):
    name: str

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str: ...


BACKENDS = ("offline", "openai", "replay", "oracle")
# the language-side switches of the comparison methods; planner-side ones are elsewhere
METHOD_SWITCHES = ("owl", "no-disc", "no-cont", "direct", "cap", "cap-sample")


# what a prompt asks for, as the caller that built it knows: a plan sketch, checker code (and its
# repair rounds), goal literals (the direct method), a Code-as-Policies program (without and with
# sampling); a backend with `complete_kind(kind, messages, images)` is told it, so it never has to
# guess the kind from the prompt's text
PROMPT_KINDS = ("sketch", "checker", "direct", "cap", "cap-sample")


def ask(vlm: VLM, kind: str, messages: list[dict], images: list[bytes] | None = None) -> str:
    """`vlm`'s answer to `messages`, whose first prompt is of `kind` (PROMPT_KINDS): through
    `complete_kind` when the backend answers by kind (the offline grounder), else `complete`."""
    told = getattr(vlm, "complete_kind", None)
    if told is not None:
        return told(kind, messages, images)
    return vlm.complete(messages, images)


def parse_spec(spec: str) -> tuple[str, str, str]:
    """'[method/]backend[:argument]' → (method, backend, argument); raises UsageError."""
    head, colon, arg = spec.partition(":")
    method, _, backend = head.rpartition("/")
    method = method or "owl"
    if method not in METHOD_SWITCHES:
        raise UsageError(
            f"unknown language method {method!r}; available: {', '.join(METHOD_SWITCHES)}"
        )
    return method, backend.strip().lower(), arg
