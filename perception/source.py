"""Perception sources: where the perceive subtree gets its `WorldState` and scene image.

`CameraSource` (`--perception camera`, the default) runs the RGB-D pipeline on a camera's frames:
planning never reads the simulator's ground truth, and the same code serves a real camera.
`SimStateSource` (`--perception sim-state`) reads object poses and geometry from the simulator's
ground truth, for debugging only. Both follow the `PerceptionSource` protocol.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Protocol

import numpy as np

from owl_bt.errors import OwlError
from owl_bt.state import ObjectState, Release, RobotState, WorldState
from perception.pipeline import NO_OBJECTS
from perception.vacancy import floor_verdict, seen_past, seen_past_around


@dataclass
class Observation:
    """A perceived state and the RGB image it came from. `image`: PNG bytes, or the RGB (H×W×3 uint8) that
    `image_png` encodes when first asked for; from the camera also `annotated` (the image with labelled
    boxes: PNG bytes, or what makes them, called by `annotated_png` when first asked for), flags (name →
    caveats: occluded, kept from an earlier round, inside a container …), kept (names carried over
    unseen), missing (labelled but never measured, or gone from where they were kept: not in `world`),
    timings (s per pipeline step). Images are made only when read: a look while the arm works (the
    execute subtree's monitor) reads none, and encoding them cost a tenth of that look."""

    world: WorldState
    image: bytes | np.ndarray
    annotated: bytes | Callable[[], bytes] | None = None
    flags: dict[str, list[str]] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def image_png(self) -> bytes:
        if not isinstance(self.image, bytes):
            self.image = _png(self.image)
        return self.image

    @property
    def annotated_png(self) -> bytes | None:
        if callable(self.annotated):
            self.annotated = self.annotated()
        return self.annotated


class PerceptionError(OwlError):
    """The camera or the pipeline gave nothing usable this round (one-line reason; retrying may help)."""


class PerceptionSource(Protocol):
    name: str

    def observe(self) -> Observation:
        """A fresh observation of the scene; raises OwlError with a one-line reason on failure."""
        ...


def _png(rgb: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.asarray(rgb, dtype=np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def settled(state: ObjectState) -> ObjectState:
    """`state` (an ObjectState) with its pose and size rounded to a micrometre / microradian: open3d's parallel
    reductions leave the last bits of a fit differing from run to run (1e-17 m), and the grasp offsets the
    planner drew from them differed too. One source of run-to-run variation gone; Bullet's collision pairs,
    ordered by memory address, are another (left: fixing their order changed the grips on the arm). The
    camera's own error is millimetres."""
    from dataclasses import replace

    pose = state.pose
    fields = {k: round(getattr(pose, k), 6) + 0.0 for k in ("x", "y", "z", "roll", "pitch", "yaw")}
    return replace(
        state, pose=replace(pose, **fields), size=tuple(round(v, 6) + 0.0 for v in state.size)
    )


LABEL_FREE = ("catalogue match", "primitive", "colour", "vlm marks")  # found unlabelled
HAND_POINTS = (
    150  # points a held object needs for its pose to come from the camera rather than the hand
)
JUMP = 0.06  # m: a thing seen this near where it was at the last look has not been lifted
HAND_SLACK = (
    0.03  # m: how far beyond its own half-extent a held thing's centre may lie from the TCP
)
ROUND_SHAPES = (
    "cylinder",
    "sphere",
)  # held, their turn in the hand comes from the hand once first seen held


class CameraSource:
    """camera: a `perception.camera.Camera`; pipeline: a `perception.pipeline.Pipeline`; robot: the
    arm's measured state (joints, held object), which perception does not estimate; tcp: the hand's
    pose from the arm's kinematics ((x, y, z), quaternion xyzw; world frame, m), used for an object in
    the gripper that the fingers hide. `last_annotated` keeps the latest labelled image, also when a
    round failed; `out_dir`: the run folder the perceive subtree writes it into (None: not written)."""

    name = "camera"

    def __init__(
        self,
        camera,
        pipeline,
        robot: Callable[[], RobotState | None] = lambda: None,
        tcp: Callable[[], tuple] | None = None,
        released: Callable[[], dict[str, Release]] | None = None,
    ) -> None:
        from perception.tracker import Tracker

        self.camera, self.pipeline, self._robot, self._tcp = camera, pipeline, robot, tcp
        self._released = released
        self.tracker = Tracker()
        self._annotated: Callable[[], bytes] | None = (
            None  # makes the latest labelled image (`last_annotated`)
        )
        self.out_dir = None
        self._in_hand: dict[
            str, tuple
        ] = {}  # held object's (rotation, centre) in the hand frame, m
        self._previous = None  # the last frame observed (RGBDFrame)
        self._before_fell: dict = {}  # poured out and unseen since → the frame before it was poured

    def observe(self) -> Observation:
        from dataclasses import replace

        from perception.draw import annotate
        from perception.tracker import container_of

        try:
            frame = self.camera.capture()
        except OSError as exc:
            raise PerceptionError(f"the camera gave no frame: {exc}") from None
        robot = self._robot()
        held = robot.held if robot else None
        self._tell_known(held)
        res = self.pipeline.perceive(frame, held)
        for o in res.objects.values():
            o.state = settled(o.state)
        known = any(not s.fixed for s in self.tracker.known.values()) or bool(self.tracker.gone)
        if res.failure and not (
            res.failure == NO_OBJECTS and known
        ):  # nothing on the table but known things: kept
            self._annotated = cache(
                partial(annotate, frame, {}, note=f"perception failed: {res.failure}")
            )
            raise PerceptionError(res.failure)
        self._held_seen_otherwise(res, held)
        unlabelled = {n for n, o in res.objects.items() if o.source == "colour"}
        tracked = self.tracker.update(
            {n: o.state for n, o in res.objects.items()},
            unlabelled,
            res.unmeasured,
            held,
            {n: o.flags for n, o in res.objects.items()},
            {n for n, o in res.objects.items() if o.source in LABEL_FREE},
        )
        if held in tracked.states:
            self._place_in_hand(held, tracked, res.objects.get(held))
            self.tracker.absorb_at_hand(tracked, held)
            self.tracker.carry(
                tracked, held
            )  # it, and what is unseen inside it, are where the hand put them
        self.tracker.drop_impossible(tracked, held)
        let_go = self._let_go(held)
        for name, release in let_go.items():
            if name not in tracked.kept:
                continue  # seen now, or forgotten
            # let go since the last look and not seen now: where the hand let it go, at rest; or the
            # thing first seen now near there, which is it seen otherwise (a fork standing in a mug
            # named a 'milk_carton')
            hand = release.hand if release is not None else None
            self._place_in_hand(name, tracked, None, hand, release.grasp if release else None)
            self.tracker.let_go(name, tracked)
            if hand is not None:
                seen_at = {n: o.centroid for n, o in res.objects.items()}
                self.tracker.adopt(name, tracked, hand[0], seen_at)
        self.tracker.absorb_in_containers(tracked, self._hollow(tracked, every=True), held)
        for name in self.tracker.fell:  # the last frame before it was taken to have fallen out
            self._before_fell.setdefault(name, self._previous)
        self._before_fell = {n: f for n, f in self._before_fell.items() if n in self.tracker.fell}
        for name in [n for n in tracked.kept if n in self.tracker.fell and n != held]:
            # taken to have fallen there (and, into a bowl, to have rolled to its middle): seen not to be,
            # and that bowl's floor in view with nothing come to rest on it since the pour: it stayed in
            spot = tracked.states[name]
            box = tracked.states.get(container_of(name, tracked.states) or "")
            middle = (
                [replace(spot, pose=replace(spot.pose, x=box.pose.x, y=box.pose.y))] if box else []
            )
            before = self._before_fell.get(name)
            floor = (
                "empty"
                if box is None
                else floor_verdict(before, frame, box, spot.pose.z)
                if before
                else "hidden"
            )
            # on a flat surface it may have rolled: nowhere near the spot either (in a bowl it rolls to the middle)
            clear = (
                seen_past_around(frame, spot)
                if box is None
                else all(seen_past(frame, s) for s in [spot, *middle])
            )
            if floor == "empty" and clear:
                self.tracker.still_inside(name, tracked)
        # what was poured out and is unseen is the pour's to judge (above), not gone
        skip = {
            held,
            *(n for n, r in let_go.items() if r is None),  # where the hand is: not where it let go
            *res.unmeasured,
            *self._hollow(tracked),
            *self.tracker.fell,
        } - {None}
        self.tracker.drop_vacant(tracked, frame, skip)
        self._in_hand = {k: v for k, v in self._in_hand.items() if k == held}
        self._previous = frame
        flags = {n: f for n, f in tracked.flags.items() if f}
        note = f"missing: {', '.join(tracked.missing)}" if tracked.missing else ""
        self._annotated = cache(partial(annotate, frame, dict(tracked.states), flags, note))
        world = WorldState(objects=tracked.states, robot=robot, source=self.name)
        return Observation(
            world, frame.rgb, self._annotated, flags, tracked.kept, tracked.missing, res.timings
        )

    def _tell_known(self, held: str | None) -> None:
        """Tell a label-free detector where each known thing was last (the held one at the
        hand), so that it names a segment there as before (`LabelFreeDetector.set_known`)."""
        set_known = getattr(getattr(self.pipeline, "detector", None), "set_known", None)
        if set_known is None:
            return
        known = []
        for name, state in self.tracker.known.items():
            at = state.pose.position
            if name == held and self._tcp is not None:
                at = tuple(self._tcp()[0])
            known.append((state.kind, at))
        set_known(known)

    @property
    def last_annotated(self) -> bytes | None:
        """The latest frame's labelled image (PNG bytes), also when that round failed; None before any frame."""
        return self._annotated() if self._annotated is not None else None

    def _held_seen_otherwise(self, res, held: str | None) -> str | None:
        """The held object, not seen under its own name: the thing found without labels whose
        points' centre lies nearest the hand, within half the held object's largest extent and
        HAND_SLACK, is it seen under another name (the orange just lifted off the mug named
        'mustard_bottle', and the real bottle then 'mustard_bottle_2'), unless that thing was
        already there at the last look. It is given the held object's name, kind, size and shape,
        at its points' centre. Changes `res.objects`; returns the name it had, or None."""
        from dataclasses import replace

        from owl_bt.state import Pose

        known = self.tracker.known.get(held) if held is not None else None
        if known is None or held in res.objects or self._tcp is None:
            return None
        hand = np.asarray(self._tcp()[0], dtype=float)
        reach = max(known.size) / 2 + HAND_SLACK
        near = []
        for name, o in res.objects.items():
            if o.source not in LABEL_FREE or o.state.fixed or o.state.shape == "region":
                continue
            before = self.tracker.known.get(name)
            if before is not None and _dist(before.pose.position, o.centroid) < JUMP:
                continue  # it was there before: not the thing just lifted
            near.append((_dist(o.centroid, hand), name))
        if not near or not min(near)[0] <= reach:  # (a NaN distance is no match)
            return None
        name = min(near)[1]
        seen = res.objects.pop(name)
        seen.state = replace(
            known, pose=Pose(*(float(v) for v in seen.centroid), *known.pose.euler)
        )
        res.objects[held] = seen
        return name

    def _let_go(self, held: str | None) -> dict[str, Release | None]:
        """The objects let go of since the last look, by name: with where the hand gripped and let go
        of each when the arm reports it (`released`), else those held at the last look (None: the
        hand's pose now stands for where it let go)."""
        if self._released is None:
            return {n: None for n in self._in_hand if n != held}
        return {n: r for n, r in self._released().items() if n != held}

    def _hollow(self, tracked, every: bool = False) -> set[str]:
        """Kept containers (a bowl, a mug, a can): their place is not judged empty from depth, which
        looks into an open one and sees its floor beyond its box's middle (a bowl in view was judged
        gone). every: all known containers, seen now or kept."""
        shapes = getattr(self.pipeline, "shapes", None)
        out = set()
        for name in tracked.states if every else tracked.kept:
            model = (
                shapes.get(tracked.states[name].kind)
                if shapes is not None and tracked.states[name].kind
                else None
            )
            if model is not None and model.info.get("cavity"):
                out.add(name)
        return out

    def _place_in_hand(self, name: str, tracked, seen, hand=None, grasp=None) -> None:
        """The held object's pose: from the camera when it sees enough of it (and then its place in
        the hand is remembered), else where that place in the hand is as the arm's kinematics put the
        hand. Until the camera has seen it held, its place in the hand is taken as: centred between the
        fingers, turned as it was when last seen (a grasp does not turn what it lifts). A fit whose
        centre lies farther from the hand than half the object's largest extent and HAND_SLACK is not
        of the thing in the fingers (a held mug fitted 24 cm under the hand, below the table top):
        the hand places it. hand: the TCP's pose ((x, y, z) m, quaternion xyzw; world frame) to
        place it by, None: the TCP's now; grasp: the TCP's pose when the hand gripped it (its turn
        in the hand when never seen held)."""
        if self._tcp is None and hand is None:
            return
        from dataclasses import replace

        from owl_bt.state import Pose, rotation_matrix
        from perception.fit import euler

        pos, quat = hand if hand is not None else self._tcp()
        hand_r = _quat_matrix(quat)
        hand_p = np.asarray(pos, dtype=float)
        state = tracked.states[name]
        obj_r = np.asarray(rotation_matrix(*state.pose.euler))
        rel_p = hand_r.T @ (np.asarray(state.pose.position) - hand_p)
        gripped = float(np.linalg.norm(rel_p)) <= max(state.size) / 2 + HAND_SLACK
        if seen is not None and seen.points >= HAND_POINTS and gripped:
            if name not in self._in_hand or state.shape not in ROUND_SHAPES:
                self._in_hand[name] = (hand_r.T @ obj_r, rel_p)
                return
            # A round body's turn in the hand stays the one first seen held: fitted again from a tilted,
            # half-hidden view it can come out 70° less tipped than it is (a mug held over the table
            # after its pour seen "not tipped"), while a grasp does not turn what it holds. Where it is, the
            # camera still says.
            self._in_hand[name] = (self._in_hand[name][0], rel_p)
            rpy = euler(hand_r @ self._in_hand[name][0])
            tracked.states[name] = replace(state, pose=Pose(*state.pose.position, *rpy))
            return
        if name not in self._in_hand:
            at_grasp = _quat_matrix(grasp[1]) if grasp is not None else hand_r
            self._in_hand[name] = (at_grasp.T @ obj_r, np.zeros(3))
        rel_r, rel_p = self._in_hand[name]
        c = hand_p + hand_r @ rel_p
        rpy = euler(hand_r @ rel_r)
        tracked.states[name] = replace(state, pose=Pose(*(float(v) for v in c), *rpy))
        note = "in the gripper: placed by the hand's pose"
        tracked.flags[name] = [
            f for f in tracked.flags.get(name, []) if not f.startswith("not seen")
        ] + [note]


def _dist(a, b) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


def _quat_matrix(q) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


class SimStateSource:
    """Reads the simulator's ground truth (`--perception sim-state`) and renders the scene image."""

    name = "sim-state"

    def __init__(self, world: object, held: Callable[[], str | None] = lambda: None) -> None:
        self.world = world
        self._held = held

    def observe(self) -> Observation:
        from sim.camera import render

        frame = render(self.world.cid)
        return Observation(self.world.ground_truth(held=self._held()), frame.rgb)
