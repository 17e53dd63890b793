"""Berry1: the strawberry onto the light-grey region at the table's centre.

The region is fixed at the table centre; the strawberry's position and yaw are drawn from the seed,
on the table, clear of the region and within the arm's comfortable reach.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from sim import catalog
from sim.tasks import Task, Verdict
from sim.world import SimWorld

INSTRUCTION = "put the strawberry onto the light-grey region at the center of the table"


def build(world: SimWorld, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cx, cy = catalog.TABLE_CENTRE
    reg = catalog.make("light_grey_region")
    world.add(reg, Pose(cx, cy, catalog.TABLE_TOP_Z + 0.001))
    berry = catalog.make("strawberry")
    half_height = berry.size()[2] / 2
    while True:
        x, y = rng.uniform(0.38, 0.72), rng.uniform(-0.3, 0.3)
        if abs(x - cx) > 0.13 or abs(y - cy) > 0.13:
            break
    z = catalog.TABLE_TOP_Z + half_height + 0.001
    world.add(berry, Pose(x, y, z, 0.0, 0.0, rng.uniform(-math.pi, math.pi)))
    world.settle(0.5)


def on_region(world: SimWorld, obj: str, reg: str) -> Verdict:
    """obj rests on reg: its centre lies over reg's footprint, it touches reg, and nothing holds it."""
    states = world.object_states()
    o, r = states[obj], states[reg]
    (rlo, rhi) = r.aabb()
    x, y, z = o.pose.position
    if not (rlo[0] <= x <= rhi[0] and rlo[1] <= y <= rhi[1]):
        return Verdict(False, f"{obj} at ({x:.3f}, {y:.3f}) is not over {reg}")
    if not world.contacts(obj, reg):
        return Verdict(False, f"{obj} is over {reg} but does not rest on it (z={z:.3f})")
    if p.getContactPoints(world.body_id(obj), world.robot.body, physicsClientId=world.cid):
        return Verdict(False, f"{obj} is still touching the gripper")
    return Verdict(True, f"{obj} rests on {reg} at ({x:.3f}, {y:.3f})")


def detect(world: SimWorld) -> Verdict:
    return on_region(world, "strawberry", "light_grey_region")


ORACLE_SKETCH = """\
The strawberry lies on the table away from the light-grey region; nothing is on the region.

Plan:
pick(strawberry); grasp the strawberry
place_ontop(strawberry, light_grey_region); set the strawberry down inside the light-grey region
achieve_goal(strawberry, light_grey_region); the strawberry rests on the light-grey region
"""

ORACLE_CHECKERS = """\
```python
def goal_check0():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "strawberry", "light_grey_region")
    return position_within_bounds(get_obj_center(state, env, "strawberry"), b)

def action_check1():
    return goal_check0()
```
"""

TASK = Task(
    name="berry1",
    instruction=INSTRUCTION,
    build=build,
    detect=detect,
    optimal_length=2,
    oracle_sketch=ORACLE_SKETCH,
    oracle_checkers=ORACLE_CHECKERS,
)
