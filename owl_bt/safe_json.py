"""JSON read from files a user or a damaged run may have written: every way it can be unreadable is a
ValueError (json's own JSONDecodeError, a number over Python's 4300 digits), including nesting too
deep for the parser, which Python raises as RecursionError (1000 levels of `[[[…]]]` in a bench's
episodes.jsonl or a run's plan.json), so that a caller names the file instead of a traceback."""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes) -> Any:
    """json.loads(text); raises ValueError (never RecursionError) for what cannot be read."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
