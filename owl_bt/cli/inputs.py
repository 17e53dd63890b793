"""Files named on the command line are read whole: each must be a regular file of a sane size, so
that `--scene /dev/zero` (or a FIFO, or a 2 GB file) is a usage error instead of filling memory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from owl_bt.errors import UsageError

SCENE_MAX_BYTES = 1 << 20  # a scene file lists objects: 1 MiB is thousands of them


def check_regular_file(path: Path, what: str, max_bytes: int) -> None:
    """Raise UsageError when `path` exists but is not a regular file (a folder, a device, a FIFO) or
    holds more than `max_bytes` bytes. A missing file is left to the reader, which names it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise UsageError(f"{what} {path} is {kind}; give a file")
    if st.st_size > max_bytes:
        raise UsageError(f"{what} {path} is {st.st_size} bytes; it can be at most {max_bytes}")


def out_path(text: str | None, example: str = "bench/", option: str = "--out") -> Path | None:
    """The folder an `--out` option names (None when not given); an empty or blank value is a UsageError
    (as a path, "" is the current folder: `--out ""` wrote a bench or a run into wherever one stood)."""
    if text is None:
        return None
    if not text.strip():
        raise UsageError(f"{option} is empty; give a folder, e.g. {option} {example}")
    return Path(text)


def file_option(text: str | None, option: str) -> Path | None:
    """The path a file or folder option names (None when not given); an empty or blank value is a UsageError
    (as a path, "" is the current folder: `--replay ""` looked for a run in it, `--scene ""` called it a folder)."""
    if text is None:
        return None
    if not text.strip():
        raise UsageError(f"{option} is empty; give a path")
    return Path(text)
