"""Progress lines on stderr for `owl-bt run` when stderr is not a terminal (a log, CI)."""

from __future__ import annotations

import contextlib

from rich.markup import escape

from owl_bt.cli.base import err


class Progress:
    """Prints a line on stderr whenever a behaviour changes status (or its feedback)."""

    QUIET = (
        "attempt",
        "gather",
        "tasks",
        "safety",
        "make-safe",
        "task",
        "work",
        "arm-status",
        "ready",
    )  # structure

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, str]] = {}
        self._paused = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        return None

    @contextlib.contextmanager
    def paused(self):
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    def __call__(self, root) -> None:
        if self._paused:
            return
        for b in root.iterate():
            if b is root or b.name in self.QUIET:
                continue
            key = (b.status.name, b.feedback_message or "")
            if self.seen.get(b.name) != key and b.status.name != "INVALID":
                self.seen[b.name] = key
                note = (
                    f" — {escape(b.feedback_message)}" if b.feedback_message else ""
                )  # text, not markup
                err.print(f"[dim]{b.name:<22}[/] {_word(b)}{note}", soft_wrap=True)


def _word(b) -> str:
    """The status as the line says it: a failure that means all is well (a guard not needed) or that is the
    way a behaviour does its job (stop-arm fails, having stopped the arm, so that the tree ends) is not
    called a failure (a Ctrl-C'd run's line says "stop-arm done", not "stop-arm failure")."""
    if b.status.name == "FAILURE":
        if getattr(b, "failure_means_all_well", False):
            return "not needed"
        return getattr(b, "failure_word", "") or "failure"
    return b.status.name.lower()


_Progress = Progress  # the name it had in owl_bt/cli.py
