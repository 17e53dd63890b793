"""Tree snapshots for the run report and the event log: the tree as text and as Graphviz source
(py_trees.display)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

import py_trees

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def tree_text(root: py_trees.behaviour.Behaviour) -> str:
    """The unicode tree with statuses (py_trees.display), as plain text for files and logs: py_trees
    colours it when stdout is a terminal, and report.md and tree.txt then held escape codes. A guard
    whose failure means all is well (the safety guard of a healthy run) reads `[✓ not needed]`."""
    text = ANSI.sub("", py_trees.display.unicode_tree(root, show_status=True))
    for b in root.iterate():
        if b.status == py_trees.common.Status.FAILURE and getattr(
            b, "failure_means_all_well", False
        ):
            text = re.sub(rf"(?<=\s){re.escape(b.name)} \[✕\]", f"{b.name} [✓ not needed]", text)
    return text


def tree_snapshot(root: py_trees.behaviour.Behaviour) -> dict[str, str | None]:
    """{'text': the unicode tree with statuses, 'dot': its Graphviz source, or None when pydot is
    not installed}. Colours in the dot source are py_trees' (by behaviour type); statuses are in
    the text."""
    text = tree_text(root)
    try:
        graph = py_trees.display.dot_tree(root, with_blackboard_variables=False)
    except ImportError:
        return {"text": text, "dot": None}
    for node in graph.get_nodes():  # mark each behaviour's status in its label
        name = node.get_name().strip('"')
        b = next((b for b in root.iterate() if b.name == name), None)
        if b is not None:
            node.set("label", "\\n".join([name, *_status_words(b)]))
    return {"text": text, "dot": graph.to_string()}


def _status_words(b: py_trees.behaviour.Behaviour) -> list[str]:
    """The label lines under a behaviour's name: its status; for a guard whose condition is false (drawn
    failed: the safety guard on every healthy run), what that means instead of "failure" — unless what it
    guards ran and failed."""
    failed = py_trees.common.Status.FAILURE
    if (
        isinstance(b, py_trees.decorators.EternalGuard)
        and b.status == failed
        and not any(c.status == failed for c in b.children)
    ):
        return textwrap.wrap(b.feedback_message or "not entered: its condition is false", 30)
    return [b.status.name.lower()]


def log_snapshot(log: Callable[..., None], root: py_trees.behaviour.Behaviour, label: str) -> None:
    """Write a `tree_snapshot` event (label, text, dot) to the run's event log."""
    log("tree_snapshot", label=label, **tree_snapshot(root))
