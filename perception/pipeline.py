"""The perception pipeline: one RGB-D frame → the table and named objects with pose, size and colour.

Steps (open3d for the cloud, RANSAC and DBSCAN): detector masks (the robot's own body removed) →
coloured point cloud cropped to the workspace → table plane → clusters above it → each detector
mask associated with the clusters its points fall in → per object: axis-aligned and oriented boxes,
centroid, yaw estimate, dominant colour, point count → the kind's shape fitted to the points for
pose and size (`perception.fit`), resting objects set onto their support. Flat markers (regions,
mats, lines) lie in the table plane: their rectangle is fitted to their pixels' points.
Problems are reported, never raised: a frame that gives no table or no objects sets `failure`; an
object cut by the image border, seen by too few points, or inside another is flagged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from owl_bt.state import ObjectState, Pose
from perception import cloud as cl
from perception.camera import RGBDFrame
from perception.cloud import PLANE_DIST
from perception.containers import rest_in_containers, stands_in
from perception.detector import (
    HIDDEN_FLAG,
    ROBOT,
    Detection,
    Detector,
    colour_name,
    dominant_colour,
    name_by_colour,
)
from perception.fit import euler, principal_yaw
from perception.primitives import min_area_rect
from perception.refit import FitMemory
from perception.shape_library import ShapeLibrary

NO_OBJECTS = "no objects found on the table"
MIN_POINTS = 25  # fewer points than this: the size is not estimated (the catalogue size is kept)
MIN_CLUSTER = 40  # an unlabelled cluster needs this many points to count as an object
REST_SNAP = 0.01  # m: an object whose lowest point is this close above/below a support rests on it
BORDER = 2  # pixels: a mask this close to the image edge is cut by it
ARM_EDGE = 8  # pixels: points this near the arm's mask are not taken for a container's contents


@dataclass
class PerceivedObject:
    """state: what the planner gets; points: cloud points used; flags: plain-language caveats;
    centroid (m) of the points; aabb ((lo), (hi)) and obb (centre, extents, R) of the points, world;
    yaw_estimate (rad) from the points' principal direction; colour (rgb in [0, 1]) measured;
    fit_rmse (m) of the shape fit (nan without one); source: the detector that named it."""

    state: ObjectState
    points: int
    flags: list[str] = field(default_factory=list)
    centroid: tuple[float, float, float] = (0.0, 0.0, 0.0)
    aabb: tuple[tuple[float, ...], tuple[float, ...]] = ((0.0,) * 3, (0.0,) * 3)
    obb: tuple = ()
    yaw_estimate: float = 0.0
    colour: tuple[float, float, float] = (0.5, 0.5, 0.5)
    fit_rmse: float = float("nan")
    source: str = "segmentation"
    lowest: float | None = None  # m: the fitted shape's lowest point (world z)
    low_point: tuple[float, float, float] | None = (
        None  # m: where that lowest point is (world x, y, z)
    )
    refitted: bool = (
        False  # fitted from its last fit, its points unmoved since (`perception.refit`)
    )
    point_ids: np.ndarray | None = None  # its points' indices into the frame's SceneCloud
    fit_pose: tuple | None = None  # (R 3×3, t (3,), scale (3,)): its shape model's fit, body→world


@dataclass
class Perception:
    """objects by name (the table included); failure: a one-line reason when the frame gave nothing
    usable (then objects may be empty); issues: per-object caveats; timings (s) per step."""

    objects: dict[str, PerceivedObject] = field(default_factory=dict)
    failure: str | None = None
    issues: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    table_z: float = 0.0
    unmeasured: list[str] = field(default_factory=list)  # labelled, but too few points to measure


class Pipeline:
    """detector: names masks; shapes: shape priors by kind; palette: colour words (rgb in [0, 1]);
    namer: optional `perception.detector.VLMCropNamer` asked to name clusters no detector labelled
    (a kind it names is fitted like a detected one; otherwise the colour fallback names it)."""

    def __init__(
        self,
        detector: Detector,
        shapes: ShapeLibrary,
        palette: dict | None = None,
        seed: int = 0,
        namer=None,
    ) -> None:
        self.detector, self.shapes, self.palette, self.namer = detector, shapes, palette, namer
        self.rng = np.random.default_rng(seed)
        self.fits = (
            FitMemory()
        )  # each object's last fit: a look at an unmoved object refines it (perception.refit)

    def prepare(self, kinds) -> None:
        """Load the shape models of `kinds` now (start-up), so that no frame pays for it."""
        for kind in kinds:
            self.shapes.fitter(kind)

    def perceive(self, frame: RGBDFrame, held: str | None = None) -> Perception:
        """`held`: the object the hand holds, if any: a long one, half hidden by the fingers, is also fitted
        from starts slid along it (`perception.fit._slid`)."""
        out = Perception()
        t0 = time.perf_counter()
        bad = _check_frame(frame)
        if bad:
            out.failure = bad
            return out
        try:
            dets = self.detector.detect(frame)
        except Exception as exc:  # a detector backend failing is a perception failure, not a crash
            out.failure = f"the detector failed: {type(exc).__name__}: {exc}"
            return out
        robot = np.zeros(frame.shape, dtype=bool)
        for d in dets:
            if d.kind == ROBOT:
                robot |= d.mask
        dets = [d for d in dets if d.kind != ROBOT]
        full = np.zeros(frame.shape, dtype=bool)
        for d in dets:
            full |= d.mask
        t1 = time.perf_counter()
        try:  # detected objects at full resolution, the rest (table, unknown things) at every other pixel
            sc = cl.build(frame, exclude=robot, full=full, stride=2)
        except cl.CloudError as exc:
            out.failure = str(exc)
            return out
        out.table_z = sc.table_z
        t2 = time.perf_counter()
        h, w = frame.shape
        pixmap = np.full(h * w, -1, dtype=np.int64)
        pixmap[sc.pixel] = np.arange(len(sc.pixel))
        claimed = np.zeros(len(sc.points), dtype=bool)
        for det in dets:
            obj = self._object(det, frame, sc, pixmap, claimed, slide=det.name == held)
            if obj is None:
                out.unmeasured.append(det.name)
                continue
            out.objects[obj.state.name] = obj
        solids = self._solids(out.objects)
        for obj in self._unlabelled(frame, sc, pixmap, claimed, set(out.objects), solids):
            out.objects[obj.state.name] = obj
        for obj in self._contents(sc, out.objects, robot):
            out.objects[obj.state.name] = obj
        t3 = time.perf_counter()
        _flag_contents(out.objects, self.shapes)
        _rest_on_supports(out.objects, sc.table_z)
        rest_in_containers(out.objects, self.shapes)
        out.objects["table"] = self._table(sc)
        if not [o for o in out.objects.values() if not o.state.fixed]:
            out.failure = NO_OBJECTS
        out.issues = [f"{n}: {f}" for n, o in out.objects.items() for f in o.flags]
        out.timings = {
            "detect": t1 - t0,
            "cloud": t2 - t1,
            "objects": t3 - t2,
            "total": time.perf_counter() - t0,
        }
        return out

    # -- one detection ---------------------------------------------------------------------------
    def _object(
        self,
        det: Detection,
        frame: RGBDFrame,
        sc: cl.SceneCloud,
        pixmap: np.ndarray,
        claimed: np.ndarray,
        slide: bool = False,
    ) -> PerceivedObject | None:
        idx = pixmap[np.flatnonzero(det.mask)]
        idx = idx[idx >= 0]
        claimed[idx] = (
            True  # whatever a detector labelled is not an unknown object, even if not used for the fit
        )
        model = self.shapes.get(det.kind) if det.kind else None
        info = model.info if model else {}
        flags = []
        if _touches_border(det.mask):
            flags.append("partly outside the image")
        occluder = _occluder(det.mask, frame)
        if occluder:
            flags.append(f"{HIDDEN_FLAG}{occluder}")
        if info.get("region"):
            sel = idx[np.abs(sc.height[idx]) <= 0.02]
            if len(sel) < 10:
                return None
            return self._marker(det, sc, sel, model, flags)
        sel = idx[sc.above[idx]]
        sel = _main_clusters(sel, sc.cluster)
        if len(sel) < 6:
            return None  # seen only as a few pixels: reported by the source as not visible
        # The object's own pixels at table height (a fork's flat head, a knife's blade) belong to it too.
        standing = sc.points[sel]
        low = idx[~sc.above[idx] & (sc.height[idx] > -PLANE_DIST)]
        if len(low):
            lo, hi = sc.points[sel, :2].min(axis=0) - 0.03, sc.points[sel, :2].max(axis=0) + 0.03
            near = np.all((sc.points[low, :2] >= lo) & (sc.points[low, :2] <= hi), axis=1)
            sel = np.concatenate([sel, low[near]])
        pts = sc.points[sel]
        rgb = dominant_colour(sc.colours[sel])
        base = _describe(pts, rgb)
        if model is None:
            state = _primitive_state(det.name, standing, sc.table_z, rgb, self.palette, det.kind)
            flags.append(f"unknown kind: a {state.shape} fitted to its points")
            return PerceivedObject(state, len(sel), flags, source=det.source, **base)
        fitter = self.shapes.fitter(det.kind)
        few = len(sel) < MIN_POINTS
        if few:
            flags.append(f"seen by only {len(sel)} points: catalogue size kept")
        fit, refitted = self.fits.fit(
            det.name,
            det.kind,
            fitter,
            pts,
            frame,
            not few,
            may_refit=not slide,
            full=lambda: fitter.fit(
                pts,
                frame,
                sc.table_z,
                self.rng,
                yaw0=base["yaw_estimate"],
                with_scale=not few,
                slide=slide,
            ),
        )
        size = tuple(float(v) for v in np.asarray(model.size) * fit.scale)
        pose = Pose(*(float(v) for v in fit.t), *euler(fit.R))
        state = ObjectState(
            name=det.name,
            category=info.get("category") or det.kind,
            pose=pose,
            size=size,
            shape=info.get("shape", "box"),
            rgba=(*(float(v) for v in rgb), 1.0),
            mass=float(info.get("mass") or 0.1),
            friction=float(info.get("friction") or 0.8),
            fixed=bool(info.get("fixed")),
            colour=colour_name(rgb, self.palette),
            kind=det.kind,
        )
        world = (model.points * fit.scale) @ fit.R.T + fit.t
        low = tuple(float(v) for v in world[int(np.argmin(world[:, 2]))])
        return PerceivedObject(
            state,
            len(sel),
            flags,
            fit_rmse=fit.rmse,
            source=det.source,
            lowest=low[2],
            low_point=low,
            refitted=refitted,
            point_ids=sel,
            fit_pose=(fit.R, fit.t, fit.scale),
            **base,
        )

    def _marker(
        self, det: Detection, sc: cl.SceneCloud, sel: np.ndarray, model, flags: list[str]
    ) -> PerceivedObject:
        pts = sc.points[sel]
        rgb = dominant_colour(sc.colours[sel])
        (cx, cy), (lx, ly), yaw = min_area_rect(pts[:, :2])
        thick = model.size[2]
        info = model.info
        state = ObjectState(
            name=det.name,
            category=info.get("category") or det.kind,
            pose=Pose(cx, cy, sc.table_z + thick / 2, 0.0, 0.0, yaw),
            size=(lx, ly, thick),
            shape="region",
            rgba=(*(float(v) for v in rgb), 1.0),
            mass=0.0,
            friction=float(info.get("friction") or 0.9),
            fixed=True,
            colour=colour_name(rgb, self.palette),
            kind=det.kind,
        )
        return PerceivedObject(state, len(sel), flags, source=det.source, **_describe(pts, rgb))

    def _unlabelled(
        self,
        frame: RGBDFrame,
        sc: cl.SceneCloud,
        pixmap: np.ndarray,
        claimed: np.ndarray,
        taken: set[str],
        solids: list[ObjectState] = (),
    ) -> list[PerceivedObject]:
        """Objects for clusters no detection claimed: named by the crop namer when there is one and it
        names a known kind, else by colour and size (the fallback). A cluster lying within a
        solid object's box (`solids`: fitted kinds with no inside) is a piece of that object its
        mask missed (a drill's far side), not a thing of its own."""
        out = []
        free = sc.above & ~claimed & (sc.cluster >= 0)
        for label in np.unique(sc.cluster[free]):
            sel = np.flatnonzero(free & (sc.cluster == label))
            if len(sel) < MIN_CLUSTER:
                continue
            pts = sc.points[sel]
            if any(_within(pts, solid) for solid in solids):
                continue
            if np.percentile(sc.height[sel], 95) < 0.015:
                continue  # a low blob of noise over the table, not a thing
            if self.namer is not None:
                mask = np.zeros(frame.shape[0] * frame.shape[1], dtype=bool)
                mask[sc.pixel[sel]] = True
                mask = mask.reshape(frame.shape)
                kind = self.namer.name(frame.rgb, mask)
                if kind and self.shapes.get(kind) is not None:
                    name, k = kind, 2
                    while name in taken:
                        name, k = f"{kind}_{k}", k + 1
                    obj = self._object(
                        Detection(name, kind, mask, "vlm"),
                        frame,
                        sc,
                        pixmap,
                        np.zeros_like(claimed),
                    )
                    if obj is not None:
                        taken.add(name)
                        out.append(obj)
                        continue
            rgb = dominant_colour(sc.colours[sel])
            extent = float(np.max(pts.max(axis=0) - pts.min(axis=0)))
            name = name_by_colour(rgb, extent, taken)
            taken.add(name)
            state = _primitive_state(name, pts, sc.table_z, rgb, self.palette, "")
            out.append(
                PerceivedObject(
                    state,
                    len(sel),
                    [f"unlabelled: named by colour and size, a {state.shape} fitted to its points"],
                    source="colour",
                    **_describe(pts, rgb),
                )
            )
        return out

    def _solids(self, objects: dict[str, PerceivedObject]) -> list[ObjectState]:
        """States of the fitted catalogue objects that have no inside (not containers, not
        markers): nothing else can be within their boxes."""
        out = []
        for obj in objects.values():
            model = self.shapes.get(obj.state.kind) if obj.state.kind else None
            if model is None or obj.fit_pose is None or obj.state.shape == "region":
                continue
            if not model.info.get("cavity"):
                out.append(obj.state)
        return out

    def _contents(
        self, sc: cl.SceneCloud, objects: dict[str, PerceivedObject], robot: np.ndarray
    ) -> list[PerceivedObject]:
        """Things seen in part inside an upright container (`perception.contents`), from points
        no object claimed and not at the edge of the arm (`robot`: H×W mask; a finger's rim left
        unmasked is no contents); only with a detector that names them (`name_content`:
        label-free)."""
        from perception.contents import SEEN_IN_PART, content_state, find_contents

        name_content = getattr(self.detector, "name_content", None)
        if name_content is None:
            return []
        containers, other_ids = {}, []
        for name, obj in objects.items():
            model = self.shapes.get(obj.state.kind) if obj.state.kind else None
            if obj.point_ids is None:
                continue
            if model is None or obj.fit_pose is None or not model.info.get("cavity"):
                other_ids.append(obj.point_ids)
                continue
            rot, t, scale = obj.fit_pose
            surface = np.hstack([(model.points * scale) @ rot.T + t, model.normals @ rot.T])
            containers[name] = (obj.state, surface)
        if not containers:
            return []
        free = sc.above.copy()
        for ids in other_ids:
            free[ids] = False
        if robot.any():
            from scipy.ndimage import binary_dilation

            near_arm = binary_dilation(robot, iterations=ARM_EDGE).ravel()
            free &= ~near_arm[sc.pixel]
        others = sc.points[np.concatenate(other_ids)] if other_ids else np.zeros((0, 3))
        points, colours = sc.points[free], sc.colours[free]
        out = []
        taken = set(objects)
        for content in find_contents(containers, points, colours, others, self.shapes):
            pts = content.points
            spread = pts[:, :2].max(axis=0) - pts[:, :2].min(axis=0)
            high = float(np.percentile(pts[:, 2], 98)) - content.floor
            seen = tuple(sorted((float(spread[0]), float(spread[1]), max(high, 0.002)))[::-1])
            name, kind = name_content(content.colours, seen, 2 * content.radius, taken)
            taken.add(name)
            rgb = dominant_colour(content.colours)
            state = content_state(
                content, name, kind, self.shapes, rgb, lambda c: colour_name(c, self.palette)
            )
            flags = [SEEN_IN_PART] if kind else ["unlabelled: named by colour and size"]
            low = (state.pose.x, state.pose.y, content.floor)
            out.append(
                PerceivedObject(
                    state,
                    len(pts),
                    flags,
                    source="catalogue match" if kind else "colour",
                    lowest=content.floor,
                    low_point=low,
                    **_describe(pts, rgb),
                )
            )
        return out

    def _table(self, sc: cl.SceneCloud) -> PerceivedObject:
        pts = sc.points[sc.on_plane]
        lo, hi = np.percentile(pts[:, :2], 0.5, axis=0), np.percentile(pts[:, :2], 99.5, axis=0)
        model = self.shapes.get("table")
        thick = model.size[2] if model else 0.05
        rgb = dominant_colour(sc.colours[sc.on_plane])
        c = (lo + hi) / 2
        state = ObjectState(
            name="table",
            category="table",
            pose=Pose(float(c[0]), float(c[1]), sc.table_z - thick / 2),
            size=(float(hi[0] - lo[0]), float(hi[1] - lo[1]), thick),
            shape="box",
            rgba=(*(float(v) for v in rgb), 1.0),
            mass=0.0,
            friction=0.8,
            fixed=True,
            colour=colour_name(rgb, self.palette),
            kind="table" if model else "",
        )
        return PerceivedObject(
            state, int(sc.on_plane.sum()), source="plane", **_describe(pts[:2000], rgb)
        )


# -- helpers -----------------------------------------------------------------------------------------
def _check_frame(frame: RGBDFrame) -> str | None:
    d = np.asarray(frame.depth)
    if d.ndim != 2 or frame.rgb.shape[:2] != d.shape:
        return f"the RGB ({frame.rgb.shape[:2]}) and depth ({d.shape}) images do not match"
    ok = np.isfinite(d) & (d > 0)
    if not ok.any():
        return "the depth image has no readings (all zeros or NaN)"
    return None


def _touches_border(mask: np.ndarray) -> bool:
    return bool(
        mask[:BORDER].any()
        or mask[-BORDER:].any()
        or mask[:, :BORDER].any()
        or mask[:, -BORDER:].any()
    )


def _occluder(mask: np.ndarray, frame: RGBDFrame, ring: int = 2, closer: float = 0.02) -> str:
    """The labelled thing (or 'something') right next to the mask's outline and more than `closer` m
    nearer the camera: what hides part of the object. '' when nothing does."""
    from scipy.ndimage import binary_dilation, minimum_filter

    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return ""
    r0, r1 = max(0, rows[0] - ring), min(mask.shape[0], rows[-1] + ring + 1)
    c0, c1 = max(0, cols[0] - ring), min(mask.shape[1], cols[-1] + ring + 1)
    m = mask[r0:r1, c0:c1]
    edge = binary_dilation(m, iterations=ring) & ~m
    d = frame.depth[r0:r1, c0:c1]
    own = minimum_filter(
        np.where(m & (d > 0), d, np.inf), size=2 * ring + 1
    )  # the object's depth next to each pixel
    near = edge & (d > 0) & (d < own - closer)
    if near.sum() < 3:
        return ""
    if frame.seg is None:
        return "something"
    ids, counts = np.unique(frame.seg[r0:r1, c0:c1][near], return_counts=True)
    name, _ = frame.labels.get(int(ids[np.argmax(counts)]), ("something", ""))
    return name


def _main_clusters(sel: np.ndarray, cluster: np.ndarray) -> np.ndarray:
    """The points of `sel` in the DBSCAN clusters holding at least 15 % of them (stray points, noise
    and slivers of neighbours seen through the mask's edge are dropped)."""
    labels = cluster[sel]
    good = labels >= 0
    if not good.any():
        return sel[:0]
    ids, counts = np.unique(labels[good], return_counts=True)
    keep = ids[counts >= 0.15 * good.sum()]
    return sel[np.isin(labels, keep)]


def _describe(pts: np.ndarray, rgb: np.ndarray) -> dict:
    """Centroid, axis-aligned and oriented boxes (open3d), principal yaw and colour of the points."""
    pc = cl.to_o3d(pts)
    a = pc.get_axis_aligned_bounding_box()
    obb = ()
    if len(pts) >= 5:
        try:
            o = pc.get_oriented_bounding_box()
            obb = (tuple(o.center), tuple(o.extent), np.asarray(o.R).tolist())
        except RuntimeError:  # degenerate (flat or collinear) points
            obb = ()
    return {
        "centroid": tuple(float(v) for v in pts.mean(axis=0)),
        "aabb": (tuple(a.min_bound), tuple(a.max_bound)),
        "obb": obb,
        "yaw_estimate": principal_yaw(pts),
        "colour": tuple(float(v) for v in rgb),
    }


def _within(pts: np.ndarray, state: ObjectState, margin: float = 0.01, share: float = 0.6) -> bool:
    """Whether `share` of the N×3 world points lie in `state`'s box grown by `margin` m."""
    from owl_bt.state import rotation_matrix

    rot = np.asarray(rotation_matrix(*state.pose.euler))
    local = (pts - np.asarray(state.pose.position)) @ rot
    inside = np.all(np.abs(local) <= np.asarray(state.size) / 2 + margin, axis=1)
    return bool(inside.mean() >= share)


def _primitive_state(
    name: str, pts: np.ndarray, table_z: float, rgb, palette, kind: str
) -> ObjectState:
    """A box, upright cylinder or sphere fitted to the points (`perception.primitives`), resting
    on the table."""
    from perception.primitives import fit_primitive

    prim = fit_primitive(pts, table_z)
    return ObjectState(
        name=name,
        category="object",
        pose=Pose(*prim.centre, 0.0, 0.0, prim.yaw),
        size=prim.size,
        shape=prim.shape,
        rgba=(*(float(v) for v in rgb), 1.0),
        colour=colour_name(rgb, palette),
        kind=kind,
    )


def _rest_on_supports(objects: dict[str, PerceivedObject], table_z: float) -> None:
    """An object whose lowest point is within REST_SNAP of the surface under it — the table, or the
    top of an object (a plate, a mat) whose box holds its centre and lies below its middle — is set
    exactly onto it: it rests there (gravity); the few millimetres are sensor noise."""
    for name, obj in objects.items():
        low = obj.lowest
        if low is None or any(f.startswith("inside ") for f in obj.flags):
            continue  # contents rest on a container's floor, which is not a box top
        p = obj.state.pose
        support = table_z
        for other, o in objects.items():
            if other == name:
                continue
            lo, hi = o.state.aabb()
            if (
                lo[0] <= p.x <= hi[0]
                and lo[1] <= p.y <= hi[1]
                and hi[2] < p.z
                and hi[2] <= low + REST_SNAP
            ):
                support = max(support, hi[2])
        gap = low - support
        if abs(gap) <= REST_SNAP:
            obj.state = obj.state.moved(Pose(p.x, p.y, p.z - gap, p.roll, p.pitch, p.yaw))


def _flag_contents(objects: dict[str, PerceivedObject], shapes: ShapeLibrary) -> None:
    """Flag objects whose centre lies inside a larger object's (oriented) box — a ball in a mug, soup in a
    can — or whose lower end is in a container's opening (a fork standing in a mug, its centre at the rim)."""
    from owl_bt.state import rotation_matrix

    for name, obj in objects.items():
        if obj.state.fixed:
            continue
        c = np.asarray(obj.state.pose.position)
        for other, o in objects.items():
            if other == name or o.state.fixed or np.prod(o.state.size) <= np.prod(obj.state.size):
                continue
            local = np.asarray(rotation_matrix(*o.state.pose.euler)).T @ (
                c - np.asarray(o.state.pose.position)
            )
            if np.all(np.abs(local) < np.asarray(o.state.size) / 2) or stands_in(
                obj.low_point, o.state, shapes
            ):
                obj.flags.append(f"inside {other}")
