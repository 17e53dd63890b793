"""Procedural object models: each object is built from pybullet primitive shapes.

An `ObjectSpec` says what an object is (name, category, colour, mass, friction) and what it is
made of (one primitive, or a compound of several). `spawn` creates it in a pybullet client. The
same specs build the simulator and, through `spec_from_state`, the planning model.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pybullet as p

from owl_bt.state import ObjectState, Pose, rotation_matrix
from sim.bullet import to_bullet


@dataclass(frozen=True)
class Part:
    """One primitive of a body: kind 'box' (dims = full x, y, z), 'sphere' (radius,),
    'cylinder' (radius, length along z); offset (x, y, z) metres and rpy (roll, pitch, yaw) radians
    of the part in the body frame."""

    kind: str
    dims: tuple[float, ...]
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rgba: tuple[float, float, float, float] | None = None
    rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class ObjectSpec:
    """What to build: name, category, parts, colour (rgba in [0, 1] and a word), mass kg, friction.

    region=True makes a thin flat pad that is part of the table (fixed, zero mass); extra["dynamics"]:
    further pybullet `changeDynamics` settings (restitution, damping, rolling friction); kind: the
    catalogue entry that built it (the planning model rebuilds the same geometry from it).
    """

    name: str
    category: str
    parts: tuple[Part, ...]
    rgba: tuple[float, float, float, float]
    colour: str = ""
    mass: float = 0.1
    friction: float = 0.9
    region: bool = False
    fixed: bool = False
    kind: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def shape(self) -> str:
        if self.region:
            return "region"
        return self.parts[0].kind  # a compound is described by its main (first) part

    def bounds(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(lower, upper) corners of the parts' box in the parts' own frame, metres."""
        lo = [float("inf")] * 3
        hi = [float("-inf")] * 3
        for part in self.parts:
            half = _rotated_half_extents(part)
            for i in range(3):
                lo[i] = min(lo[i], part.offset[i] - half[i])
                hi[i] = max(hi[i], part.offset[i] + half[i])
        return tuple(lo), tuple(hi)

    def size(self) -> tuple[float, float, float]:
        """Full extents (dx, dy, dz) of the parts' bounding box, metres."""
        lo, hi = self.bounds()
        return (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])

    def to_state(self, pose: Pose) -> ObjectState:
        return ObjectState(
            name=self.name,
            category=self.category,
            pose=pose,
            size=self.size(),
            shape=self.shape,
            rgba=self.rgba,
            mass=self.mass,
            friction=self.friction,
            fixed=self.region or self.fixed,
            colour=self.colour,
            kind=self.kind,
        )


def _rotated_half_extents(part: Part) -> tuple[float, float, float]:
    half = _half_extents(part)
    if part.rpy == (0.0, 0.0, 0.0):
        return half
    rot = rotation_matrix(*part.rpy)
    return tuple(sum(abs(rot[i][j]) * half[j] for j in range(3)) for i in range(3))


def _half_extents(part: Part) -> tuple[float, float, float]:
    if part.kind == "box":
        return (part.dims[0] / 2, part.dims[1] / 2, part.dims[2] / 2)
    if part.kind == "sphere":
        return (part.dims[0],) * 3
    if part.kind == "cylinder":
        return (part.dims[0], part.dims[0], part.dims[1] / 2)
    raise ValueError(f"unknown part kind {part.kind!r}")


def spec_from_state(obj: ObjectState) -> ObjectSpec:
    """A one-part spec that fills the object's box: how the planning model sees perceived objects."""
    if obj.shape == "sphere":
        part = Part("sphere", (max(obj.size) / 2,))
    elif obj.shape == "cylinder":
        part = Part("cylinder", (max(obj.size[0], obj.size[1]) / 2, obj.size[2]))
    else:
        part = Part("box", obj.size)
    return ObjectSpec(
        name=obj.name,
        category=obj.category,
        parts=(part,),
        rgba=obj.rgba,
        colour=obj.colour,
        mass=obj.mass,
        friction=obj.friction,
        region=obj.shape == "region",
        fixed=obj.fixed,
    )


