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
from typing import Protocol

import numpy as np

from owl_bt.errors import OwlError
from owl_bt.state import RobotState, WorldState


@dataclass
class Observation:
    """A perceived state and the RGB image (PNG bytes) it came from. From the camera also:
    annotated_png (the image with labelled boxes), flags (name → caveats: occluded, kept from an
    earlier round, inside a container …), kept (names carried over unseen), missing (labelled but
    never measured: not in `world`), timings (s per pipeline step)."""

    world: WorldState
    image_png: bytes
    annotated_png: bytes | None = None
    flags: dict[str, list[str]] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


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


class CameraSource:
    """camera: a `perception.camera.Camera`; pipeline: a `perception.pipeline.Pipeline`; robot: the
    arm's measured state (joints, held object), which perception does not estimate. `last_annotated`
    keeps the latest labelled image, also when a round failed; `out_dir`: the run folder the perceive
    subtree writes it into (None: not written)."""

    name = "camera"

    def __init__(self, camera, pipeline, robot: Callable[[], RobotState | None] = lambda: None) -> None:
        from perception.tracker import Tracker

        self.camera, self.pipeline, self._robot = camera, pipeline, robot
        self.tracker = Tracker()
        self.last_annotated: bytes | None = None
        self.out_dir = None

    def observe(self) -> Observation:
        from perception.draw import annotate

        try:
            frame = self.camera.capture()
        except OSError as exc:
            raise PerceptionError(f"the camera gave no frame: {exc}") from None
        res = self.pipeline.perceive(frame)
        if res.failure:
            self.last_annotated = annotate(frame, {}, note=f"perception failed: {res.failure}")
            raise PerceptionError(res.failure)
        robot = self._robot()
        unlabelled = {n for n, o in res.objects.items() if o.source == "colour"}
        tracked = self.tracker.update({n: o.state for n, o in res.objects.items()}, unlabelled, res.unmeasured,
                                      robot.held if robot else None, {n: o.flags for n, o in res.objects.items()})
        flags = {n: f for n, f in tracked.flags.items() if f}
        note = f"missing: {', '.join(tracked.missing)}" if tracked.missing else ""
        self.last_annotated = annotate(frame, tracked.states, flags, note)
        world = WorldState(objects=tracked.states, robot=robot, source=self.name)
        return Observation(world, _png(frame.rgb), self.last_annotated, flags, tracked.kept, tracked.missing, res.timings)


class SimStateSource:
    """Reads the simulator's ground truth (`--perception sim-state`) and renders the scene image."""

    name = "sim-state"

    def __init__(self, world: object, held: Callable[[], str | None] = lambda: None) -> None:
        self.world = world
        self._held = held

    def observe(self) -> Observation:
        from sim.camera import render

        frame = render(self.world.cid)
        return Observation(self.world.ground_truth(held=self._held()), _png(frame.rgb))
