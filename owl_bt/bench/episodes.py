"""`episodes.jsonl`: one JSON object per finished episode, append-only, keyed by (task, seed, method).

Only the bench's parent process writes it, one complete line per `os.write` on an O_APPEND
descriptor, then `fsync`, so an interrupted bench leaves whole lines only. Reading tolerates a
damaged file anyway: lines that are not a JSON object with the key fields are skipped, and of two
lines with the same key the first wins.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FILENAME = "episodes.jsonl"
Key = tuple[str, int, str]


def key(rec: dict[str, Any]) -> Key:
    """The episode's identity: (task, seed, method)."""
    return (str(rec["task"]), int(rec["seed"]), str(rec["method"]))


def load(path: Path) -> list[dict[str, Any]]:
    """The episodes recorded in `path` (none when it does not exist), first line per key kept."""
    if not path.is_file():
        return []
    seen: set[Key] = set()
    records: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
            k = key(rec)
        except (ValueError, TypeError, KeyError):
            continue
        if k not in seen:
            seen.add(k)
            records.append(rec)
    return records


def append(path: Path, rec: dict[str, Any]) -> None:
    """Append `rec` as one line: a single write of the whole line, then fsync."""
    data = (json.dumps(rec, default=str) + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a line cut by a crash elsewhere: start afresh
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
