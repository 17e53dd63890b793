"""The rich consoles the command line prints through (stdout and stderr).

On a terminal rich follows the terminal's width. Elsewhere (a pipe, a log file, CI) rich would
assume 80 columns and wrap every longer line; there lines are printed whole instead (soft wrap) and
rules, tables and code blocks are WIDTH columns wide. `COLUMNS`, when set, wins as rich documents.
Only what goes through these consoles changes: `--json` output is printed with `print`, so stdout
stays exactly one JSON object. They write under `OUTPUT_LOCK` (owl_bt/output_lock.py), so that no line
is printed into the moment another thread has the process's output pointed at /dev/null.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

from owl_bt.output_lock import OUTPUT_LOCK

WIDTH = 120  # columns of rules and tables when the output is not a terminal


MAX_COLUMNS = 500  # a larger COLUMNS is taken as this
MIN_COLUMNS = 20  # a COLUMNS below this (or not a number) is ignored: rich printed nothing at all for COLUMNS=0


class _Lost:
    """Whether stdout's loss is survived: `run` sets it once its task has ended, so that a reader gone
    (`owl-bt run … | head -1`) costs the rest of the account, not the exit code."""

    stdout_ok = False  # set: a write to a closed stdout points it at /dev/null and goes on
    stdout_lost = False  # … and that happened


LOST = _Lost()


class HeldStream:
    """sys.stdout or sys.stderr as it is at each call (a test runner swaps them), written and
    flushed under OUTPUT_LOCK; everything else (isatty, fileno, encoding) is the stream's own."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr

    @property
    def stream(self):
        return sys.stderr if self._stderr else sys.stdout

    def write(self, text: str) -> int:
        with OUTPUT_LOCK:
            try:
                return self.stream.write(text)
            except OSError as exc:
                if not self._stderr and not (LOST.stdout_ok and isinstance(exc, BrokenPipeError)):
                    raise
                _gone(self.stream)
                return len(text)

    def flush(self) -> None:
        with OUTPUT_LOCK:
            try:
                self.stream.flush()
            except OSError as exc:
                if not self._stderr and not (LOST.stdout_ok and isinstance(exc, BrokenPipeError)):
                    raise
                _gone(self.stream)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _gone(stream) -> None:
    """`stream` (sys.stderr, or sys.stdout once LOST.stdout_ok) cannot be written: its reader went away
    (`2>&1 | head -1`) or its disk is full (`2>/dev/full`). stderr only ever carries the account, so the
    run goes on without it; its result still reaches stdout, the run folder and the exit code. The file
    descriptor is pointed at /dev/null so that later writes (and the interpreter's last flush) do not
    fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    finally:
        os.close(devnull)
    if stream is sys.stdout:
        LOST.stdout_lost = True
    try:
        stream.flush()  # what was buffered goes to /dev/null now
    except (OSError, ValueError):
        pass


def lose_stdout_quietly() -> None:
    """sys.stdout's reader went away (BrokenPipeError from a plain print): as HeldStream does once
    LOST.stdout_ok is set."""
    _gone(sys.stdout)


class _Console(Console):
    """rich's Console, but a reader gone away raises BrokenPipeError rather than rich's SystemExit(1): the
    command decides what that means (`owl-bt tasks | head -1` did what it was asked: exit 0; `run … | head -1`
    keeps the task's exit code). No emoji codes: what it prints holds paths, goals and addresses, and
    rich printed the run folder /tmp/a:fire:b as /tmp/a🔥b."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        _gone(sys.stdout)
        raise BrokenPipeError("standard output's reader went away")


def make_console(stderr: bool = False) -> Console:
    """A Console on stdout (or stderr) that wraps at the terminal's width on a terminal and does
    not wrap text (WIDTH columns for rules and tables) when the stream is not a terminal."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and not (columns.strip().isdigit() and int(columns) >= MIN_COLUMNS):
        terminal = _Console(file=HeldStream(stderr)).is_terminal
        try:
            width = os.get_terminal_size(2 if stderr else 1).columns if terminal else WIDTH
        except OSError:
            width = WIDTH
        return _Console(
            file=HeldStream(stderr),
            highlight=False,
            width=max(width, MIN_COLUMNS),
            soft_wrap=not terminal,
        )
    if (
        columns is not None and int(columns) > MAX_COLUMNS
    ):  # a rule that wide was 120 MB, or a MemoryError
        return _Console(file=HeldStream(stderr), highlight=False, width=MAX_COLUMNS)
    console = _Console(file=HeldStream(stderr), highlight=False)
    if console.is_terminal or columns:
        return console
    return _Console(file=HeldStream(stderr), highlight=False, width=WIDTH, soft_wrap=True)
