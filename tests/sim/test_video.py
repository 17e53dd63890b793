"""sim.video: frames of the simulated world every period of simulated time, written as a GIF."""

from __future__ import annotations

import io

from PIL import Image, ImageSequence

from owl_bt.state import Pose
from sim import catalog
from sim.video import SIZE, ExecutionVideo
from sim.world import TIME_STEP, SimWorld


def test_a_frame_every_quarter_second_of_physics_and_none_outside_the_block():
    world = SimWorld()
    try:
        world.add(
            catalog.make("apple"), Pose(0.5, 0.0, 0.8)
        )  # falls onto the table: something moves
        with ExecutionVideo(world, period_s=0.25) as video:
            world.step(round(1.0 / TIME_STEP))  # one second of physics
        assert len(video.frames) == 4
        world.step(round(1.0 / TIME_STEP))  # not recording any more
        assert len(video.frames) == 4
        assert video.frames[0].shape == (SIZE[1], SIZE[0], 3)
        assert not (video.frames[0] == video.frames[-1]).all()  # the apple fell between them
        data, frame_ms = video.gif(), video.frame_ms()
    finally:
        world.close()
    gif = Image.open(io.BytesIO(data))
    assert data[:6] == b"GIF89a" and gif.size == SIZE
    durations = [frame.info["duration"] for frame in ImageSequence.Iterator(gif)]
    # 0.25 s of physics a frame, played twice as fast (in 10 ms steps); Pillow merges a still frame
    # into the one before it, adding up their durations
    assert frame_ms == 120 and gif.info["loop"] == 0
    assert sum(durations) == 4 * frame_ms and 2 <= len(durations) <= 4


def test_no_physics_no_video():
    world = SimWorld()
    try:
        with ExecutionVideo(world) as video:
            pass
    finally:
        world.close()
    assert video.gif() is None


def test_frames_are_recorded_during_the_run_and_drawn_after_it():
    world = SimWorld()
    try:
        world.add(catalog.make("apple"), Pose(0.5, 0.0, 0.8))
        with ExecutionVideo(world, period_s=0.25) as video:
            world.step(round(1.0 / TIME_STEP))
        assert len(video.records) == 4 and video.render_s == 0.0  # nothing drawn while stepping
        fell = video.records[0].poses[1][0][2] - video.records[-1].poses[1][0][2]
        assert fell > 0.05  # the apple's height went down between the first and last record
    finally:
        world.close()
    frames = video.frames  # drawn now, with the world gone
    assert len(frames) == 4 and video.render_s > 0.0
    assert not (frames[0] == frames[-1]).all()
