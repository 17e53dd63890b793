"""The executive's tree:

    owl (Sequence, no memory: every tick from the top)
    ├── gather (Sequence)                      data gathering, every tick
    │   └── arm-status                         the arm's status → /owl/arm
    └── tasks (Selector, no memory)
        ├── safety (EternalGuard: a stop request or an arm fault)   pre-empts everything below
        │   └── make-safe (Selector)
        │       ├── stop-arm                   stop requested: the arm is stopped, every branch fails
        │       └── clear-fault                the fault is cleared, the arm goes home, the replan follows
        └── task (EternalGuard: no stop request, the arm well)
            └── work (Selector, no memory)
                ├── attempt (Sequence, memory)
                │   ├── ready                  no interruption pending, no feedback awaited
                │   ├── perceive               the scene → /owl/world
                │   ├── generate-constraints   VLM → plan sketch and checkers
                │   ├── plan                   TAMP → grounded steps
                │   └── execute                skills on the arm, each step monitored
                └── replan                     one factual line appended to the instruction (bounded)

An attempt that fails anywhere falls through to replan, which augments the instruction and lets
the selector start the attempt again from a fresh observation (bounded attempts). Perceive, plan,
the VLM calls and the arm's motions run in a worker thread (trees.worker): the tree keeps ticking.
"""

from __future__ import annotations

import py_trees

from trees.execute import create_execute_subtree
from trees.generate_constraints import create_generate_constraints_subtree
from trees.perceive import create_perceive_subtree
from trees.plan import create_plan_subtree
from trees.replan import create_replan_subtree
from trees.safety import (
    create_gather_subtree,
    create_guarded_task,
    create_ready_check,
    create_safety_subtree,
)


def create_attempt_subtree() -> py_trees.behaviour.Behaviour:
    return py_trees.composites.Sequence(
        name="attempt",
        memory=True,
        children=[
            create_ready_check(),
            create_perceive_subtree(),
            create_generate_constraints_subtree(),
            create_plan_subtree(),
            create_execute_subtree(),
        ],
    )


def create_task_subtree(max_attempts: int = 4) -> py_trees.behaviour.Behaviour:
    work = py_trees.composites.Selector(
        name="work",
        memory=False,
        children=[create_attempt_subtree(), create_replan_subtree(max_attempts)],
    )
    return create_guarded_task(work)


def create_root(max_attempts: int = 4) -> py_trees.behaviour.Behaviour:
    tasks = py_trees.composites.Selector(
        name="tasks",
        memory=False,
        children=[create_safety_subtree(), create_task_subtree(max_attempts)],
    )
    return py_trees.composites.Sequence(
        name="owl", memory=False, children=[create_gather_subtree(), tasks]
    )
