"""Positive evidence that a place is filled (`perception.vacancy.filled_share`): the depth readings
over a box, taken back into the world, lie inside it. Real renderer, real depth."""

from __future__ import annotations

import math
from dataclasses import replace

from owl_bt.episode import sim_camera_pipeline
from perception.tracker import above_rim
from perception.vacancy import seen_empty, seen_filled
from tests.support.worlds import world_with


def test_a_place_is_seen_filled_where_a_thing_stands_and_not_over_the_bare_table():
    world = world_with(
        ("mug", (0.45, 0.15, 0.045, 0.0, 0.0, 0.0)),
        ("knife", (0.452, 0.15, 0.11, 0.0, math.pi / 2, 0.0)),
    )
    try:
        world.settle(1.0)
        truth = world.object_states()
        frame = sim_camera_pipeline(world, seed=0)[0].capture()
        part = above_rim(truth["knife"], truth)  # the knife's part above the mug's rim
        assert seen_filled(part, frame) and not seen_empty(part, frame)
        beside = replace(part, pose=replace(part.pose, y=part.pose.y - 0.15))  # over the table
        assert not seen_filled(beside, frame) and seen_empty(beside, frame)
    finally:
        world.close()
