"""The bounds generated checkers test object centres against, recorded while they run (for
constraint-guided sampling, `owl_bt.tamp.guidance`): the codebook reports every centre it hands out
(`note_centre`) and every bounds test made on one (`note_test`); the sandbox worker's findings come
back through `note_bounds`. Light on purpose: the checker sandbox's worker imports it.

Bounds are 6-D pose bounds `((x, y, z, roll, pitch, yaw) lower, (…) upper)`: metres and radians,
world frame.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

Bounds = tuple[tuple[float, ...], tuple[float, ...]]

# While `record_bounds()` is active: ids of poses returned by get_obj_center → object names, and the
# (name, bounds) pairs that position_within_bounds was asked about.
_RECORDER: contextvars.ContextVar[tuple[dict, list] | None] = contextvars.ContextVar(
    "owl_bounds", default=None
)


@contextlib.contextmanager
def record_bounds() -> Iterator[list[tuple[str, Bounds]]]:
    """Within this block, every `position_within_bounds(get_obj_center(..., name), bounds)` a
    checker evaluates is recorded as (name, bounds): the region that checker accepts for that
    object, which a sampler can draw from directly."""
    found: list[tuple[str, Bounds]] = []
    token = _RECORDER.set(({}, found))
    try:
        yield found
    finally:
        _RECORDER.reset(token)


def recording() -> bool:
    """Is a `record_bounds()` block active in this context?"""
    return _RECORDER.get() is not None


def note_bounds(name: str, bounds: Bounds) -> None:
    """Enter (name, bounds) in the active `record_bounds()` block, if any: the regions a checker
    evaluated in the sandbox worker tested."""
    rec = _RECORDER.get()
    if rec is not None:
        rec[1].append((name, bounds))


def note_centre(name: str, pose: tuple[float, ...]) -> None:
    """The codebook handed out `pose` as `name`'s centre (recorded only inside `record_bounds`)."""
    rec = _RECORDER.get()
    if rec is not None:
        rec[0][id(pose)] = (name, pose)


def note_test(pose: object, bounds: Bounds) -> None:
    """A checker tested `pose` against `bounds` (recorded when `pose` is a centre noted above)."""
    rec = _RECORDER.get()
    if rec is not None and id(pose) in rec[0]:
        rec[1].append((rec[0][id(pose)][0], bounds))
