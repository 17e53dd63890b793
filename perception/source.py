"""Perception sources: where the perceive subtree gets its `WorldState` and scene image.

`SimStateSource` reads object poses and geometry from the simulator's ground truth. It is the
debugging source of this build; the RGB-D pipeline (camera → open3d → objects) replaces it as the
default behind the same `PerceptionSource` protocol.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from owl_bt.state import WorldState


@dataclass
class Observation:
    """A perceived state and the RGB image (PNG bytes) it came from."""

    world: WorldState
    image_png: bytes


class PerceptionSource(Protocol):
    name: str

    def observe(self) -> Observation:
        """A fresh observation of the scene; raises OwlError with a one-line reason on failure."""
        ...


class SimStateSource:
    """Reads the simulator's ground truth (`--perception sim-state`) and renders the scene image."""

    name = "sim-state"

    def __init__(self, world: object, held: Callable[[], str | None] = lambda: None) -> None:
        self.world = world
        self._held = held

    def observe(self) -> Observation:
        from sim.camera import render

        frame = render(self.world.cid)
        buf = io.BytesIO()
        from PIL import Image

        Image.fromarray(frame.rgb).save(buf, format="PNG")
        return Observation(self.world.ground_truth(held=self._held()), buf.getvalue())
