"""Label-free detection: objects found from an RGB-D frame's geometry and colour alone, named by
matching them against the object catalogue and the instruction's words (`--perception
camera-unlabelled`, and any real camera).

Steps: the robot's own body is masked out from its measured joints and model (a depth render of
the arm, `owl_bt.robot_view`) → coloured cloud, table plane (RANSAC) and clusters above it (DBSCAN),
`perception.cloud` → a cluster whose points fall into two colour groups that each fit a kind better
than the whole is split → flat coloured patches in the table plane (markers: regions, mats, lines)
→ each segment's profile (dominant colour, sorted extents, height) is scored against every
catalogue kind, and kinds are assigned one to a segment by least total cost (Hungarian), kinds the
instruction names preferred → a segment no kind fits becomes a primitive: kind '' and a name by
colour and size ('red_small_object'), which the pipeline boxes around its points.

A `Detection` carries a pixel mask (the segment's pixels), its name (the kind; 'kind_2' for a
second one) and kind; the pipeline then fits the kind's shape as it does for labelled masks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from perception import cloud as cl
from perception.camera import RGBDFrame
from perception.detector import ROBOT, Detection, colour_name, dominant_colour, name_by_colour

MIN_POINTS = 40  # stride-2 points a segment needs to count
MIN_MARKER_POINTS = 60  # stride-2 table-plane points a marker needs
MARKER_COLOUR_GAP = 0.16  # rgb distance from the table's colour that makes a table point a marker's
MAX_COST = 1.6  # a segment whose best kind costs more than this is a primitive
WORD_BONUS = 0.35  # cost taken off a kind the instruction names
ROBOT_MARGIN = 0.02  # m: an observed point this close in front of the rendered arm is the arm
STRIDE = 2
LARGE_PART = 0.15  # share of a kind's surface that makes a part's colour one a view should see
UNSEEN_PART = 0.3  # cost of a large part's colour nowhere in the segment
RAISED = 0.03  # m: a segment whose lowest points are this high rests on something, not the table
COLOUR_CAP = 0.4  # colour distance beyond which a colour the goal names counts no worse (a kind
# a scene coloured its own way: "the red container" for a bowl the catalogue makes white)
SEEN_MORE = 2.0  # weight of an extent seen larger than the kind's (not this kind)
SEEN_LESS = 0.5  # weight of an extent seen smaller than the kind's (hidden parts) against larger
KNOWN_BONUS = 0.5  # cost taken off a kind last known where the segment is
KNOWN_NEAR = 0.06  # m: how near a segment's centre must be to where that kind was known
BRIDGE = 0.15  # m: the widest gap a thing standing on a region may part it by
GENERIC = frozenset({"the", "a", "an", "of", "on", "in", "to", "and", "region"})


@dataclass(frozen=True)
class KindProfile:
    """What a catalogue kind looks like: colours (its parts' rgb, in [0, 1]), dims (its box's
    extents, largest first, m), region (a flat marker), words (its name's words and the other
    words a goal may use for it, `kind_words.toml`)."""

    kind: str
    colours: tuple[tuple[float, float, float], ...]
    dims: tuple[float, float, float]
    region: bool
    words: frozenset[str]
    own: frozenset[str]  # its name's words less 'region'
    required: tuple[tuple[float, float, float], ...] = ()  # colours of its large parts


def kind_profiles(make: Callable[[str], object], kinds: Iterable[str]) -> list[KindProfile]:
    """Profiles of `kinds` from a catalogue (`make(kind)` → a spec-like object with `parts`,
    `rgba`, `bounds()`, `region`, `fixed`; `perception.shapes`); fixed furniture (the table) is
    left out, flat markers kept."""
    import tomllib
    from importlib.resources import files

    extra = tomllib.loads(files("perception").joinpath("kind_words.toml").read_text())
    out = []
    for kind in kinds:
        try:
            spec = make(kind)
        except KeyError:
            continue
        region = bool(getattr(spec, "region", False))
        if getattr(spec, "fixed", False) and not region:
            continue
        base = tuple(float(v) for v in (spec.rgba or (0.5, 0.5, 0.5, 1.0))[:3])
        colours = {tuple(float(v) for v in (part.rgba or spec.rgba)[:3]) for part in spec.parts}
        lo, hi = spec.bounds()
        size = [float(h - lo_) for lo_, h in zip(lo, hi, strict=True)]
        areas: dict[tuple, float] = {}
        for part in spec.parts:
            rgb = tuple(float(v) for v in (part.rgba or spec.rgba)[:3])
            areas[rgb] = areas.get(rgb, 0.0) + _area(part)
        total = sum(areas.values()) or 1.0
        required = tuple(sorted(c for c, a in areas.items() if a >= LARGE_PART * total))
        own = frozenset(kind.split("_")) - {"region"}
        out.append(
            KindProfile(
                kind,
                tuple(sorted(colours | {base})),
                tuple(sorted(size, reverse=True)),
                region,
                own | frozenset(extra.get(kind, ())),
                own,
                required if len(required) > 1 else (),
            )
        )
    return out


@dataclass
class Segment:
    """A candidate object: its stride-2 cloud points (indices into the SceneCloud), colour (rgb in
    [0, 1]), dims (largest first, m), top (m above the table), marker (flat in the table plane)."""

    points: np.ndarray
    colour: np.ndarray
    dims: tuple[float, float, float]
    top: float
    marker: bool = False
    low: float = 0.0  # m above the table: its lowest points (2nd percentile)
    flat: tuple[float, float] = (0.0, 0.0)  # its footprint's extents, m
    colours: np.ndarray | None = None  # N×3 rgb of its points
    centre: np.ndarray | None = None  # its points' mean (world, m)


class LabelFreeDetector:
    """A `perception.detector.Detector` that needs no labels.

    profiles: the catalogue's `KindProfile`s; robot_depth: renders the arm alone for a frame (H×W
    m, inf where it is not; `owl_bt.robot_view`), or None to keep every pixel; words: the
    instruction's words (`set_instruction`); marks: a `perception.marks.MarkNamer` that names
    the segments by a VLM over numbered marks (None: offline naming only)."""

    def __init__(
        self,
        profiles: list[KindProfile],
        robot_depth: Callable[[RGBDFrame], np.ndarray | None] | None = None,
        marks=None,
    ) -> None:
        self.profiles = profiles
        self.robot_depth = robot_depth
        self.words: set[str] = set()
        self.marks = marks
        self.known: list[tuple[str, np.ndarray]] = []

    def set_instruction(self, text: str) -> None:
        """Prefer the kinds this instruction names ('the banana' → banana; 'light-grey' → light, grey)."""
        self.words = set(re.findall(r"[a-z]+", (text or "").lower()))

    def set_known(self, known: Iterable[tuple[str, tuple[float, float, float]]]) -> None:
        """Where things of each kind were last known to be ((kind, world xyz m) pairs: the
        tracker's objects, a held one at the hand): a segment there is that kind more likely
        (KNOWN_BONUS), so a name stays with its thing between looks (the orange in the hand was
        named 'mustard_bottle', the real one then 'mustard_bottle_2')."""
        self.known = [(k, np.asarray(p, dtype=float)) for k, p in known if k]

    def detect(self, frame: RGBDFrame) -> list[Detection]:
        robot = self.robot_mask(frame)
        out = [Detection(ROBOT, ROBOT, robot, "robot model")] if robot.any() else []
        try:
            sc = cl.build(frame, exclude=robot, stride=STRIDE)
        except cl.CloudError:
            return out  # the pipeline's own cloud reports the reason
        objects = self._objects(sc)
        _rest_on(sc, objects)
        segments = objects + self._markers(sc, frame, objects)
        names = self._name(segments)
        flat = _flat_parts(sc, objects)
        masks = []
        for i, seg in enumerate(segments):
            own = np.concatenate([seg.points, flat[i]]) if i < len(objects) else seg.points
            masks.append(_mask(frame, sc.pixel[own]) & ~robot)
        sources = ["catalogue match" if kind else "primitive" for _, kind in names]
        if self.marks is not None and segments:
            names, sources = self._marked(frame, segments, masks, names, sources)
        for mask, (name, kind), source in zip(masks, names, sources, strict=True):
            out.append(Detection(name, kind, mask, source))
        return out

    def _marked(self, frame, segments, masks, names, sources):
        """Names by the VLM over numbered marks (`perception.marks`): a mark it names with a
        catalogue kind of the segment's sort (a flat marker or a standing thing) takes that
        kind; the others keep their offline names."""
        said = self.marks.name(frame.rgb, masks)
        by_kind = {p.kind: p for p in self.profiles}
        out, srcs, taken = [], [], set()
        for seg, (name, kind), source, vk in zip(segments, names, sources, said, strict=True):
            if vk is not None and vk in by_kind and by_kind[vk].region == seg.marker:
                name, kind, source = vk, vk, "vlm marks"
            base, k = name, 2
            while name in taken:
                name, k = f"{base}_{k}", k + 1
            taken.add(name)
            out.append((name, kind))
            srcs.append(source)
        return out, srcs

    def robot_mask(self, frame: RGBDFrame) -> np.ndarray:
        """H×W bool: pixels showing the arm (or hidden behind it), from its rendered depth."""
        rendered = self.robot_depth(frame) if self.robot_depth is not None else None
        if rendered is None:
            return np.zeros(frame.shape, dtype=bool)
        d = np.asarray(frame.depth, dtype=np.float64)
        arm = np.isfinite(rendered)
        mask = arm & ((d <= 0) | ~np.isfinite(d) | (d > rendered - ROBOT_MARGIN))
        from scipy.ndimage import binary_dilation

        return binary_dilation(mask, iterations=2) & (arm | binary_dilation(arm, iterations=2))

    # -- segments --------------------------------------------------------------------------------
    def _objects(self, sc: cl.SceneCloud) -> list[Segment]:
        """Clusters above the table, same-coloured pieces of one thing joined, two-coloured
        clusters of two things split."""
        pieces = []
        above = sc.above & (sc.cluster >= 0)
        for label in np.unique(sc.cluster[above]):
            idx = np.flatnonzero(above & (sc.cluster == label))
            if len(idx) < MIN_POINTS // 2 or np.percentile(sc.height[idx], 95) < 0.012:
                continue
            pieces.append(_segment(sc, idx))
        out = []
        for seg in self._join_parts(sc, _join_alike(sc, pieces)):
            if len(seg.points) >= MIN_POINTS:
                out.extend(self._split(sc, seg))
        return _attach_slivers(sc, out, above)

    def _join_parts(self, sc: cl.SceneCloud, pieces: list[Segment]) -> list[Segment]:
        """Touching pieces of two colours that one kind has (a can's red label and white lid)
        joined when that kind fits the whole better than the pieces fit anything."""
        objects = [p for p in self.profiles if not p.region]
        pieces = list(pieces)
        joined = True
        while joined:
            joined = False
            for i in range(len(pieces)):
                for j in range(i + 1, len(pieces)):
                    a, b = pieces[i], pieces[j]
                    if not _boxes_meet(sc, a, b, 0.03):  # a can's front wall and its inside
                        continue
                    both = _segment(sc, np.concatenate([a.points, b.points]))
                    apart = max(min(self._cost(x, p) for p in objects) for x in (a, b))
                    fits = [
                        self._cost(both, p)
                        for p in objects
                        if _has_colour(p, a.colour) and _has_colour(p, b.colour)
                    ]
                    if fits and min(fits) <= MAX_COST and min(fits) < apart:
                        pieces[i] = both
                        del pieces[j]
                        joined = True
                        break
                if joined:
                    break
        return pieces

    def _split(self, sc: cl.SceneCloud, seg: Segment) -> list[Segment]:
        """Two touching objects of different colours: the cluster split into its two main colour
        groups, unless one kind's parts have both colours (a strawberry and its stem) and fits
        the whole, or the split fits no better."""
        cols = sc.colours[seg.points]
        if len(seg.points) < 2 * MIN_POINTS:
            return [seg]
        centres = _two_colours(cols)
        if centres is None:
            return [seg]
        near = np.argmin(np.linalg.norm(cols[:, None, :] - centres[None, :, :], axis=2), axis=1)
        groups = [seg.points[near == g] for g in (0, 1)]
        if min(len(g) for g in groups) < MIN_POINTS:
            return [seg]
        objects = [p for p in self.profiles if not p.region]
        for p in objects:
            if all(_has_colour(p, c) for c in centres) and self._cost(seg, p) <= MAX_COST:
                return [seg]
        parts = [_segment(sc, g) for g in groups]
        whole = min(self._cost(seg, p) for p in objects)
        split = max(min(self._cost(s, p) for p in objects) for s in parts)
        return parts if split < whole + 0.3 else [seg]

    def _markers(
        self, sc: cl.SceneCloud, frame: RGBDFrame, objects: list[Segment]
    ) -> list[Segment]:
        """Flat patches in the table plane whose colour is not the table's, away from the objects
        standing there (a fork's flat head, a can's foot); pieces of one colour a few cm apart,
        or on either side of a thing standing between them (a region parted by a can on it),
        joined."""
        from scipy import ndimage

        flat = np.flatnonzero(sc.on_plane)
        if len(flat) < MIN_MARKER_POINTS:
            return []
        table = dominant_colour(sc.colours[flat])
        odd = flat[np.linalg.norm(sc.colours[flat] - table, axis=1) > MARKER_COLOUR_GAP]
        lying = [o.points[sc.height[o.points] < 0.02] for o in objects]  # a fork's flat head
        odd = odd[~_under(sc.points[odd], [sc.points[i] for i in lying if len(i)])]
        if len(odd) < MIN_MARKER_POINTS:
            return []
        h, w = frame.shape
        grid = np.zeros((h // STRIDE + 1, w // STRIDE + 1), dtype=bool)
        v, u = np.divmod(sc.pixel[odd], w)
        grid[v // STRIDE, u // STRIDE] = True
        labels, n = ndimage.label(ndimage.binary_closing(grid, iterations=1))
        comp = labels[v // STRIDE, u // STRIDE]
        pieces = [_segment(sc, odd[comp == k]) for k in range(1, n + 1)]
        pieces = [p for p in pieces if len(p.points) >= 10]
        out = []
        for seg in _join_bridged(sc, _join_alike(sc, pieces, gap=0.04), objects):
            if len(seg.points) >= MIN_MARKER_POINTS and seg.dims[0] >= 0.04:
                seg.marker = True
                out.append(seg)
        return out

    # -- naming ----------------------------------------------------------------------------------
    def _cost(self, seg: Segment, p: KindProfile) -> float:
        """How badly `p` explains `seg`: colour (the nearest of its parts' colours; capped when the
        goal names the segment's colour, as a scene may colour a kind its own way) plus size (log ratios of the extents; a view sees
        less than the whole, so seeing less costs less than seeing more), less WORD_BONUS when
        the instruction names the kind."""
        if p.region != seg.marker:
            return math.inf
        c = min(_colour_distance(seg.colour, np.asarray(rgb)) for rgb in p.colours)
        said = set(colour_name(seg.colour).split("_")) <= self.words  # "the red container"
        colour = 3.0 * (min(c, COLOUR_CAP) if said else c)
        if p.region:  # a marker's size is the scene's to choose; its shape (long or square) is not
            aspect = math.log(max(seg.dims[0], 1e-3) / max(seg.dims[1], 1e-3))
            want = math.log(p.dims[0] / max(p.dims[1], 1e-3))
            size = 0.4 * max(aspect - want, 0.0) + 0.15 * max(want - aspect, 0.0)
        else:
            size = 0.0
            for m, q in zip(seg.dims, p.dims, strict=True):
                r = math.log(max(m, 0.004) / max(q, 0.004))
                size += SEEN_MORE * r if r > 0 else -SEEN_LESS * r
        named = bool(p.own) and p.own <= self.words or bool(p.words & self.words - GENERIC)
        unseen = sum(
            _share(seg.colours, rgb) < 0.03 for rgb in p.required
        )  # a knife's black handle
        there = seg.centre is not None and any(
            k == p.kind and float(np.linalg.norm(seg.centre - at)) < KNOWN_NEAR
            for k, at in self.known
        )
        bonus = (WORD_BONUS if named else 0.0) + (KNOWN_BONUS if there else 0.0)
        return colour + size + UNSEEN_PART * unseen - bonus

    def _name(self, segments: list[Segment]) -> list[tuple[str, str]]:
        """(name, kind) per segment: kinds assigned by least total cost, each at most once; a
        segment whose kind went to another, or that fits none, is named by colour and size."""
        from scipy.optimize import linear_sum_assignment

        if not segments:
            return []
        cost = np.array([[self._cost(s, p) for p in self.profiles] for s in segments])
        finite = np.where(np.isfinite(cost), cost, 1e6)
        rows, cols = linear_sum_assignment(finite)
        chosen = dict(zip(rows.tolist(), cols.tolist(), strict=True))
        out: list[tuple[str, str]] = []
        taken: set[str] = set()
        for i, seg in enumerate(segments):
            j = chosen.get(i)
            if j is None or cost[i, j] > MAX_COST:
                best = int(np.argmin(finite[i]))
                j = best if cost[i, best] <= MAX_COST else None
            if j is None:
                name = name_by_colour(seg.colour, seg.dims[0], taken)
                out.append((name, ""))
            else:
                kind = self.profiles[j].kind
                name, k = kind, 2
                while name in taken:
                    name, k = f"{kind}_{k}", k + 1
                out.append((name, kind))
            taken.add(out[-1][0])
        return out

    def name_content(
        self, colours: np.ndarray, seen: tuple[float, float, float], room: float, taken: set[str]
    ) -> tuple[str, str]:
        """(name, kind) of a thing seen in part inside a container (`perception.contents`):
        colours N×3 rgb of its points; seen: its seen extents (m, largest first); room: the
        opening's diameter (m). Only kinds whose two smaller extents go through the opening are
        weighed, a kind already in `taken` (names) costs more; '' kind and a colour name when
        none fits."""
        seg = Segment(np.zeros(0, dtype=np.int64), dominant_colour(colours), seen, seen[2])
        seg.colours = colours
        have = {n.rsplit("_", 1)[0] if n.rsplit("_", 1)[-1].isdigit() else n for n in taken}
        best, best_cost = None, MAX_COST
        for p in self.profiles:
            if p.region or p.dims[1] > room:
                continue
            cost = self._cost(seg, p) + (0.3 if p.kind in have else 0.0)
            if cost < best_cost:
                best, best_cost = p.kind, cost
        if best is None:
            return name_by_colour(seg.colour, seen[0], taken), ""
        name, k = best, 2
        while name in taken:
            name, k = f"{best}_{k}", k + 1
        return name, best


def _segment(sc: cl.SceneCloud, idx: np.ndarray) -> Segment:
    from perception.primitives import min_area_rect

    pts = sc.points[idx]
    (_, _), (lx, ly), _ = min_area_rect(pts[:, :2])
    top = float(np.percentile(sc.height[idx], 98))
    low = float(np.percentile(sc.height[idx], 2))
    dims = tuple(sorted((lx, ly, max(top, 0.002)), reverse=True))
    cols = sc.colours[idx]
    return Segment(
        idx,
        dominant_colour(cols),
        dims,
        top,
        low=low,
        flat=(lx, ly),
        colours=cols,
        centre=pts.mean(axis=0),
    )


def _flat_parts(sc: cl.SceneCloud, objects: list[Segment]) -> list[np.ndarray]:
    """Per object, its table-plane points not of the table's colour within 1.5 cm (xy) of its own
    low points: a fork's flat head, which lies in the plane (indices into the cloud)."""
    from scipy.spatial import cKDTree

    flat = np.flatnonzero(sc.on_plane)
    empty = [np.zeros(0, dtype=np.int64) for _ in objects]
    if not len(flat) or not objects:
        return empty
    table = dominant_colour(sc.colours[flat])
    odd = flat[np.linalg.norm(sc.colours[flat] - table, axis=1) > MARKER_COLOUR_GAP]
    out = []
    for seg in objects:
        low = seg.points[sc.height[seg.points] < 0.02]
        if not len(low) or not len(odd):
            out.append(empty[0])
            continue
        dist, _ = cKDTree(sc.points[low, :2]).query(
            sc.points[odd, :2], k=1, distance_upper_bound=0.015
        )
        out.append(odd[np.isfinite(dist)])
    return out


def _rest_on(sc: cl.SceneCloud, segments: list[Segment]) -> None:
    """A segment whose lowest points lie at the top of another under it (an orange in a mug) is as
    tall as it stands above that one, not above the table."""
    for seg in segments:
        if seg.low < RAISED:
            continue
        under = [
            o.top
            for o in segments
            if o is not seg and o.top <= seg.low + 0.02 and _boxes_meet(sc, o, seg, 0.0)
        ]
        if under:
            tall = seg.top - max(under)
            seg.dims = tuple(sorted((*seg.flat, max(tall, 0.002)), reverse=True))


def _attach_slivers(sc: cl.SceneCloud, segments: list[Segment], above: np.ndarray) -> list[Segment]:
    """Points above the table left in no segment (a can's side seen edge-on, the far side of a
    drill: slivers DBSCAN split off) given to the segment with a point within 2 cm of them."""
    from scipy.spatial import cKDTree

    if not segments:
        return segments
    used = np.zeros(len(sc.points), dtype=bool)
    for seg in segments:
        used[seg.points] = True
    rest = np.flatnonzero((sc.height > cl.ABOVE) & ~used)
    if not len(rest):
        return segments
    owner = np.concatenate([np.full(len(s.points), i) for i, s in enumerate(segments)])
    tree = cKDTree(sc.points[np.concatenate([s.points for s in segments])])
    dist, j = tree.query(sc.points[rest], k=1, distance_upper_bound=0.02)
    near = np.isfinite(dist)
    out = []
    for i, seg in enumerate(segments):
        extra = rest[near][owner[j[near]] == i]
        if len(extra):
            grown = _segment(sc, np.concatenate([seg.points, extra]))
            grown.dims, grown.colour, grown.marker = seg.dims, seg.colour, seg.marker
            seg = grown
        out.append(seg)
    return out


def _join_alike(sc: cl.SceneCloud, pieces: list[Segment], gap: float = 0.01) -> list[Segment]:
    """Pieces of one colour (chromaticity within 0.15) whose xy boxes come within `gap` m of each
    other joined into one segment (a mug's rim and wall that DBSCAN parted)."""
    pieces = list(pieces)
    joined = True
    while joined:
        joined = False
        for i in range(len(pieces)):
            for j in range(i + 1, len(pieces)):
                a, b = pieces[i], pieces[j]
                if _chroma_gap(a.colour, b.colour) < 0.15 and _boxes_meet(sc, a, b, gap):
                    pieces[i] = _segment(sc, np.concatenate([a.points, b.points]))
                    del pieces[j]
                    joined = True
                    break
            if joined:
                break
    return pieces


def _join_bridged(
    sc: cl.SceneCloud, pieces: list[Segment], objects: list[Segment], gap: float = BRIDGE
) -> list[Segment]:
    """Flat pieces of one colour facing each other across a gap of at most `gap` m that a thing
    standing there fills (its centre in the gap): one region the thing parts (Berry2's can on the
    light-grey region left two pads, and 'the light grey region' was two things)."""
    pieces = list(pieces)
    joined = True
    while joined:
        joined = False
        for i in range(len(pieces)):
            for j in range(i + 1, len(pieces)):
                a, b = pieces[i], pieces[j]
                if _chroma_gap(a.colour, b.colour) < 0.15 and _bridged(sc, a, b, objects, gap):
                    pieces[i] = _segment(sc, np.concatenate([a.points, b.points]))
                    del pieces[j]
                    joined = True
                    break
            if joined:
                break
    return pieces


def _bridged(sc: cl.SceneCloud, a: Segment, b: Segment, objects: list[Segment], gap: float) -> bool:
    """Whether `a` and `b` overlap along one table axis for half the narrower one's extent, lie
    at most `gap` m apart along the other, and an object's centre lies in the gap between them."""
    pa, pb = sc.points[a.points, :2], sc.points[b.points, :2]
    lo_a, hi_a, lo_b, hi_b = pa.min(axis=0), pa.max(axis=0), pb.min(axis=0), pb.max(axis=0)
    for k in (0, 1):
        o = 1 - k
        overlap = min(hi_a[o], hi_b[o]) - max(lo_a[o], lo_b[o])
        if overlap < 0.5 * min(hi_a[o] - lo_a[o], hi_b[o] - lo_b[o]):
            continue
        start, end = min(hi_a[k], hi_b[k]), max(lo_a[k], lo_b[k])
        if not 0.0 < end - start <= gap:
            continue
        for seg in objects:
            c = sc.points[seg.points, :2].mean(axis=0)
            if start - 0.01 <= c[k] <= end + 0.01 and (
                max(lo_a[o], lo_b[o]) - 0.01 <= c[o] <= min(hi_a[o], hi_b[o]) + 0.01
            ):
                return True
    return False


def _chroma_gap(a: np.ndarray, b: np.ndarray) -> float:
    ca, cb = a / max(float(a.max()), 0.05), b / max(float(b.max()), 0.05)
    dark = max(float(a.max()), float(b.max())) < 0.2  # black things: chromaticity is noise
    return abs(float(a.max()) - float(b.max())) if dark else float(np.linalg.norm(ca - cb))


def _boxes_meet(sc: cl.SceneCloud, a: Segment, b: Segment, gap: float) -> bool:
    pa, pb = sc.points[a.points, :2], sc.points[b.points, :2]
    lo = np.maximum(pa.min(axis=0), pb.min(axis=0))
    hi = np.minimum(pa.max(axis=0), pb.max(axis=0))
    return bool(np.all(lo <= hi + gap))


def _under(points: np.ndarray, objects: list[np.ndarray], margin: float = 0.015) -> np.ndarray:
    """Which of the N×3 table-plane `points` lie within `margin` m (xy) of an object's points."""
    from scipy.spatial import cKDTree

    out = np.zeros(len(points), dtype=bool)
    if not objects or not len(points):
        return out
    tree = cKDTree(np.concatenate(objects)[:, :2])
    dist, _ = tree.query(points[:, :2], k=1, distance_upper_bound=margin)
    return np.isfinite(dist)


def _share(colours: np.ndarray | None, rgb) -> float:
    """The share of `colours` (N×3) within shading of `rgb`."""
    if colours is None or not len(colours):
        return 0.0
    r = np.asarray(rgb)
    k = np.clip(colours.max(axis=1) / max(r.max(), 1e-6), 0.5, 1.5)
    d = np.linalg.norm(colours - k[:, None] * r, axis=1) + 0.3 * np.abs(1 - k)
    return float(np.mean(d < 0.2))


def _area(part) -> float:
    """A part's surface area (m²): box, sphere or cylinder."""
    if part.kind == "box":
        a, b, c = part.dims
        return 2 * (a * b + b * c + c * a)
    if part.kind == "sphere":
        return 4 * math.pi * part.dims[0] ** 2
    r, h = part.dims[:2]
    return 2 * math.pi * r * (r + h)


def _has_colour(p: KindProfile, colour: np.ndarray) -> bool:
    """Whether one of `p`'s parts has `colour` (shading allowed)."""
    return min(_colour_distance(colour, np.asarray(rgb)) for rgb in p.colours) < 0.25


def _colour_distance(c: np.ndarray, r: np.ndarray) -> float:
    """As `perception.detector.colour_name` compares: brightness matched first (lighting scales
    every channel, up to ±50 %), then the rgb distance plus a charge for the scaling."""
    k = float(np.clip(c.max() / max(r.max(), 1e-6), 0.5, 1.5))
    return float(np.linalg.norm(c - k * r)) + 0.3 * abs(1 - k)


def _two_colours(cols: np.ndarray) -> np.ndarray | None:
    """Two colour centres (2×3) of N×3 colours by a few rounds of 2-means, or None when they lie
    close (one colour, shaded)."""
    bright = cols / np.maximum(cols.max(axis=1, keepdims=True), 0.05)  # chromaticity, shading out
    a = bright[np.argmax(np.linalg.norm(bright - bright.mean(axis=0), axis=1))]
    b = bright[np.argmax(np.linalg.norm(bright - a, axis=1))]
    centres = np.stack([a, b])
    for _ in range(8):
        near = np.argmin(np.linalg.norm(bright[:, None] - centres[None], axis=2), axis=1)
        if (near == 0).all() or (near == 1).all():
            return None
        centres = np.stack([bright[near == g].mean(axis=0) for g in (0, 1)])
    if np.linalg.norm(centres[0] - centres[1]) < 0.35:
        return None
    return np.stack([cols[near == g].mean(axis=0) for g in (0, 1)])


def _mask(frame: RGBDFrame, pixels: np.ndarray) -> np.ndarray:
    """H×W bool of `pixels` (row-major indices of stride-2 points), grown over the stride's gaps."""
    from scipy.ndimage import binary_dilation

    h, w = frame.shape
    m = np.zeros(h * w, dtype=bool)
    m[pixels] = True
    return binary_dilation(m.reshape(h, w), structure=np.ones((3, 3), dtype=bool))
