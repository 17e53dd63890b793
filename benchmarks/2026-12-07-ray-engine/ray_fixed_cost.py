"""Ray's fixed costs on this machine: import, a local start with two CPUs, the first two tasks
(worker processes start and import owl-bt's bench runner), and shutdown.

    python benchmarks/2026-12-07-ray-engine/ray_fixed_cost.py
"""

from __future__ import annotations

import importlib
import logging
import os
import time


def first_task(x: int) -> int:
    importlib.import_module("owl_bt.bench.runner")  # what an episode task imports
    return x


def main() -> None:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    t0 = time.monotonic()
    ray = importlib.import_module("ray")
    t1 = time.monotonic()
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    ray.init(address="local", num_cpus=2, **quiet)
    t2 = time.monotonic()
    task = ray.remote(num_cpus=1)(first_task)
    ray.get([task.remote(i) for i in range(2)])
    t3 = time.monotonic()
    ray.shutdown()
    t4 = time.monotonic()
    print(
        f"import {t1 - t0:.2f} s, start {t2 - t1:.2f} s, first two tasks {t3 - t2:.2f} s, "
        f"shutdown {t4 - t3:.2f} s"
    )


if __name__ == "__main__":
    main()
