"""The bench's progress bar on stderr (rich): episodes done / total, successes so far, elapsed
time, and the last finished episode."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from owl_bt.bench.runner import Outcome


def describe(rec: dict[str, Any]) -> str:
    """One short line for a finished episode, e.g. "berry1 s3 ok 1.4 s" or "berry1 s3 failed: …",
    escaped for the bar's markup (a failure may quote anything)."""
    head = f"{rec['task']} s{rec['seed']}"
    if rec.get("success"):
        return escape(f"{head} ok {float(rec.get('wall_s') or 0):.1f} s")
    why = str(rec.get("failure") or rec.get("detector") or "not done")
    return escape(f"{head} failed: {why[:60]}")


class BenchProgress:
    """A context manager; call it with (record, outcome) after each recorded episode."""

    def __init__(
        self, console: Console, method: str, total: int, already: int, successes: int
    ) -> None:
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[ok]} ok"),
            TimeElapsedColumn(),
            TextColumn("[dim]{task.fields[last]}"),
            console=console,
            transient=False,
        )
        last = f"{already} already in episodes.jsonl" if already else "starting workers"
        self.task = self.bar.add_task(
            method, total=total, completed=already, ok=successes, last=last
        )

    def __enter__(self) -> BenchProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def __call__(self, rec: dict[str, Any], outcome: Outcome) -> None:
        self.bar.update(
            self.task,
            completed=outcome.already + outcome.new,
            ok=outcome.successes,
            last=describe(rec),
        )
