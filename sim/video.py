"""A short video of a simulated run: small frames from across the table (the side `initial.png` and
`final.png` are seen from, a little wider so that the whole arm is in view) taken every `period_s` of
simulated time while physics steps, written as an animated GIF with Pillow.

The frames are drawn from an *outline twin*: a pybullet client of its own holding the same objects and
the arm drawn as its collision shapes (`sim.robot.collision_as_visual`), set to the world's poses and
joint angles before each frame. pybullet's CPU renderer spends its time on the arm's detailed meshes
(0.52 s a frame with them, 0.05 s without the arm, on a loaded 2-core machine), so the video costs a
fraction of what rendering the world itself would.

Physics steps only while the real world moves (the arm executing, a settle after a step), so the
frames show the execution; perception, model calls and planning take no simulated time.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from sim import catalog
from sim.bullet import connect
from sim.camera import render
from sim.objects import spawn
from sim.quiet import quiet
from sim.robot import collision_as_visual

PERIOD_S = 0.25  # seconds of simulated time between frames
SIZE = (200, 150)  # pixels (width, height) of a frame
# the video's view (m, world frame; vertical degrees): from across the table, the whole arm in view
EYE = (1.25, 0.0, 0.75)
TARGET = (0.45, 0.0, 0.25)
FOV_DEG = 60.0
PLAYBACK = 2.0  # the GIF plays this many times faster than real time
MAX_FRAMES = 1200  # past this (5 minutes of simulated time) every other frame is dropped


class ExecutionVideo:
    """Records frames of `world` (a `sim.world.SimWorld`) while installed on it.

    Use as a context manager around the run: `with ExecutionVideo(world) as video: …`, then
    `video.gif()` for the bytes of the GIF (None when no frame was taken). Frames are H×W×3 uint8
    at `size` (width, height) pixels, one every `period_s` seconds of simulated time."""

    def __init__(
        self,
        world,
        period_s: float = PERIOD_S,
        size: tuple[int, int] = SIZE,
        playback: float = PLAYBACK,
    ) -> None:
        from sim.world import TIME_STEP

        self.world = world
        self.every = max(1, round(period_s / TIME_STEP))  # physics steps between frames
        self.period_s = self.every * TIME_STEP
        self.size = size
        self.playback = playback
        self.frames: list[np.ndarray] = []
        self.render_s = 0.0  # wall-clock seconds spent rendering frames

    def __enter__(self) -> ExecutionVideo:
        self.twin = _OutlineTwin(self.world)
        self.world.add_step_watcher(self.every, self.capture)
        return self

    def __exit__(self, *exc: object) -> None:
        self.world.remove_step_watcher(self.capture)
        self.twin.close()

    def capture(self) -> None:
        """Take one frame now."""
        import time

        t0 = time.perf_counter()
        width, height = self.size
        self.twin.sync()
        self.frames.append(render(self.twin.cid, width, height, EYE, TARGET, FOV_DEG).rgb)
        if len(self.frames) > MAX_FRAMES:  # a long run: keep every other frame, twice the period
            self.frames = self.frames[::2]
            self.every *= 2
            self.period_s *= 2
            self.world.remove_step_watcher(self.capture)
            self.world.add_step_watcher(self.every, self.capture)
        self.render_s += time.perf_counter() - t0

    def frame_ms(self) -> int:
        """How long a frame shows in the GIF, ms: `period_s` sped up by `playback`, in the format's
        steps of 10 ms, at least 20 ms."""
        return 10 * max(2, round(100 * self.period_s / self.playback))

    def gif(self) -> bytes | None:
        """The frames as a looping animated GIF (a shared 64-colour palette), or None without frames."""
        if not self.frames:
            return None
        from PIL import Image

        images = [Image.fromarray(f) for f in self.frames]
        palette = images[len(images) // 2].quantize(colors=64, method=Image.Quantize.MEDIANCUT)
        frames = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
        buf = io.BytesIO()
        frames[0].save(
            buf,
            format="GIF",
            save_all=True,
            append_images=frames[1:],
            duration=self.frame_ms(),
            loop=0,
            optimize=True,
        )
        return buf.getvalue()

    def save(self, path: Path) -> bool:
        """Write the GIF to `path`; False (nothing written) when no frame was taken."""
        data = self.gif()
        if data is None:
            return False
        Path(path).write_bytes(data)
        return True


ARM_RGBA = (0.15, 0.15, 0.17, 1.0)  # the arm's outline, dark grey as the real one


class _OutlineTwin:
    """A DIRECT pybullet client with the world's table and objects and the arm drawn as its collision
    shapes; `sync()` copies the world's body poses and joint angles into it. No physics runs here."""

    def __init__(self, world) -> None:
        self.world = world
        self.cid = connect(False)
        src = world.cid
        robot = world.robot
        pos, orn = p.getBasePositionAndOrientation(robot.body, physicsClientId=src)
        with quiet():
            self.robot = p.loadURDF(
                collision_as_visual(robot.spec.urdf()),
                pos,
                orn,
                useFixedBase=True,
                physicsClientId=self.cid,
            )
        self.joints = range(p.getNumJoints(robot.body, physicsClientId=src))
        for link in (-1, *self.joints):
            p.changeVisualShape(self.robot, link, rgbaColor=ARM_RGBA, physicsClientId=self.cid)
        specs = [(world.table, catalog.table()), *((b.id, b.spec) for b in world.bodies.values())]
        # (world body, twin body); each is put where the world's is by `sync`
        self.bodies = [(body, spawn(self.cid, spec, Pose(0, 0, -5))) for body, spec in specs]
        self.sync()

    def sync(self) -> None:
        src, cid = self.world.cid, self.cid
        states = p.getJointStates(self.world.robot.body, self.joints, physicsClientId=src)
        for j, state in zip(self.joints, states, strict=True):
            p.resetJointState(self.robot, j, state[0], physicsClientId=cid)
        for body, twin in self.bodies:
            pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=src)
            p.resetBasePositionAndOrientation(twin, pos, orn, physicsClientId=cid)

    def close(self) -> None:
        p.disconnect(physicsClientId=self.cid)
