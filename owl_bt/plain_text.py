"""Text a person typed, made safe to put in an instruction, an event log and a report: one line of
printable characters, of bounded length."""

from __future__ import annotations

import re
import unicodedata

# ECMA-48 escape sequences a terminal would act on: CSI (colours, cursor moves, "clear screen"), OSC
# (window titles, hyperlinks; ended by BEL or ST), and the other two-character ESC sequences; also
# their 8-bit forms (C1 CSI 0x9b, OSC 0x9d).
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)

FEEDBACK_LIMIT = 500  # characters: a line of feedback, not a document
MAX_INSTRUCTION = 1000  # characters: a goal, not a document


def plain_line(text: str, limit: int | None = FEEDBACK_LIMIT) -> str:
    """`text` as one line of printable text: terminal escape sequences removed, every other control
    or format character (NUL, backspace, DEL, bidirectional overrides …) dropped, whitespace runs
    (tabs, newlines) made one space, and cut to at most `limit` characters (ending in "…" when cut;
    None: not cut)."""
    text = _ESCAPES.sub("", text)
    text = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or not unicodedata.category(ch).startswith("C")
    )
    text = " ".join(text.split())
    return text if limit is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"
