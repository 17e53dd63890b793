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


BACKENDS = ("offline",)


def make_vlm(name: str) -> VLM:
    """The backend called `name`; raises UsageError listing the available ones."""
    if name == "offline":
        from owl_bt.language.offline import OfflineGrounder

        return OfflineGrounder()
    raise UsageError(f"unknown VLM backend {name!r}; available: {', '.join(BACKENDS)}")
