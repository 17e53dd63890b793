"""Tree snapshots for the run report: the tree as text and as Graphviz source (py_trees.display)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import py_trees


def tree_snapshot(root: py_trees.behaviour.Behaviour) -> dict[str, str | None]:
    """{'text': the unicode tree with statuses, 'dot': its Graphviz source, or None when pydot is
    not installed}. Colours in the dot source are py_trees' (by behaviour type); statuses are in
    the text."""
    text = py_trees.display.unicode_tree(root, show_status=True)
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
    failed: the safety guard on every healthy run), what that means instead of "failure"."""
    if isinstance(b, py_trees.decorators.EternalGuard) and b.status == py_trees.common.Status.FAILURE:
        return textwrap.wrap(b.feedback_message or "not entered: its condition is false", 30)
    return [b.status.name.lower()]


def log_snapshot(log: Callable[..., None], root: py_trees.behaviour.Behaviour, label: str) -> None:
    """Write a `tree_snapshot` event (label, text, dot) to the run's event log."""
    log("tree_snapshot", label=label, **tree_snapshot(root))