def spawn(cid: int, spec: ObjectSpec, pose: Pose) -> int:
    """Create the body in client `cid` at `pose` (body frame = centre of its parts' box); returns its id."""
    shapes, visuals, offsets = [], [], []
    lo, hi = spec.bounds()
    centre = [(a + b) / 2 for a, b in zip(lo, hi, strict=True)]  # the body frame is the box centre
    for part in spec.parts:
        rgba = part.rgba or spec.rgba
        orn = p.getQuaternionFromEuler(part.rpy)
        col = {"collisionFrameOrientation": orn, "physicsClientId": cid}
        vis = {"visualFrameOrientation": orn, "rgbaColor": rgba, "physicsClientId": cid}
        if part.kind == "box":
            half = [d / 2 for d in part.dims]
            shapes.append(p.createCollisionShape(p.GEOM_BOX, halfExtents=half, **col))
            visuals.append(p.createVisualShape(p.GEOM_BOX, halfExtents=half, **vis))
        elif part.kind == "sphere":
            r = part.dims[0]
            shapes.append(p.createCollisionShape(p.GEOM_SPHERE, radius=r, **col))
            visuals.append(p.createVisualShape(p.GEOM_SPHERE, radius=r, **vis))
        elif part.kind == "cylinder":
            r, h = part.dims
            shapes.append(p.createCollisionShape(p.GEOM_CYLINDER, radius=r, height=h, **col))
            visuals.append(p.createVisualShape(p.GEOM_CYLINDER, radius=r, length=h, **vis))
        else:
            raise ValueError(f"unknown part kind {part.kind!r} in {spec.name}")
        offsets.append(tuple(o - c for o, c in zip(part.offset, centre, strict=True)))
    pos, quat = to_bullet(pose)
    mass = 0.0 if (spec.region or spec.fixed) else spec.mass
    if len(shapes) == 1:
        body = p.createMultiBody(mass, shapes[0], visuals[0], pos, quat, physicsClientId=cid)
    else:
        # Compound: a massless-ish root carrying each part as a fixed link.
        n = len(shapes)
        body = p.createMultiBody(
            baseMass=mass / (n + 1) if mass else 0.0,
            baseCollisionShapeIndex=-1,
            baseVisualShapeIndex=-1,
            basePosition=pos,
            baseOrientation=quat,
            linkMasses=[mass / (n + 1) if mass else 0.0] * n,
            linkCollisionShapeIndices=shapes,
            linkVisualShapeIndices=visuals,
            linkPositions=offsets,
            linkOrientations=[(0, 0, 0, 1)] * n,
            linkInertialFramePositions=[(0, 0, 0)] * n,
            linkInertialFrameOrientations=[(0, 0, 0, 1)] * n,
            linkParentIndices=[0] * n,
            linkJointTypes=[p.JOINT_FIXED] * n,
            linkJointAxis=[(0, 0, 1)] * n,
            physicsClientId=cid,
        )
    dynamics = {
        "rollingFriction": 0.005,
        "spinningFriction": 0.005,
        **spec.extra.get("dynamics", {}),
    }
    for link in range(-1, p.getNumJoints(body, physicsClientId=cid)):
        p.changeDynamics(body, link, lateralFriction=spec.friction, physicsClientId=cid, **dynamics)
    return body


def part_points(part: Part) -> list[tuple[float, float, float]]:
    """Points bounding a part, in the parts frame: box corners, or a sphere's six extreme points,
    or eight points round each end of a cylinder."""
    if part.kind == "sphere":
        r = part.dims[0]
        local = [
            (s * r * (i == 0), s * r * (i == 1), s * r * (i == 2))
            for i in range(3)
            for s in (-1, 1)
        ]
    elif part.kind == "cylinder":
        r, h = part.dims
        local = [
            (r * math.cos(a), r * math.sin(a), z)
            for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
            for z in (-h / 2, h / 2)
        ]
    else:
        local = list(itertools.product(*[(-d / 2, d / 2) for d in part.dims]))
    rot = rotation_matrix(*part.rpy)
    return [
        tuple(part.offset[i] + sum(rot[i][j] * v[j] for j in range(3)) for i in range(3))
        for v in local
    ]
