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


def make_console(stderr: bool = False) -> Console:
    """A Console on stdout (or stderr) that wraps at the terminal's width on a terminal and does
    not wrap text (WIDTH columns for rules and tables) when the stream is not a terminal."""
    console = Console(stderr=stderr, highlight=False)
    if console.is_terminal or os.environ.get("COLUMNS"):
        return console
    return Console(stderr=stderr, highlight=False, width=WIDTH, soft_wrap=True)
