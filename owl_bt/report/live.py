"""The live tree on a terminal: the behaviour tree with each behaviour's status and feedback,
redrawn in place while the run goes on (rich.live). Used only when stderr is a terminal; the
plain progress lines are kept otherwise."""

from __future__ import annotations

import contextlib
import threading
import time

import py_trees
from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

STYLE = {"SUCCESS": "green", "FAILURE": "red", "RUNNING": "yellow", "INVALID": "dim"}
# py_trees' statuses in a person's words, as the run folder's tree view gives them ("invalid" is a
# behaviour that has not run in this round)
WORD = {
    "SUCCESS": "✓ success",
    "FAILURE": "✕ failure",
    "RUNNING": "… running",
    "INVALID": "- did not run",
}


def render_tree(
    root: py_trees.behaviour.Behaviour, elapsed_s: float, max_lines: int | None = None
) -> Group:
    """The tree as rich Text lines: indentation by depth, status word and colour, feedback message;
    each line cut at the terminal's width rather than wrapped. With `max_lines` (the terminal's
    height), a tree that would not fit is folded, least useful first: the insides of what did not
    run and of a guard not needed, then the insides of what has succeeded; if it is still too
    tall, its last lines (where the attempt is) under a line saying how many are left out above."""
    for fold in range(3):
        lines = _lines(root, elapsed_s, fold)
        if max_lines is None or len(lines) <= max_lines:
            break
    else:  # still too tall: the bottom is where the attempt is; say what is left out above it
        keep = max(max_lines - 2, 1)
        above = Text(
            f"  … {len(lines) - 1 - keep} lines above",
            style="dim",
            no_wrap=True,
            overflow="ellipsis",
        )
        lines = [lines[0], above, *lines[-keep:]]
    return Group(*lines)


def _lines(root: py_trees.behaviour.Behaviour, elapsed_s: float, fold: int) -> list[Text]:
    lines = [Text(f"owl-bt  {elapsed_s:5.1f} s", style="bold", no_wrap=True, overflow="ellipsis")]
    ended = root.status.name in ("SUCCESS", "FAILURE")
    words = (
        WORD if ended else {**WORD, "INVALID": "- not yet"}
    )  # while the run goes on, it may still come

    def walk(b: py_trees.behaviour.Behaviour, depth: int) -> None:
        status = b.status.name
        quiet = status == "FAILURE" and getattr(b, "failure_means_all_well", False)
        line = Text("  " * depth + ("└ " if depth else ""), no_wrap=True, overflow="ellipsis")
        line.append(b.name, style="bold" if status == "RUNNING" else "")
        if quiet:  # a guard whose condition is false when nothing is wrong (the safety branch on a healthy run)
            line.append("  ✓ not needed", style="green")
        else:
            line.append(f"  {words.get(status, status.lower())}", style=STYLE.get(status, ""))
        if b.feedback_message:
            line.append(f"  {b.feedback_message}", style="dim")
        lines.append(line)
        folded = (fold >= 1 and (status == "INVALID" or quiet)) or (
            fold >= 2 and status == "SUCCESS"
        )
        if b.children and folded:
            line.append(f"  (+{_count(b) - 1} inside)", style="dim")
            return
        for child in b.children:
            walk(child, depth + 1)

    walk(root, 0)
    return lines


def _count(b: py_trees.behaviour.Behaviour) -> int:
    return 1 + sum(_count(c) for c in b.children)


class LiveTree:
    """on_tick callback and context manager: redraws the tree at most `fps` times a second."""

    def __init__(self, console: Console, fps: float = 8.0) -> None:
        self.console = console
        self.period = 1.0 / fps
        self._live = Live(Text("starting…"), console=console, auto_refresh=False, transient=False)
        self._last = 0.0
        self._t0 = time.monotonic()
        self._lock = threading.Lock()
        self._paused = False

    def __enter__(self) -> LiveTree:
        self._t0 = time.monotonic()
        self._live.start()
        return self

    def __exit__(self, *exc) -> None:
        self._live.stop()

    @contextlib.contextmanager
    def paused(self):
        """Stop redrawing (a prompt is on the terminal); resume afterwards. Safe from any thread."""
        with self._lock:
            self._paused = True
            self._live.stop()
        try:
            yield
        finally:
            with self._lock:
                self._paused = False
                self._live.start()

    def __call__(self, root: py_trees.behaviour.Behaviour) -> None:
        with self._lock:
            if not self._paused:
                self._draw(root)

    def _draw(self, root: py_trees.behaviour.Behaviour) -> None:
        now = time.monotonic()
        final = root.status in (py_trees.common.Status.SUCCESS, py_trees.common.Status.FAILURE)
        if now - self._last >= self.period or final:
            self._last = now
            height = (
                self.console.size.height - 1
            )  # a line for the cursor: never scroll the header away
            self._live.update(render_tree(root, now - self._t0, max(height, 4)), refresh=True)
