"""The report's final-state table (report.md showed before/after pictures but said nowhere where
each object ended, or that the mug had tipped over): where each movable object ended, how far it moved, its
tilt, and flags. Real simulator states; the table is read back from a real run's report."""

from __future__ import annotations

import math

from owl_bt.report.final_state import final_rows, markdown
from owl_bt.state import Pose
from tests.support.worlds import settled_state, world_with


def _scene():
    world = world_with(
        ("mug", (0.55, 0.15, 0.05)),
        ("apple", (0.45, -0.1, 0.04)),
        ("bowl", (0.6, -0.2, 0.03)),
        ("golf_ball", (0.4, 0.2, 0.021)),
    )
    try:
        return world.ground_truth()
    finally:
        world.close()


def _moved(state, **poses):
    objects = dict(state.objects)
    for name, pose in poses.items():
        objects[name] = objects[name].moved(pose)
    return type(state)(objects=objects, robot=state.robot, source=state.source)


def test_each_object_says_where_it_ended_and_what_to_look_at():
    start = _scene()
    bowl, mug = start.get("bowl").pose, start.get("mug").pose
    lo = start.get("bowl").aabb()[0][2]
    end = _moved(
        start,
        apple=Pose(bowl.x, bowl.y, lo + 0.045),
        mug=Pose(mug.x, mug.y, 0.04, math.pi / 2, 0.0, 0.0),
        golf_ball=Pose(0.4, 0.6, -0.4),
    )
    rows = {r["object"]: r for r in final_rows(start, end)}
    assert set(rows) == {"mug", "apple", "bowl", "golf_ball"}  # movable objects only: not the table
    assert (
        rows["apple"]["where"] == "in the bowl"
        and rows["apple"]["flags"] == []
        and rows["apple"]["moved_cm"] > 10
    )
    assert (
        rows["mug"]["where"] == "on the table"
        and rows["mug"]["tilt_deg"] == 90
        and rows["mug"]["flags"] == ["tipped over"]
    )
    assert rows["golf_ball"]["where"] == "off the table" and rows["golf_ball"]["flags"] == [
        "fell off the table"
    ]
    assert rows["golf_ball"]["tilt_deg"] is None  # a ball's turn does not matter
    assert (
        rows["bowl"]["moved_cm"] == 0.0
        and rows["bowl"]["tilt_deg"] == 0
        and rows["bowl"]["flags"] == []
    )
    held = {r["object"]: r for r in final_rows(start, end, holding="mug")}
    assert held["mug"]["where"] == "in the gripper" and held["mug"]["flags"] == ["still held"]
    md = "\n".join(markdown(list(rows.values()), "the simulator"))
    assert (
        "| apple | in the bowl |" in md
        and "- the golf ball: fell off the table" in md
        and "- the mug: tipped over" in md
    )


def test_a_fork_stood_up_in_a_mug_is_in_it_not_tipped_over():
    # (Mug1 succeeded, and the report said "Look at: the fork: tipped over")
    world = world_with(("mug", (0.55, 0.15, 0.045)), ("fork", (0.4, -0.1, 0.007)))
    try:
        start = world.ground_truth()
    finally:
        world.close()
    mug = start.get("mug").pose
    end = _moved(start, fork=Pose(mug.x, mug.y, 0.097, 0.0, math.pi / 2 - 0.05, 0.0))
    rows = {r["object"]: r for r in final_rows(start, end)}
    assert (
        rows["fork"]["where"] == "in the mug"
        and rows["fork"]["tilt_deg"] > 80
        and rows["fork"]["flags"] == []
    )
    fallen = {
        r["object"]: r
        for r in final_rows(
            start, _moved(start, fork=Pose(0.4, -0.1, 0.012, math.pi / 2, 0.0, 0.0))
        )
    }
    assert fallen["fork"]["flags"] == ["tipped over"]  # on its edge on the table: still pointed out


def test_a_block_on_another_face_stands_and_an_upside_down_mug_is_said_so():
    """A correct tower of cubes was reported 'tipped over' (a cube turned 90° rests on another face),
    and a mug turned upside down on request was too."""
    start = settled_state(("block", (0.5, 0.1, 0.03)), ("mug", (0.55, -0.15, 0.05)))
    block, mug = start.get("block").pose, start.get("mug").pose
    end = _moved(
        start,
        block=Pose(block.x, block.y, block.z, math.pi / 2, 0.0, 0.0),
        mug=Pose(mug.x, mug.y, mug.z, math.pi, 0.0, 0.0),
    )
    rows = {r["object"]: r for r in final_rows(start, end)}
    assert rows["block"]["tilt_deg"] == 90 and rows["block"]["flags"] == []
    assert rows["mug"]["tilt_deg"] == 180 and rows["mug"]["flags"] == ["upside down"]
    tipped = _moved(start, block=Pose(block.x, block.y, block.z, math.pi / 4, 0.0, 0.0))
    assert {r["object"]: r for r in final_rows(start, tipped)}["block"]["flags"] == ["tipped over"]


def test_a_bowl_set_on_a_plate_is_on_the_plate():
    # "put the red bowl on the plate": the run was right, and the table said "on the table" (the flat
    # plate under it was read as lying in the bowl)
    start = settled_state(("plate", (0.55, -0.16, 0.008)), ("bowl", (0.55, 0.18, 0.03)))
    plate = start.get("plate")
    end = settled_state(
        ("plate", (plate.pose.x, plate.pose.y, 0.008)),
        ("bowl", (plate.pose.x, plate.pose.y, plate.aabb()[1][2] + 0.031)),
    )
    rows = {r["object"]: r for r in final_rows(start, end)}
    assert rows["bowl"]["where"] == "on the plate", rows["bowl"]
    assert rows["plate"]["where"] == "on the table"
