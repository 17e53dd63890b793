"""Blackboard keys of the executive, all under one namespace.

Each key has one writer (subtree):
- the runner seeds `instruction`, `attempt`, `history` before the first tick (replan owns them after);
- gather: `arm` (the arm's status, every tick: held object, fault, stop request);
- safety: `interruption` (the failure record of a fault it cleared), `clearing` (it is making one good);
- perceive: `world`, `scene_image`, `missing` (objects perception reports gone: name → why), `perceive_failure`;
- generate-constraints: `constraints`, `constraints_failure`, `init_world` (the run's first observed
  world, kept across replans: checkers' `init_state`, so "where X was" stays expressible);
- plan: `plan`, `plan_failure`;
- execute: `executed`, `placed` (each place step of the run, with its planned pose), `step` (the step
  in progress), `execute_failure`;
- replan: `instruction`, `attempt`, `history`, `failure` (the record it acted on last), `failures`
  (every record it acted on, in order).
"""

from __future__ import annotations

import py_trees

NAMESPACE = "/owl"
STAGES = ("perceive", "constraints", "plan", "execute")


def client(
    name: str, write: tuple[str, ...] = (), read: tuple[str, ...] = ()
) -> py_trees.blackboard.Client:
    """A blackboard client in /owl with WRITE access to `write` and READ access to `read`."""
    bb = py_trees.blackboard.Client(name=name, namespace=NAMESPACE)
    for key in write:
        bb.register_key(key=key, access=py_trees.common.Access.WRITE)
    for key in read:
        bb.register_key(key=key, access=py_trees.common.Access.READ)
    return bb


def get(bb: py_trees.blackboard.Client, key: str, default=None):
    """The key's value, or `default` while it has none."""
    return bb.get(key) if bb.exists(key) else default
