"""Positive evidence that a place is filled (`perception.vacancy.filled_share`, `filled_along`): the
depth readings over a box, or along a thin thing's axis, taken back into the world, lie inside it or
on it. Real renderer, real depth."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from perception.tracker import above_rim
from perception.vacancy import filled_along, seen_empty, seen_filled


def test_a_place_is_seen_filled_where_a_thing_stands_and_not_over_the_bare_table(standing_in_mug):
    _, truth, camera = standing_in_mug("knife")
    frame = camera.capture()
    part = above_rim(truth["knife"], truth)  # the knife's part above the mug's rim
    assert seen_filled(part, frame) and not seen_empty(part, frame)
    beside = replace(part, pose=replace(part.pose, y=part.pose.y - 0.15))  # over the table
    assert not seen_filled(beside, frame) and seen_empty(beside, frame)


def test_a_thin_things_axis_is_seen_filled_along_it_and_not_beside_it(standing_in_mug):
    _, truth, camera = standing_in_mug("knife")
    frame = camera.capture()
    part = above_rim(truth["knife"], truth)
    lo, hi = part.aabb()
    x, y = part.pose.x, part.pose.y
    radius = sorted(truth["knife"].size)[1] / 2
    share, pixels, top = filled_along(frame, (x, y, lo[2] + 0.01), (x, y, hi[2]), radius)
    assert share > 0.8 and pixels >= 5 and top > hi[2] - 0.02
    for dx, dy in ((0.05, 0.0), (0.0, 0.05)):  # 5 cm beside it: air
        beside = filled_along(
            frame, (x + dx, y + dy, lo[2] + 0.01), (x + dx, y + dy, hi[2]), radius
        )
        assert beside[0] < 0.2, (dx, dy)
    # a segment seen end-on falls on few pixels
    eye = np.asarray(frame.extrinsics)[:3, 3]
    towards = (eye - np.array([x, y, hi[2]])) / np.linalg.norm(eye - np.array([x, y, hi[2]]))
    end_on = filled_along(
        frame, np.array([x, y, hi[2]]), np.array([x, y, hi[2]]) + 0.06 * towards, radius
    )
    assert end_on[1] <= 2
