"""A confirmed look at the scene: perception can miss an object for a frame, so when a frame lacks an
object that is expected (seen before, or seen in another frame of this look) the executive looks
again, up to `MAX_FRAMES` frames, and keeps an object missed in the latest frame at the pose of the
latest frame that saw it (flagged). Objects no frame saw stay missing: the caller decides."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from owl_bt.state import WorldState

MAX_FRAMES = 3
KEPT_FLAG = "missed in the latest frame: kept from an earlier one"


def confirmed_observation(
    perception: Any, expected: Iterable[str] = (), first_look: bool = False
) -> tuple[Any, int]:
    """(observation, frames taken). `expected`: object names that should be there; `first_look`:
    nothing is known yet, so a second frame confirms the first. Raises what `observe()` raises."""
    want = set(expected)
    frames = [perception.observe()]
    while len(frames) < MAX_FRAMES:
        seen = set(frames[-1].world.objects)
        union = set().union(*(set(f.world.objects) for f in frames))
        if not ((first_look and len(frames) == 1) or not (want | union) <= seen):
            break
        frames.append(perception.observe())
    if len(frames) == 1:
        return frames[0], 1
    return _merge(frames), len(frames)


def _merge(frames: list[Any]) -> Any:
    latest = frames[-1]
    objects = dict(latest.world.objects)
    flags = {k: list(v) for k, v in (getattr(latest, "flags", None) or {}).items()}
    kept = list(getattr(latest, "kept", []) or [])
    for frame in reversed(frames[:-1]):
        for name, obj in frame.world.objects.items():
            if name not in objects:
                objects[name] = obj
                flags[name] = [*flags.get(name, []), KEPT_FLAG]
                kept.append(name)
    missing = [n for n in (getattr(latest, "missing", []) or []) if n not in objects]
    w = latest.world
    world = WorldState(objects, w.robot, w.source)
    fields = {"world": world}
    for name, value in (("flags", flags), ("kept", kept), ("missing", missing)):
        if hasattr(latest, name):
            fields[name] = value
    return replace(latest, **fields)
