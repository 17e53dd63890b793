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

While the run goes on, a frame is only *recorded*: the arm's joint angles and every body's pose, read
from the world (microseconds). The frames are drawn from the records when they are first asked for
(`frames`, `gif()`), after the run: drawing them as they came made the robot's own loop wait on the
video (about 0.1 s a frame on a loaded 2-core machine, four frames per second of simulated time).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Record:
    """One frame's worth of the world: the arm's joint angles (rad, every joint in index order) and
    each recorded body's base pose ((x, y, z) m, quaternion xyzw; world frame), in `_Layout` order."""

    joints: tuple[float, ...]
    poses: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...]


@dataclass(frozen=True)
class _Layout:
    """What the outline twin is built from, read from the world once: the arm's URDF and base pose,
    and the (world body id, catalogue spec) of the table and of each object."""

    urdf: str
    base: tuple[tuple[float, ...], tuple[float, ...]]
    arm_body: int
    joints: tuple[int, ...]
    bodies: tuple[tuple[int, object], ...]

    @classmethod
    def of(cls, world) -> _Layout:
        robot, src = world.robot, world.cid
        specs = [(world.table, catalog.table()), *((b.id, b.spec) for b in world.bodies.values())]
        return cls(
            urdf=robot.spec.urdf(),
            base=p.getBasePositionAndOrientation(robot.body, physicsClientId=src),
            arm_body=robot.body,
            joints=tuple(range(p.getNumJoints(robot.body, physicsClientId=src))),
            bodies=tuple(specs),
        )

    def record(self, src: int) -> _Record:
        """The world's state now (pybullet client `src`)."""
        states = p.getJointStates(self.arm_body, self.joints, physicsClientId=src)
        poses = tuple(
            p.getBasePositionAndOrientation(body, physicsClientId=src) for body, _ in self.bodies
        )
        return _Record(tuple(st[0] for st in states), poses)


class ExecutionVideo:
    """Records frames of `world` (a `sim.world.SimWorld`) while installed on it.

    Use as a context manager around the run: `with ExecutionVideo(world) as video: …`, then
    `video.gif()` for the bytes of the GIF (None when no frame was taken). `frames`: H×W×3 uint8
    images at `size` (width, height) pixels, one every `period_s` seconds of simulated time, drawn
    from the records on first access (the world need not exist any more by then)."""

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
        self.records: list[_Record] = []
        self._frames: list[np.ndarray] = []  # drawn from records[:len(_frames)]
        self._layout: _Layout | None = None
        self.render_s = 0.0  # wall-clock seconds spent drawing frames (after the run)
        self.record_s = 0.0  # wall-clock seconds spent recording frames (during the run)

    def __enter__(self) -> ExecutionVideo:
        self._layout = _Layout.of(self.world)
        self.world.add_step_watcher(self.every, self.capture)
        return self

    def __exit__(self, *exc: object) -> None:
        self.world.remove_step_watcher(self.capture)

    def capture(self) -> None:
        """Record one frame now (drawn later, see `frames`)."""
        import time

        t0 = time.perf_counter()
        self.records.append(self._layout.record(self.world.cid))
        if len(self.records) > MAX_FRAMES:  # a long run: keep every other frame, twice the period
            self.records = self.records[::2]
            self._frames = []
            self.every *= 2
            self.period_s *= 2
            self.world.remove_step_watcher(self.capture)
            self.world.add_step_watcher(self.every, self.capture)
        self.record_s += time.perf_counter() - t0

    @property
    def frames(self) -> list[np.ndarray]:
        """The recorded frames as images, drawn now from the outline twin if not drawn yet."""
        import time

        if len(self._frames) < len(self.records):
            t0 = time.perf_counter()
            width, height = self.size
            twin = _OutlineTwin(self._layout)
            try:
                for rec in self.records[len(self._frames) :]:
                    twin.show(rec)
                    self._frames.append(render(twin.cid, width, height, EYE, TARGET, FOV_DEG).rgb)
            finally:
                twin.close()
            self.render_s += time.perf_counter() - t0
        return list(self._frames)

    def frame_ms(self) -> int:
        """How long a frame shows in the GIF, ms: `period_s` sped up by `playback`, in the format's
        steps of 10 ms, at least 20 ms."""
        return 10 * max(2, round(100 * self.period_s / self.playback))

    def gif(self) -> bytes | None:
        """The frames as a looping animated GIF (a shared 64-colour palette), or None without frames."""
        if not self.records:
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
    """A DIRECT pybullet client with the table and objects of `layout` and the arm drawn as its
    collision shapes; `show(record)` puts them where the record has them. No physics runs here."""

    def __init__(self, layout: _Layout) -> None:
        self.cid = connect(False)
        pos, orn = layout.base
        with quiet():
            self.robot = p.loadURDF(
                collision_as_visual(layout.urdf),
                pos,
                orn,
                useFixedBase=True,
                physicsClientId=self.cid,
            )
        self.joints = layout.joints
        for link in (-1, *self.joints):
            p.changeVisualShape(self.robot, link, rgbaColor=ARM_RGBA, physicsClientId=self.cid)
        self.bodies = [spawn(self.cid, spec, Pose(0, 0, -5)) for _, spec in layout.bodies]

    def show(self, record: _Record) -> None:
        cid = self.cid
        for j, angle in zip(self.joints, record.joints, strict=True):
            p.resetJointState(self.robot, j, angle, physicsClientId=cid)
        for twin, (pos, orn) in zip(self.bodies, record.poses, strict=True):
            p.resetBasePositionAndOrientation(twin, pos, orn, physicsClientId=cid)

    def close(self) -> None:
        p.disconnect(physicsClientId=self.cid)
