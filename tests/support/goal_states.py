"""Goal states of the benchmark tasks, made on a real SimWorld by resetting objects with pybullet
(then settling under physics): `GOALS[task](world)` turns a built task scene into one its detector
accepts. Used by the detector tests and the grounder-vs-oracle comparison."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from sim import tasks
from sim.catalog.layout import REACH, Layout, footprint, resting_pose
from sim.tasks.common import cavity_centre
from sim.world import SimWorld


def reset(world: SimWorld, name: str, pose: Pose) -> None:
    pos, quat = pose.position, p.getQuaternionFromEuler(pose.euler)
    p.resetBasePositionAndOrientation(world.body_id(name), pos, quat, physicsClientId=world.cid)
    p.resetBaseVelocity(world.body_id(name), (0, 0, 0), (0, 0, 0), physicsClientId=world.cid)


def rest_at(
    world: SimWorld, name: str, x: float, y: float, support_z: float = 0.0, roll: float = 0.0
) -> None:
    """Put `name` upright (or rolled) resting at (x, y) on a surface whose top is at support_z (m)."""
    reset(world, name, resting_pose(world.bodies[name].spec, x, y, roll, 0.0, 0.0, support_z))


def free_spot(
    world: SimWorld, name: str, area=REACH, moving: tuple[str, ...] = ()
) -> tuple[float, float]:
    """A spot in `area` where `name` (upright, yaw 0) is clear of every object not in `moving`."""
    layout = Layout(np.random.default_rng(0))
    for other, body in world.bodies.items():
        if other != name and other not in moving:
            layout.taken[other] = footprint(body.spec, world.pose(other))
    pose = layout.sample(world.bodies[name].spec, yaw=0.0, area=area)
    return pose.x, pose.y


def top(world: SimWorld, name: str) -> float:
    return world.object_states()[name].aabb()[1][2]


def stand_in_mug(world: SimWorld, obj: str, lean: float, side: float = 0.0) -> None:
    """Stand `obj` (long along its x) in the mug, lower end near the wall opposite `lean` (rad, the
    direction it leans in the table plane) and `side` m off the axis across it, leaning on the rim."""
    cx, cy, floor = cavity_centre(world, "mug")
    d = (math.cos(lean), math.sin(lean))
    tilt = 0.3  # rad from vertical
    length = world.bodies[obj].spec.size()[0]
    axis = (math.sin(tilt) * d[0], math.sin(tilt) * d[1], math.cos(tilt))
    low = (cx - 0.018 * d[0] - side * d[1], cy - 0.018 * d[1] + side * d[0], floor + 0.012)
    centre = tuple(low[i] + axis[i] * length / 2 for i in range(3))
    # body x axis along `axis`: pitch up from horizontal, then yaw towards the lean
    reset(world, obj, Pose(*centre, 0.0, -(math.pi / 2 - tilt), lean))


def mug_near_mustard(world: SimWorld) -> None:
    m = world.pose("mustard_bottle")
    area = ((m.x - 0.16, m.x + 0.16), (m.y - 0.16, m.y + 0.16))
    rest_at(world, "mug", *free_spot(world, "mug", area=area, moving=("mug",)))


def goal_berry1(world: SimWorld) -> None:
    rest_at(world, "strawberry", 0.55, 0.0, support_z=0.002)


def goal_berry2(world: SimWorld) -> None:
    rest_at(world, "potted_meat_can", *free_spot(world, "potted_meat_can"))
    rest_at(world, "strawberry", 0.55, 0.0, support_z=0.002)


def goal_citrus(world: SimWorld) -> None:
    rest_at(world, "lemon", 0.55, 0.045, support_z=top(world, "plate"))
    rest_at(world, "orange", 0.55, -0.045, support_z=top(world, "plate"))


def goal_berrycook(world: SimWorld) -> None:
    x, y, z = cavity_centre(world, "skillet")
    rest_at(world, "strawberry", x, y, support_z=z)
    world.settle(0.3)
    tasks.get("berrycook").observe(world)
    x, y, z = cavity_centre(world, "bowl")
    rest_at(world, "strawberry", x, y, support_z=z)


def goal_fruitsort(world: SimWorld) -> None:
    for f in ("pear", "strawberry", "apple"):
        rest_at(world, f, *free_spot(world, f, area=(REACH[0], (0.08, REACH[1][1])), moving=(f,)))


def goal_coffee(world: SimWorld) -> None:
    pose = world.pose("mug")
    rest_at(world, "mug", pose.x, pose.y)


def goal_mug1(world: SimWorld) -> None:
    rest_at(world, "mug", *free_spot(world, "mug", moving=("mug",)))
    world.settle(0.2)
    stand_in_mug(world, "fork", 0.0)


def goal_mug2(world: SimWorld) -> None:
    rest_at(world, "orange", *free_spot(world, "orange", moving=("orange",)))
    mug_near_mustard(world)
    world.settle(0.2)
    stand_in_mug(world, "fork", 0.0, side=-0.012)
    stand_in_mug(world, "knife", 0.0, side=0.012)


def goal_mug3(world: SimWorld) -> None:
    rest_at(world, "golf_ball", *free_spot(world, "golf_ball", moving=("golf_ball",)))
    mug_near_mustard(world)
    world.settle(0.2)
    stand_in_mug(world, "fork", 0.0)


def goal_souppour(world: SimWorld) -> None:
    for can in ("tomato_soup_can", "potted_meat_can"):
        rest_at(world, can, *free_spot(world, can, moving=(can, "soup")))
    x, y, z = cavity_centre(world, "bowl")
    rest_at(world, "soup", x, y, support_z=z)
    mat = world.pose("white_mat")
    rest_at(world, "apple", mat.x, mat.y + 0.05, support_z=0.002)
    rest_at(world, "peach", mat.x, mat.y - 0.05, support_z=0.002)


GOALS = {name[5:]: fn for name, fn in globals().items() if name.startswith("goal_")}
