"""`--help` text that never breaks a word at its hyphen: click wraps at hyphens, which printed examples
a user copies as `grasp-` / `slip=0.2` and options as `--dry-` / `run`. Here the wrapping is click's own;
only the hyphens of the text are held together while it wraps.

`OwlGroup` is the app's group class and `OwlCommand` every command's class (`app.command(cls=OwlCommand)`);
both make their contexts with `OwlContext`, whose `formatter_class` is `KeepHyphensFormatter`."""

from __future__ import annotations

from collections.abc import Sequence

import typer
import typer.core

_HELD = "\u2011"  # a non-breaking hyphen: the wrapper (textwrap's break_on_hyphens) does not split at it


class KeepHyphensFormatter(
    typer.Context.formatter_class
):  # click's HelpFormatter, as typer ships it
    """Click's help formatter whose wrapped text (descriptions, option help) keeps hyphenated words whole."""

    def write_text(self, text: str) -> None:
        """Write `text` re-wrapped as click does, without breaking at hyphens."""
        start = len(self.buffer)
        super().write_text(text.replace("-", _HELD))
        self._release(start)

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        """Write a definition list (options, commands) as click does; its help column keeps hyphenated words whole."""
        start = len(self.buffer)
        super().write_dl(
            [(term, text.replace("-", _HELD)) for term, text in rows], col_max, col_spacing
        )
        self._release(start)

    def _release(self, start: int) -> None:
        """Turn the held hyphens written since buffer index `start` back into plain ones (what a user copies)."""
        self.buffer[start:] = [piece.replace(_HELD, "-") for piece in self.buffer[start:]]


class OwlContext(typer.Context):
    """typer's context, formatting help with `KeepHyphensFormatter`."""

    formatter_class = KeepHyphensFormatter


class OwlCommand(typer.core.TyperCommand):
    """A typer command whose help keeps hyphenated words whole."""

    context_class = OwlContext


class OwlGroup(typer.core.TyperGroup):
    """The typer group of `owl-bt`, whose help keeps hyphenated words whole."""

    context_class = OwlContext
