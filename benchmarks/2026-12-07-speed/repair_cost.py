"""Constraint repair alone on a task's oracle checkers (ground truth of seed S): the wall clock of
one `repair.check` round over the groups `constraints._repaired` builds, the exchanges with the
sandbox worker it made, and which checkers it found unsatisfiable.

    PYTHONPATH=$PWD python benchmarks/2026-12-07-speed/repair_cost.py mug3 0
"""

from __future__ import annotations

import sys
import time

import numpy as np

from owl_bt.language import repair, sandbox_client
from owl_bt.language.parser import parse_checkers
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state
from sim import tasks
from sim.world import SimWorld


def main() -> None:
    name, seed = sys.argv[1], int(sys.argv[2])
    task = tasks.get(name)
    world = SimWorld()
    try:
        task.build(world, seed)
        state = world.ground_truth()
    finally:
        world.close()
    env = env_from_state(state)
    source = parse_checkers(task.oracle_checkers, ())
    checkers = CheckerSet.compile(source, state, env)
    required = [n for n in checkers.names() if n.startswith(("goal_check", "action_check"))]
    goals = [n for n in required if n.startswith("goal_check")]
    groups = [[n] for n in required] + ([goals] if len(goals) > 1 else [])
    sends = [0]
    send = sandbox_client.SandboxWorker._send

    def counted(self, request):
        sends[0] += 1
        return send(self, request)

    sandbox_client.SandboxWorker._send = counted
    sandbox_client.shared().ping()  # the worker started before the clock
    sends[0] = 0
    t0 = time.perf_counter()
    problems = repair.check(checkers, state, env, groups, np.random.default_rng(0), context=goals)
    secs = time.perf_counter() - t0
    print(
        f"{name} seed={seed} repair_s={secs:.2f} exchanges={sends[0]} "
        f"unsatisfiable={[p.checker for p in problems]}",
        flush=True,
    )


if __name__ == "__main__":
    main()
