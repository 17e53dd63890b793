"""Berry2: as Berry1, but the potted meat can stands on the light-grey region.

Fixed: the region at the table's centre (10 × 10 cm here, so that the 10 × 6 cm can covers it and
the strawberry cannot be set down beside the can) and the can on it. Seeded: the strawberry's spot
and yaw, clear of both. The detector is Berry1's: the strawberry rests on the region.
"""

from __future__ import annotations

from sim import catalog
from sim.tasks import Task, Verdict
from sim.tasks.berry1 import INSTRUCTION, on_region
from sim.tasks.common import new_layout, put
from sim.world import SimWorld

REGION_SIZE = (0.10, 0.10)  # m


def build(world: SimWorld, seed: int) -> None:
    layout = new_layout(seed)
    cx, cy = catalog.TABLE_CENTRE
    put(world, layout, "light_grey_region", at=(cx, cy), size=REGION_SIZE)
    put(world, layout, "potted_meat_can", at=(cx, cy), support_z=0.002)
    put(world, layout, "strawberry")
    world.settle(0.5)


def detect(world: SimWorld) -> Verdict:
    return on_region(world, "strawberry", "light_grey_region")


ORACLE_SKETCH = """\
The strawberry lies on the table. The potted meat can stands on the light-grey region and covers
it, so the can is an obstacle: it has to be moved off the region before the strawberry fits there.

Plan:
pick(potted_meat_can); grasp the meat can standing on the region
place_ontop(potted_meat_can, table); set the can upright on the table well away from the light-grey region
pick(strawberry); grasp the strawberry
place_ontop(strawberry, light_grey_region); set the strawberry down on the now free light-grey region
achieve_goal(strawberry, light_grey_region); the strawberry rests on the light-grey region
"""

ORACLE_CHECKERS = """\
```python
def goal_check0():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "strawberry", "light_grey_region")
    return position_within_bounds(get_obj_center(state, env, "strawberry"), b)

def action_check1():
    lo, hi = get_aabb_bounds(state, env, "potted_meat_can")
    rlo, rhi = get_aabb_bounds(state, env, "light_grey_region")
    clear = hi[0] + 0.03 < rlo[0] or lo[0] - 0.03 > rhi[0] or hi[1] + 0.03 < rlo[1] or lo[1] - 0.03 > rhi[1]
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "potted_meat_can", "table")
    return clear and position_within_bounds(get_obj_center(state, env, "potted_meat_can"), b)

def action_check3():
    return goal_check0()
```
"""

TASK = Task(
    name="berry2",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=4,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
