"""The VLM protocol and backend selection (DESIGN §5).

`complete(messages, images)`: messages are OpenAI-style dicts ({'role', 'content'}), images are PNG
bytes of the scene; returns the model's text. This build ships the `offline` backend; the
OpenAI-compatible and replay backends plug in behind the same protocol.
"""

from __future__ import annotations

from typing import Protocol

from owl_bt.errors import UsageError


class VLM(Protocol):
    name: str

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str: ...


BACKENDS = ("offline", "oracle")


def make_vlm(name: str, oracle: tuple[str, str] | None = None) -> VLM:
    """The backend called `name`; raises UsageError listing the available ones.

    `oracle`: (sketch answer, checker answer) — the task's hand-written ground truth, needed by the
    `oracle` backend (SPEC §8.1); raises UsageError when the task has none.
    """
    if name == "offline":
        from owl_bt.language.offline import OfflineGrounder

        return OfflineGrounder()
    if name == "oracle":
        from owl_bt.language.scripted import ScriptedVLM

        if not oracle or not all(oracle):
            raise UsageError("the oracle backend needs a benchmark task with hand-written answers (--task)")
        return ScriptedVLM("oracle", *oracle)
    raise UsageError(f"unknown VLM backend {name!r}; available: {', '.join(BACKENDS)}")
