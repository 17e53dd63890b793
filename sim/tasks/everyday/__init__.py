"""The everyday task set: tabletop requests built on the everyday catalogue and its abilities
(stacking, containers, parts of objects, orientation, "where it was", honest infeasibility), each
with a ground-truth detector and hand-written oracle answers.

`EVERYDAY` maps task names to tasks; `owl-bt bench --tasks everyday` runs them.
"""

from __future__ import annotations

from sim.tasks import Task


def _registry() -> dict[str, Task]:
    from sim.tasks.everyday import arranging, containers, impossible, stacking

    modules = (stacking, containers, arranging, impossible)
    return {t.name: t for module in modules for t in module.TASKS}


EVERYDAY: dict[str, Task] = _registry()
