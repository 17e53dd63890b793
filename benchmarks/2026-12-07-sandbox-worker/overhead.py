"""Per-call cost of evaluating a generated checker: one call, and one call per state in a batch.

Run from a checkout (its code is what is measured):
    PYTHONPATH=$PWD python benchmarks/2026-12-07-sandbox-worker/overhead.py [N]
Prints one JSON line: microseconds per call (median of 5 rounds of N calls each) for a trivial
checker and for the berry1 placement checker, single and (where the code has it) batched, and the
empty round trip to the worker.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from owl_bt.language.codebook import env_from_state
from owl_bt.language.sandbox import CheckerSet
from sim import tasks
from sim.world import SimWorld

SOURCE = (
    "def trivial():\n    return True\n"
    "def goal_check0():\n"
    "    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, 'strawberry', "
    "'light_grey_region')\n"
    "    return position_within_bounds(get_obj_center(state, env, 'strawberry'), b)\n"
)


def per_call_us(fn, n: int) -> float:
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        fn(n)
        rounds.append((time.perf_counter() - t0) / n * 1e6)
    return round(statistics.median(rounds), 1)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    world = SimWorld()
    tasks.get("berry1").build(world, 0)
    state = world.ground_truth()
    world.close()
    cs = CheckerSet.compile(SOURCE, state, env_from_state(state))
    berry = state.get("strawberry").pose
    states = [
        state.with_pose("strawberry", berry.__class__(berry.x + 0.001 * i, berry.y, berry.z))
        for i in range(n)
    ]
    out: dict = {"n": n}
    for name in ("trivial", "goal_check0"):
        cs.evaluate(name, state)
        out[f"{name}_single_us"] = per_call_us(
            lambda k, name=name: [cs.evaluate(name, s) for s in states[:k]], n
        )
        if hasattr(cs, "evaluate_many"):
            out[f"{name}_batched_us"] = per_call_us(
                lambda k, name=name: cs.evaluate_many([(name, s) for s in states[:k]]), n
            )
    try:
        from owl_bt.language.sandbox_client import shared
    except ImportError:
        pass
    else:
        out["empty_round_trip_us"] = per_call_us(lambda k: [shared().ping() for _ in range(k)], n)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
