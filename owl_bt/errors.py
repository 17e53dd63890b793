"""Errors a person can read: each carries a one-line reason and the exit code it maps to.

Exit codes: 2 = usage error (bad arguments, unknown task), 1 = the robot cannot do it.
"""

from __future__ import annotations

import difflib
import errno
from pathlib import Path

# What a failed write's errno means to a person: the write cannot succeed until space is made.
NO_SPACE = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file size limit exceeded",
}


class OwlError(Exception):
    """Base of every error owl-bt reports as one line; `exit_code` is what the CLI returns."""

    exit_code = 1

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UsageError(OwlError):
    """The command line or its input is wrong (exit 2)."""

    exit_code = 2


class DiskFullError(OwlError):
    """A result could not be written: no space left on the device, the disk quota or the file-size
    limit reached (exit 1). Whatever was half-written has been removed."""


class UnknownTaskError(UsageError):
    def __init__(self, name: str, known: list[str]) -> None:
        # a slip of the keyboard ("cofee") is named first: the list of known tasks is forty names long
        close = difflib.get_close_matches(name.strip().lower(), known, n=2, cutoff=0.75)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        super().__init__(f"unknown task {name!r}{hint}; known tasks: {', '.join(known)}")


class UnknownObjectError(OwlError):
    """An instruction or a model answer names an object the scene does not have (exit 1)."""

    def __init__(self, name: str, known: list[str]) -> None:
        shown = repr(name) if isinstance(name, str) and len(name) <= 80 else _quoted(name)
        super().__init__(f"there is no {shown} in the scene; it has: {', '.join(known)}")
        self.name = name


class GroundingError(OwlError):
    """The language layer could not turn the instruction into constraints (exit 1)."""


INFEASIBLE = "the goal cannot be done: "  # how an honest "cannot" begins its reason


class InfeasibleGoalError(GroundingError):
    """The model answered impossible(<reason>): no plan can meet the goal (exit 1, not retried)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{INFEASIBLE}{reason}")
        self.why = reason


class ModelAnswerError(OwlError):
    """A (real or offline) model answer could not be parsed or validated."""


class UnsafeCodeError(OwlError):
    """Generated checker code failed the static allow-list check."""


def _quoted(value: object) -> str:
    """At most 80 characters of `value`'s repr, computed in bounded time (a name a generated checker
    passed may be a 500 MB tuple of strings)."""
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxtuple, r.maxlist, r.maxstring, r.maxother = 2, 6, 6, 80, 80
    text = r.repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def disk_error(exc: BaseException, where: Path | str, after: str = "") -> DiskFullError | None:
    """A DiskFullError for an OSError that means "no room to write" (NO_SPACE), naming the file
    (`exc.filename`, else `where`) and adding `after` (e.g. what was cleaned up); None for any other error."""
    if not isinstance(exc, OSError) or exc.errno not in NO_SPACE:
        return None
    return DiskFullError(f"{NO_SPACE[exc.errno]} writing {exc.filename or where}{after}")
