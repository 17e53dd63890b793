"""Planning alone on the scaling tables: the real planner (`owl_bt.tamp.search.plan`) on the ground
truth of scaling-n<N>, the sketch pick/place_ontop of the three fruit onto the plate, no checkers.
Prints one line per (N, seed): success, samples, planning seconds, seconds per moved object.

    PYTHONPATH=$PWD python benchmarks/2026-12-07-scaling/plan_only.py 4,24 0,1,2
"""

from __future__ import annotations

import sys
import time

import numpy as np

from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.search import SketchItem, plan
from sim import tasks
from sim.tasks.scaling import MOVED
from sim.world import SimWorld
from skills.registry import load_skills


def main() -> None:
    sizes = [int(v) for v in sys.argv[1].split(",")]
    seeds = [int(v) for v in sys.argv[2].split(",")]
    skills = load_skills()
    sketch = []
    for fruit in MOVED:
        sketch += [
            SketchItem(GroundOp("pick", (fruit,))),
            SketchItem(GroundOp("place_ontop", (fruit, "plate"))),
        ]
    for n in sizes:
        for seed in seeds:
            world = SimWorld()
            try:
                tasks.get(f"scaling-n{n}").build(world, seed)
                state = world.ground_truth()
            finally:
                world.close()
            t0 = time.perf_counter()
            result = plan(state, skills, sketch, [], np.random.default_rng(seed), 500, 5)
            secs = time.perf_counter() - t0
            print(
                f"N={n} seed={seed} ok={result.failure is None} samples={result.samples} "
                f"plan_s={secs:.2f} per_moved_s={secs / len(MOVED):.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
