"""The rich consoles the command line prints through (stdout and stderr).

On a terminal rich follows the terminal's width. Elsewhere (a pipe, a log file, CI) rich would
assume 80 columns and wrap every longer line; there lines are printed whole instead (soft wrap) and
rules, tables and code blocks are WIDTH columns wide. `COLUMNS`, when set, wins as rich documents.
Only what goes through these consoles changes: `--json` output is printed with `print`, so stdout
stays exactly one JSON object.
"""

from __future__ import annotations

import os

from rich.console import Console

WIDTH = 120  # columns of rules and tables when the output is not a terminal


MIN_COLUMNS = 20  # a COLUMNS below this (or not a number) is ignored: rich printed nothing at all for COLUMNS=0


def make_console(stderr: bool = False) -> Console:
    """A Console on stdout (or stderr) that wraps at the terminal's width on a terminal and does
    not wrap text (WIDTH columns for rules and tables) when the stream is not a terminal."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and not (columns.strip().isdigit() and int(columns) >= MIN_COLUMNS):
        terminal = Console(stderr=stderr).is_terminal
        try:
            width = os.get_terminal_size(2 if stderr else 1).columns if terminal else WIDTH
        except OSError:
            width = WIDTH
        return Console(stderr=stderr, highlight=False, width=max(width, MIN_COLUMNS), soft_wrap=not terminal)
    console = Console(stderr=stderr, highlight=False)
    if console.is_terminal or columns:
        return console
    return Console(stderr=stderr, highlight=False, width=WIDTH, soft_wrap=True)
