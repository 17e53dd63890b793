"""Positive evidence that a place is filled (`perception.vacancy.filled_share`, `filled_along`): the
depth readings over a box, or along a thin thing's axis, taken back into the world, lie inside it or
on it. Real renderer, real depth."""

from __future__ import annotations

from dataclasses import replace

from perception.tracker import above_rim
from perception.vacancy import filled_along, seen_empty, seen_filled


def test_a_place_is_seen_filled_where_a_thing_stands_and_not_over_the_bare_table(standing_in_mug):
    _, truth, camera = standing_in_mug("knife")
    frame = camera.capture()
    part = above_rim(truth["knife"], truth)  # the knife's part above the mug's rim
    assert seen_filled(part, frame) and not seen_empty(part, frame)
    beside = replace(part, pose=replace(part.pose, y=part.pose.y - 0.15))  # over the table
    assert not seen_filled(beside, frame) and seen_empty(beside, frame)


def test_a_thin_things_axis_is_seen_along_it_and_not_beside_it_nor_along_a_bottle(standing_in_mug):
    _, truth, camera = standing_in_mug("knife", beside="mustard_bottle")
    frame = camera.capture()
    part = above_rim(truth["knife"], truth)  # the knife's part above the mug's rim
    lo, hi = part.aabb()
    x, y = part.pose.x, part.pose.y
    radius = 0.006
    share, pixels, top = filled_along(frame, (x, y, lo[2] + 0.015), (x, y, hi[2]), radius)
    assert share > 0.85 and pixels >= 5 and top > hi[2] - 0.02
    beside = filled_along(frame, (x, y + 0.05, lo[2] + 0.015), (x, y + 0.05, hi[2]), radius)
    assert beside[0] < 0.2  # 5 cm beside it: air
    bottle = truth["mustard_bottle"]  # down the middle of its face towards the camera: not thin
    blo, bhi = bottle.aabb()
    face = filled_along(
        frame,
        (bhi[0] - 0.005, bottle.pose.y, blo[2] + 0.05),
        (bhi[0] - 0.005, bottle.pose.y, bhi[2] - 0.02),
        radius,
    )
    assert face[0] < 0.2
    known = filled_along(
        frame, (x, y, lo[2] + 0.015), (x, y, hi[2]), radius, [truth["knife"].aabb()]
    )
    assert known[0] < 0.2  # readings on a thing known to be there are not of this one
