"""pybullet worlds: robots, object models, cameras, the benchmark tasks and their detectors."""

from sim.quiet import quiet

with quiet():  # pybullet prints its build time from C on first import
    import pybullet  # noqa: F401
