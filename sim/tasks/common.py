"""Shared pieces of the benchmark tasks: placing catalogue objects, and ground-truth tests that
detectors build on (rests on, inside, upright, near, held).

Detectors read the simulator's ground truth only: body poses, the catalogue geometry of each body
(`spec.parts`, the container's `extra["cavity"]`) and pybullet contact points. World frame: x away
from the robot, y to its left, z up, metres; the table top is z = 0.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from sim import catalog
from sim.catalog.layout import Box2, Layout, resting_pose
from sim.objects import ObjectSpec, part_points
from sim.tasks import Verdict
from sim.world import SimWorld

UPRIGHT_TOL = math.radians(15.0)  # a container counts as upright within this of vertical


# -- building -------------------------------------------------------------------------------
def put(
    world: SimWorld,
    layout: Layout,
    kind: str,
    name: str | None = None,
    *,
    at: tuple[float, float] | None = None,
    yaw: float | None = None,
    roll: float = 0.0,
    pitch: float = 0.0,
    area: Box2 | None = None,
    support_z: float = catalog.TABLE_TOP_Z,
    colour: str | None = None,
    **kwargs: object,
) -> ObjectSpec:
    """Add a catalogue object resting on the table (or on a surface at `support_z`, m): at (x, y) `at`
    when given (recorded in `layout` unchecked), else on a seeded free spot in `area` (default: the
    arm's reach). `yaw` None: drawn from the layout's generator when sampling, 0 when fixed."""
    spec = catalog.make(kind, name, colour=colour, **kwargs)
    if at is None:
        pose = layout.sample(spec, roll=roll, pitch=pitch, yaw=yaw, area=area)
        if support_z != catalog.TABLE_TOP_Z:
            pose = resting_pose(spec, pose.x, pose.y, roll, pitch, pose.yaw, support_z)
    else:
        pose = resting_pose(spec, at[0], at[1], roll, pitch, yaw or 0.0, support_z)
        layout.occupy(spec.name, spec, pose)
    world.add(spec, pose)
    return spec


def new_layout(seed: int) -> Layout:
    return Layout(np.random.default_rng(seed))


def notes(world: SimWorld) -> dict:
    """Per-episode scratch space for detectors that watch the run (reset by every build)."""
    if not isinstance(getattr(world, "task_notes", None), dict):
        world.task_notes = {}
    return world.task_notes


# -- geometry of a body ---------------------------------------------------------------------
def _frame(world: SimWorld, name: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(position, quaternion) of the object's *parts* frame in the world (the body frame is the
    parts' box centre)."""
    spec = world.bodies[name].spec
    lo, hi = spec.bounds()
    centre = tuple(-(a + b) / 2 for a, b in zip(lo, hi, strict=True))
    pos, quat = p.getBasePositionAndOrientation(world.body_id(name), physicsClientId=world.cid)
    return p.multiplyTransforms(pos, quat, centre, (0, 0, 0, 1))


def to_parts_frame(
    world: SimWorld, name: str, point: tuple[float, float, float]
) -> tuple[float, ...]:
    """A world point in the object's parts frame (m)."""
    pos, quat = _frame(world, name)
    inv = p.invertTransform(pos, quat)
    return p.multiplyTransforms(*inv, point, (0, 0, 0, 1))[0]


def to_world(world: SimWorld, name: str, point: tuple[float, float, float]) -> tuple[float, ...]:
    """A point given in the object's parts frame, in the world frame (m)."""
    return p.multiplyTransforms(*_frame(world, name), point, (0, 0, 0, 1))[0]


def lowest_point(world: SimWorld, name: str) -> tuple[float, ...]:
    """The object's lowest point in the world (from its parts' geometry at its current pose), m."""
    spec = world.bodies[name].spec
    pts = [to_world(world, name, q) for part in spec.parts for q in part_points(part)]
    return min(pts, key=lambda q: q[2])


def axis_tilt(world: SimWorld, name: str) -> float:
    """Angle (rad) between the object's own z axis and the world's up direction."""
    pose = world.pose(name)
    return math.acos(max(-1.0, min(1.0, math.cos(pose.roll) * math.cos(pose.pitch))))


def cavity_centre(world: SimWorld, name: str) -> tuple[float, ...]:
    """World position of the container's floor centre, m."""
    cav = world.bodies[name].spec.extra["cavity"]
    return to_world(world, name, (*cav["centre"], cav["bottom"]))


# -- judgements ---------------------------------------------------------------------------
def held(world: SimWorld, name: str) -> bool:
    """Is the object touching the robot (gripper or arm)?"""
    return bool(
        p.getContactPoints(world.body_id(name), world.robot.body, physicsClientId=world.cid)
    )


def is_inside(world: SimWorld, obj: str, container: str, margin: float = 0.006) -> bool:
    """The object's lowest point lies in the container's cavity: within its inner radius (+ margin,
    m) of the axis and between the floor (− 1 cm) and the rim, in the container's own frame."""
    cav = world.bodies[container].spec.extra["cavity"]
    x, y, z = to_parts_frame(world, container, lowest_point(world, obj))
    r = math.hypot(x - cav["centre"][0], y - cav["centre"][1])
    return r <= cav["radius"] + margin and cav["bottom"] - 0.01 <= z <= cav["top"]


def is_upright(world: SimWorld, name: str, tol: float = UPRIGHT_TOL) -> bool:
    """The object's z axis (a mug's opening) points up within `tol` rad."""
    return axis_tilt(world, name) <= tol


def rests_on(world: SimWorld, obj: str, support: str) -> bool:
    """obj touches support and its centre lies over support's footprint (round for a plate)."""
    states = world.object_states()
    x, y, _ = states[obj].pose.position
    return states[support].over_footprint(x, y) and world.contacts(obj, support)


def near(world: SimWorld, obj_xy: tuple[float, ...], other: str, dist: float) -> bool:
    """Is the point obj_xy (m) within `dist` m, per axis in x and y, of the other object's box?"""
    lo, hi = world.object_states()[other].aabb()
    return all(lo[i] - dist <= obj_xy[i] <= hi[i] + dist for i in range(2))


def first_failure(checks: list[tuple[bool, str]], success: str) -> Verdict:
    """Verdict(False, reason) for the first failed (ok, reason-if-not) check, else Verdict(True, success)."""
    for ok, reason in checks:
        if not ok:
            return Verdict(False, reason)
    return Verdict(True, success)


def not_held(world: SimWorld, *names: str) -> list[tuple[bool, str]]:
    return [(not held(world, n), f"{n} is still touching the gripper") for n in names]


def xy(pose: Pose) -> str:
    return f"({pose.x:.3f}, {pose.y:.3f})"
