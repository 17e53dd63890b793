"""Positive evidence that a place is filled (`perception.vacancy.filled_share`): the depth readings
over a box, taken back into the world, lie inside it. Real renderer, real depth."""

from __future__ import annotations

from dataclasses import replace

from perception.tracker import above_rim
from perception.vacancy import seen_empty, seen_filled


def test_a_place_is_seen_filled_where_a_thing_stands_and_not_over_the_bare_table(standing_in_mug):
    _, truth, camera = standing_in_mug("knife")
    frame = camera.capture()
    part = above_rim(truth["knife"], truth)  # the knife's part above the mug's rim
    assert seen_filled(part, frame) and not seen_empty(part, frame)
    beside = replace(part, pose=replace(part.pose, y=part.pose.y - 0.15))  # over the table
    assert not seen_filled(beside, frame) and seen_empty(beside, frame)
