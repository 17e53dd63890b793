"""Shape priors: the surface of each known object kind, sampled as points with outward normals.

A detector names an object's *kind* (as a real detector gives a class label); the geometry is then
estimated by fitting that kind's shape to the object's points (`perception.fit`). The shapes come
from an object catalogue handed in by the caller — in simulation `sim.catalog.make`, on hardware any
function returning the same spec-like description — so this package does not import the simulator.

A spec-like object has `parts` (each with `kind` 'box' | 'sphere' | 'cylinder', `dims`, `offset`,
`rpy`), `bounds()` → (lower xyz, upper xyz) of the parts in the parts frame, and the descriptive
fields `category`, `colour`, `rgba`, `mass`, `friction`, `region`, `fixed`, `shape`. Body frame =
the centre of the parts' box (the same convention as `owl_bt.state.ObjectState.pose`); metres.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # open3d (0.6 s to import) is imported where it is used
    import open3d as o3d

SAMPLES = 2500  # surface points per model


@dataclass(frozen=True)
class ShapeModel:
    """A kind's surface in its body frame: points (N×3, m) and outward unit normals (N×3);
    size: full extents (dx, dy, dz) of its box, m; info: the spec's descriptive fields."""

    kind: str
    points: np.ndarray
    normals: np.ndarray
    size: tuple[float, float, float]
    info: dict


def _euler_matrix(rpy: tuple[float, float, float]) -> np.ndarray:
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _part_mesh(part) -> o3d.geometry.TriangleMesh:
    """An open3d mesh of one primitive, placed at its offset and rpy in the parts frame."""
    import open3d as o3d

    if part.kind == "box":
        dx, dy, dz = part.dims
        mesh = o3d.geometry.TriangleMesh.create_box(dx, dy, dz).translate(
            (-dx / 2, -dy / 2, -dz / 2)
        )
    elif part.kind == "sphere":
        mesh = o3d.geometry.TriangleMesh.create_sphere(part.dims[0], resolution=16)
    elif part.kind == "cylinder":
        mesh = o3d.geometry.TriangleMesh.create_cylinder(
            part.dims[0], part.dims[1], resolution=24, split=1
        )
    else:
        raise ValueError(f"unknown part kind {part.kind!r}")
    mesh.rotate(_euler_matrix(tuple(part.rpy)), center=(0.0, 0.0, 0.0))
    return mesh.translate(tuple(part.offset))


def _inside_part(pts: np.ndarray, part, margin: float = 1e-4) -> np.ndarray:
    """Which points (parts frame) lie strictly inside the primitive `part`."""
    local = (pts - np.asarray(part.offset)) @ _euler_matrix(tuple(part.rpy))
    if part.kind == "box":
        return np.all(np.abs(local) < np.asarray(part.dims) / 2 - margin, axis=1)
    if part.kind == "sphere":
        return np.linalg.norm(local, axis=1) < part.dims[0] - margin
    r, h = part.dims
    return (np.hypot(local[:, 0], local[:, 1]) < r - margin) & (
        np.abs(local[:, 2]) < h / 2 - margin
    )


def surface_model(spec, kind: str, samples: int = SAMPLES, seed: int = 0) -> ShapeModel:
    """Sample the outer surface of `spec`'s parts (points hidden inside another part are dropped)."""
    import open3d as o3d

    lo, hi = (np.asarray(b, dtype=float) for b in spec.bounds())
    centre = (lo + hi) / 2
    pts_all, nrm_all = [], []
    areas = []
    meshes = [_part_mesh(part) for part in spec.parts]
    for mesh in meshes:
        areas.append(max(mesh.get_surface_area(), 1e-9))
    total = sum(areas)
    o3d.utility.random.seed(seed)
    for i, mesh in enumerate(meshes):
        n = max(20, int(round(samples * areas[i] / total)))
        mesh.compute_triangle_normals()
        pc = mesh.sample_points_uniformly(number_of_points=n, use_triangle_normal=True)
        pts, nrm = np.asarray(pc.points), np.asarray(pc.normals)
        hidden = np.zeros(len(pts), dtype=bool)
        for j, other in enumerate(spec.parts):
            if j != i:
                hidden |= _inside_part(pts, other)
        pts_all.append(pts[~hidden])
        nrm_all.append(nrm[~hidden])
    points = np.concatenate(pts_all) - centre
    normals = np.concatenate(nrm_all)
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    info = {
        k: getattr(spec, k, None)
        for k in ("category", "colour", "rgba", "mass", "friction", "region", "fixed")
    }
    info["shape"] = getattr(spec, "shape", "box")
    # a container: its inside floor's height above its bottom, its inner radius and its axis (body frame), m
    cavity = (getattr(spec, "extra", None) or {}).get("cavity")
    info["floor"] = float(cavity["bottom"] - lo[2]) if cavity else None
    info["cavity"] = (
        (
            float(cavity["centre"][0] - centre[0]),
            float(cavity["centre"][1] - centre[1]),
            float(cavity["radius"]),
        )
        if cavity
        else None
    )
    return ShapeModel(kind, points, normals, tuple(float(v) for v in hi - lo), info)
