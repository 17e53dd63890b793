"""Fixtures of the bench tests: one real local Ray per test module (Ray takes seconds to start)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def local_ray() -> Iterator[object]:
    """A private local Ray with two CPUs (`ray.init(address="local", num_cpus=2)`), shut down after
    the module; the Ray engine uses an initialised Ray as it is."""
    import ray

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    try:
        yield ray
    finally:
        ray.shutdown()
