"""Refitting what has not moved: an object whose points lie as they did at its last full shape fit is fitted
again from its latest fit alone (`ModelFitter.refit`), not by the full multi-start search (`ModelFitter.fit`).

Most of a look's cost is the full fit (about 38 ms an object on a loaded machine; a refit takes about
12 ms), and a look while the arm works finds most objects where they were. The refit is
kept only when it scores about as well as the full fit it descends from; otherwise, and whenever the points
moved, the full search runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perception.camera import RGBDFrame
from perception.fit import Fit, ModelFitter

UNMOVED_CENTROID, UNMOVED_SPREAD = (
    0.002,
    0.004,
)  # m: an object's points that moved less lie as they did (`unmoved`)
REFIT_SLACK = 0.0005  # m of fit cost a refit may score above the full fit it descends from (good fits cost ~1 mm)


@dataclass(frozen=True)
class _Last:
    kind: str
    shape: np.ndarray  # `shape_of` the points at the last full fit
    cost: float  # m: that full fit's cost
    fit: Fit  # the latest fit, full or refitted


def shape_of(pts: np.ndarray) -> np.ndarray:
    """Where points (N×3, m, world) lie: (count, centroid (3), 5th and 95th percentile per axis (6))."""
    return np.concatenate(
        [[len(pts)], pts.mean(axis=0), np.percentile(pts, [5, 95], axis=0).ravel()]
    )


def unmoved(before: np.ndarray, now: np.ndarray) -> bool:
    """Points (`shape_of`) that lie as they did: as many within 10 %, the centroid within UNMOVED_CENTROID and each
    percentile within UNMOVED_SPREAD. Measured frame to frame on a still scene with the camera's noise: the
    centroid within 0.2 mm, percentiles within 2.6 mm (a golf ball's few points); a fork whose flat head is
    seen in one frame and not the next moves its percentiles by 8 cm (and is fitted in full)."""
    return (
        abs(now[0] - before[0]) <= 0.1 * before[0]
        and float(np.linalg.norm(now[1:4] - before[1:4])) <= UNMOVED_CENTROID
        and float(np.max(np.abs(now[4:] - before[4:]))) <= UNMOVED_SPREAD
    )


class FitMemory:
    """Each object's last fit, by name, for one camera's stream of frames (a `Pipeline` keeps one)."""

    def __init__(self) -> None:
        self._last: dict[str, _Last] = {}

    def fit(
        self,
        name: str,
        kind: str,
        fitter: ModelFitter,
        pts: np.ndarray,
        frame: RGBDFrame,
        with_scale: bool,
        may_refit: bool,
        full: Callable[[], Fit],
    ) -> tuple[Fit, bool]:
        """(fit, refitted) of object `name` (of `kind`) to `pts` (N×3, m, world) in `frame`: refitted from its
        latest fit when `may_refit`, its points are `unmoved` since its last full fit and the refit costs at most
        REFIT_SLACK more than that one; else `full()` (refitted False), which then becomes the last full fit."""
        last = self._last.get(name)
        shape = shape_of(pts)
        if may_refit and last is not None and last.kind == kind and unmoved(last.shape, shape):
            again = fitter.refit(pts, frame, last.fit, with_scale)
            if again.cost <= last.cost + REFIT_SLACK:
                self._last[name] = _Last(kind, last.shape, last.cost, again)
                return again, True
        fit = full()
        self._last[name] = _Last(kind, shape, fit.cost, fit)
        return fit, False
