"""`owl-bt record`: capture RGB-D frames from a camera source into a folder that
`--camera recorded:<folder>` replays (format: `perception.recorded`). From `sim`, the frames are
the head camera's view of a task's (or a scene file's) scene — RGB and depth only, no labels.

Exit codes: 0 written, 2 a usage error (a bad option, a camera that cannot be opened, a folder
that exists and is not empty). The folder appears whole or not at all."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import typer

from owl_bt.cli.base import OwlCommand, app, fail, out
from owl_bt.errors import OwlError, UsageError
from owl_bt.setup_file import load_setup

MAX_FRAMES = 10_000


@app.command(cls=OwlCommand)
def record(
    folder: str = typer.Argument(..., metavar="FOLDER", help="The folder to write (new or empty)."),
    camera: str = typer.Option(
        "sim", "--camera", metavar="SOURCE", help="sim, realsense or recorded:<folder>."
    ),
    frames: int = typer.Option(1, "--frames", "-n", help=f"Frames to capture (1 to {MAX_FRAMES})."),
    every: float = typer.Option(
        0.0, "--every", metavar="S", help="Seconds between captures (a real camera; default 0)."
    ),
    task: str = typer.Option("berry1", "--task", "-t", metavar="TASK", help="sim: the scene."),
    scene: str | None = typer.Option(
        None, "--scene", metavar="FILE", help="sim: your own scene file instead of a task's."
    ),
    seed: int = typer.Option(0, "--seed", "-s", help="sim: the scene's seed (≥ 0)."),
    robot: str = typer.Option("ur5e", "--robot", metavar="ROBOT", help="sim: the arm in view."),
) -> None:
    """Capture RGB-D frames (RGB PNG, 16-bit depth PNG in mm, intrinsics/extrinsics JSON)."""
    try:
        written = _record(folder, camera, frames, every, task, scene, seed, robot)
    except OwlError as exc:
        raise fail(exc) from None
    out.print(f"recorded {frames} frame{'s' if frames != 1 else ''} from {camera} into {written}")


def _record(
    folder: str,
    camera: str,
    frames: int,
    every: float,
    task: str,
    scene: str | None,
    seed: int,
    robot: str,
) -> Path:
    from perception.camera_spec import parse_camera
    from perception.recorded import write_frame

    spec = parse_camera(camera)
    if not 1 <= frames <= MAX_FRAMES:
        raise UsageError(f"--frames must be from 1 to {MAX_FRAMES}, got {frames}")
    if not 0 <= every <= 3600:
        raise UsageError(f"--every must be from 0 to 3600 seconds, got {every!r}")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more, got {seed}")
    if not folder.strip():
        raise UsageError("FOLDER is empty; give a folder, e.g. recordings/table1")
    dest = Path(folder)
    if dest.is_symlink() and not dest.exists():  # (a loop too; the folder was renamed onto it)
        raise UsageError(f"{dest} is a symbolic link to nothing; give a new folder")
    given, dest = dest, Path(os.path.realpath(dest))  # a link to an empty folder: fill that folder
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(f"{given} exists and is not an empty folder; give a new one")
    if (
        spec.kind == "recorded"
        and spec.folder is not None
        and os.path.realpath(spec.folder) == os.path.realpath(dest)  # (resolve() raises on a loop)
    ):
        raise UsageError("the recorded source and FOLDER are the same folder")
    partial = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    try:
        partial.mkdir(parents=True)
    except OSError as exc:
        raise UsageError(f"cannot make {given}: {exc.strerror}") from None
    try:
        with _opened(spec, task, scene, seed, robot) as opened:
            for i in range(frames):
                if i and every:
                    time.sleep(every)
                try:
                    frame = opened.camera.capture()
                except OSError as exc:
                    raise UsageError(f"the camera gave no frame: {exc}") from None
                write_frame(partial, i, frame, opened.arm())
        try:
            if dest.exists():
                dest.rmdir()
            partial.rename(dest)
        except OSError as exc:  # made or filled meanwhile, or replaced by a file or link
            raise UsageError(f"cannot make {given}: {exc.strerror}") from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return given


class _opened:
    """The camera a spec names (`camera`), opened on entry and closed (and its simulator too) on
    exit; `arm()` the simulated arm's state each frame is written with."""

    def __init__(self, spec, task: str, scene: str | None, seed: int, robot: str) -> None:
        self.spec, self.task, self.scene, self.seed, self.robot = spec, task, scene, seed, robot
        self.world = None
        self.camera = None

    def arm(self):
        """The simulated arm's state (a RobotState), or None without a simulator."""
        from owl_bt.state import RobotState

        if self.world is None:
            return None
        r = self.world.robot
        return RobotState(tuple(r.arm_q()), r.opening(), None, r.spec.name)

    def __enter__(self):
        from perception.camera_spec import open_camera

        extrinsics = _setup_pose() if self.spec.kind == "realsense" else None
        try:
            self.camera = open_camera(self.spec, sim=self._sim, extrinsics=extrinsics)
        except OSError as exc:
            self._close_world()
            raise UsageError(str(exc)) from None
        return self

    def __exit__(self, *exc) -> None:
        close = getattr(self.camera, "close", None)
        if close is not None:
            close()
        self._close_world()

    def _sim(self):
        from perception.camera import SimCamera
        from sim import tasks
        from sim.camera import render_head
        from sim.robot import robot_spec
        from sim.scene_file import load_scene
        from sim.world import SimWorld

        try:
            name = robot_spec(self.robot).name
        except KeyError as exc:
            raise UsageError(str(exc.args[0])) from None
        built = load_scene(Path(self.scene)) if self.scene is not None else tasks.get(self.task)
        self.world = SimWorld(robot=name)
        try:
            built.build(self.world, self.seed)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"the scene cannot be built: {exc}") from None
        self.world.settle(0.3)
        cid = self.world.cid
        return SimCamera(lambda: render_head(cid), dict, seed=self.seed)

    def _close_world(self) -> None:
        if self.world is not None:
            self.world.close()
            self.world = None


def _setup_pose():
    """A RealSense's camera→world from the setup file (`owl_bt.episode.camera_pose`'s rule), or
    None (identity) without its [camera] extrinsics."""
    from owl_bt.setup_file import world_from_table
    from sim.robot import robot_spec

    setup = load_setup()
    if setup.camera is None:
        return None
    robot = setup.robot
    mount = robot_spec(robot.model if robot else "ur5e").mount
    base = robot.base_pose if robot else (0.0,) * 6
    return world_from_table(base, mount) @ setup.camera.matrix()
