"""The `owl-bt` command line: run a goal in simulation, list the tasks and skills, run the benchmarks,
check the installation. One module per command (group): `run`, `bench` (bench, perception-bench),
`info` (tasks, skills, doctor); `base` holds the typer app and the consoles.

Exit codes: 0 success, 1 the robot could not do it, 2 usage error. Errors are one line on stderr.
"""

from __future__ import annotations

import importlib

from owl_bt.cli.base import app, err, out

for _module in ("run", "info", "bench"):  # each registers its commands on the app; --help lists them in this order
    importlib.import_module(f"owl_bt.cli.{_module}")

__all__ = ["app", "err", "main", "out"]


def main() -> None:
    """The console script `owl-bt`."""
    from sim.quiet import quiet

    with quiet():  # pybullet announces its build time from C on first import
        import pybullet  # noqa: F401
    app()
