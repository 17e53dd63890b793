"""Contents seen over a container's rim: a golf ball in a mug, soup in its can.

Without labels, a thing lying in an upright container is seen only as the few points of its top
that show over the rim, too few to make an object of their own (or joined to the container's
cluster). After the container's shape is fitted, the scene's points that lie in its opening
(within its inner radius of its axis, above its floor, below its rim) and away from its fitted
surface (a wall or the floor) are what it holds. They are named against the catalogue
(`LabelFreeDetector.name_content`: colour, the instruction's words, and only kinds that go
through the opening) and the thing is set on the container's floor at its catalogue size, since
its lower part is hidden. Points near another object's (a fork standing in the mug) belong to
that object, not to new contents.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from owl_bt.state import ObjectState, Pose
from perception.containers import opening
from perception.shape_library import ShapeLibrary

MIN_POINTS = 6  # points in a container's opening that make contents
OFF_SURFACE = 0.007  # m: a point this far from the fitted container's surface is not the container
OVER_FLOOR = 0.006  # m: ... and this far over its inside floor
WALL_MARGIN = 0.004  # m: ... and this far inside its inner wall
OTHERS = 0.015  # m: points this near another object's are that object's
SEEN_IN_PART = "seen in part over the rim: catalogue size, set on the floor"


@dataclass(frozen=True)
class Content:
    """What a container holds: `container` its name; `points` (N×3 world, m) and `colours` (N×3
    rgb in [0, 1]) of its part the camera sees; `radius`/`depth` of the container's inside (m)."""

    container: str
    points: np.ndarray
    colours: np.ndarray
    radius: float
    depth: float
    floor: float
    axis: tuple[float, float]


def find_contents(
    containers: dict[str, tuple[ObjectState, np.ndarray]],
    points: np.ndarray,
    colours: np.ndarray,
    others: np.ndarray,
    shapes: ShapeLibrary,
) -> list[Content]:
    """Contents of each upright container. containers: name → (its fitted state, its fitted
    surface M×6: points then outward normals, world m); points, colours: the scene's points above
    the table (N×3 world m, N×3 rgb in [0, 1]) that no other object claimed; others: K×3 points of
    every other object (m)."""
    from scipy.spatial import cKDTree

    out = []
    near_other = cKDTree(others) if len(others) else None
    pts, cols = points, colours
    for name, (state, surface) in containers.items():
        inside = opening(state, shapes)
        if inside is None or len(pts) < MIN_POINTS or not len(surface):
            continue
        x, y, radius, floor, rim = inside
        axis_d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
        held = (
            (axis_d < radius - WALL_MARGIN)
            & (pts[:, 2] > floor + OVER_FLOOR)
            & (pts[:, 2] < rim + 0.005)
        )
        if held.sum() < MIN_POINTS:
            continue
        _, j = cKDTree(surface[:, :3]).query(pts[held], k=1)
        off = np.abs(np.sum((pts[held] - surface[j, :3]) * surface[j, 3:], axis=1))
        keep = np.flatnonzero(held)[off > OFF_SURFACE]
        if near_other is not None and len(keep):
            dist, _ = near_other.query(pts[keep], k=1, distance_upper_bound=OTHERS)
            keep = keep[~np.isfinite(dist)]
        if len(keep) < MIN_POINTS:
            continue
        out.append(Content(name, pts[keep], cols[keep], radius, rim - floor, floor, (x, y)))
    return out


def content_state(
    content: Content,
    name: str,
    kind: str,
    shapes: ShapeLibrary,
    colour: np.ndarray,
    colour_word: Callable[[np.ndarray], str],
) -> ObjectState:
    """The state of `content` named `name` of `kind` ('' for no catalogue kind): its catalogue size
    (else a box around the points seen, down to the floor), upright, its centre over the middle
    of the part seen (kept within the opening), resting on the container's floor."""
    model = shapes.get(kind) if kind else None
    pts = content.points
    if model is not None:
        size = tuple(float(v) for v in model.size)
        info = model.info
    else:
        extent = pts[:, :2].max(axis=0) - pts[:, :2].min(axis=0)
        top = float(np.percentile(pts[:, 2], 98))
        size = (float(extent[0]), float(extent[1]), max(top - content.floor, 0.005))
        info = {}
    centre = pts[:, :2].mean(axis=0)
    ax = np.asarray(content.axis)
    room = max(content.radius - max(size[0], size[1]) / 2, 0.0)
    off = centre - ax
    if np.linalg.norm(off) > room:
        centre = ax + off * (room / max(float(np.linalg.norm(off)), 1e-9))
    return ObjectState(
        name=name,
        category=info.get("category") or kind or "object",
        pose=Pose(float(centre[0]), float(centre[1]), content.floor + size[2] / 2),
        size=size,
        shape=info.get("shape", "box") if model is not None else "box",
        rgba=(*(float(v) for v in colour), 1.0),
        mass=float(info.get("mass") or 0.1),
        friction=float(info.get("friction") or 0.8),
        colour=colour_word(colour),
        kind=kind,
    )


def lowest_point(state: ObjectState) -> tuple[float, float, float]:
    """Where an upright state's lowest point is: under its centre (world, m)."""
    p = state.pose
    return (p.x, p.y, p.z - state.size[2] / 2)
