"""The executive's tree (DESIGN §2):

    owl (Selector)
    ├── attempt (Sequence, memory)
    │   ├── perceive
    │   ├── generate-constraints
    │   ├── plan
    │   └── execute
    └── replan

An attempt that fails anywhere falls through to replan, which augments the instruction and lets
the selector start the attempt again from a fresh observation (bounded attempts).
"""

from __future__ import annotations

import py_trees

from trees.execute import create_execute_subtree
from trees.generate_constraints import create_generate_constraints_subtree
from trees.perceive import create_perceive_subtree
from trees.plan import create_plan_subtree
from trees.replan import create_replan_subtree


def create_root(max_attempts: int = 4) -> py_trees.behaviour.Behaviour:
    attempt = py_trees.composites.Sequence(
        name="attempt",
        memory=True,
        children=[
            create_perceive_subtree(),
            create_generate_constraints_subtree(),
            create_plan_subtree(),
            create_execute_subtree(),
        ],
    )
    return py_trees.composites.Selector(name="owl", memory=False, children=[attempt, create_replan_subtree(max_attempts)])
