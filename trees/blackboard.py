"""Blackboard keys of the executive, all under one namespace (DESIGN §2).

Each key has one writer: `instruction` and `attempt` (replan; the runner seeds them), `world` and
`scene_image` (perceive), `constraints` (generate-constraints), `plan` (plan), `executed` (execute),
`<stage>_failure` (that stage), `failure` (replan, the record it acted on).
"""

from __future__ import annotations

import py_trees

NAMESPACE = "/owl"
STAGES = ("perceive", "constraints", "plan", "execute")


def client(name: str, write: tuple[str, ...] = (), read: tuple[str, ...] = ()) -> py_trees.blackboard.Client:
    """A blackboard client in /owl with WRITE access to `write` and READ access to `read`."""
    bb = py_trees.blackboard.Client(name=name, namespace=NAMESPACE)
    for key in write:
        bb.register_key(key=key, access=py_trees.common.Access.WRITE)
    for key in read:
        bb.register_key(key=key, access=py_trees.common.Access.READ)
    return bb
