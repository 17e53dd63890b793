"""`owl-bt calibrate`: the camera's pose from AprilTags (tag36h11) of known size lying at known
poses on the table, written with its reprojection error into the setup file's [camera] table
(`owl_bt/setup_file.py`). From `sim`, the tags are laid on an empty simulated table and the head
camera's rendered frame is used; the true pose is then known and the error against it printed.

Exit codes: 0 written, 1 too few tags seen, 2 a usage error."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import typer

from owl_bt.cli.base import OwlCommand, app, fail, out
from owl_bt.errors import OwlError, UsageError

# Where `--camera sim` lays its tags when none are given (table frame: x y z m, roll pitch yaw rad).
SIM_LAYOUT = {
    0: (0.40, 0.25, 0.0005, 0.0, 0.0, 0.0),
    1: (0.40, -0.25, 0.0005, 0.0, 0.0, 0.5),
    2: (0.72, 0.25, 0.0005, 0.0, 0.0, 1.0),
    3: (0.72, -0.25, 0.0005, 0.0, 0.0, -0.4),
    4: (0.56, 0.0, 0.0005, 0.0, 0.0, 0.2),
}
MAX_RMS_PX = 2.0  # a fit worse than this is refused: a tag's pose or size is not what was said


@app.command(cls=OwlCommand)
def calibrate(
    camera: str = typer.Option(
        "sim", "--camera", metavar="SOURCE", help="sim, realsense or recorded:<folder>."
    ),
    tag_size: float = typer.Option(
        0.08, "--tag-size", metavar="M", help="The black square's edge, metres (default 0.08)."
    ),
    tags: list[str] = typer.Option(
        [],
        "--tag",
        metavar="ID=X,Y,Z,ROLL,PITCH,YAW",
        help="A tag36h11 tag's pose in the table frame (m, rad), printed face up at yaw 0 with "
        "its top edge towards +y; repeat for each tag (sim default: five tags over the table).",
    ),
    setup: str | None = typer.Option(
        None,
        "--setup",
        metavar="FILE",
        help="The setup file to write [camera] into (default $OWL_BT_CONFIG or ./owl-bt.toml).",
    ),
) -> None:
    """Find AprilTags of known pose and write the camera's extrinsics into the setup file."""
    try:
        _calibrate(camera, tag_size, tags, setup)
    except OwlError as exc:
        raise fail(exc) from None


def _calibrate(camera: str, tag_size: float, tag_args: list[str], setup: str | None) -> None:
    from owl_bt.setup_file import load_setup, setup_path, writable_setup, write_camera
    from perception.apriltag import FACE_UP, find_tags, solve_camera
    from perception.camera_spec import parse_camera
    from sim.frames import pose_matrix

    spec = parse_camera(camera)
    if not (math.isfinite(tag_size) and 0.01 <= tag_size <= 1.0):
        raise UsageError(f"--tag-size must be from 0.01 to 1 m, got {tag_size!r}")
    layout = _parse_tags(tag_args) or (SIM_LAYOUT if spec.kind == "sim" else {})
    if not layout:
        raise UsageError("say where the tags lie: --tag ID=X,Y,Z,ROLL,PITCH,YAW (one per tag)")
    path = Path(setup) if setup is not None else setup_path()
    load_setup(path)  # a malformed setup file is refused before anything is captured
    writable_setup(path)  # and one that cannot be written
    frame, truth = _capture(spec, tag_size, layout)
    poses = {i: pose_matrix(p) @ FACE_UP for i, p in layout.items()}
    sightings = find_tags(frame.rgb, frame.intrinsics, tag_size)
    try:
        extrinsics, rms, used = solve_camera(sightings, poses, tag_size, frame.intrinsics)
    except ValueError:
        seen = ", ".join(str(s.id) for s in sightings) or "none"
        raise OwlError(
            f"no tag of the given poses is in view (tags seen: {seen}); "
            "check the tags' ids and that the camera sees the table"
        ) from None
    if rms > MAX_RMS_PX:
        raise OwlError(
            f"the tags do not agree with their stated poses (reprojection error {rms:.2f} px > "
            f"{MAX_RMS_PX}); check --tag poses and --tag-size"
        )
    write_camera(path, extrinsics, rms, str(spec) if spec.kind != "sim" else None)
    line = f"calibrated from {used} tag{'s' if used != 1 else ''}: reprojection error {rms:.3f} px"
    if truth is not None:
        r = extrinsics[:3, :3].T @ truth[:3, :3]
        deg = math.degrees(math.acos(float(np.clip((np.trace(r) - 1) / 2, -1, 1))))
        mm = float(np.linalg.norm(extrinsics[:3, 3] - truth[:3, 3])) * 1000
        line += f"; against the simulated camera's true pose {mm:.1f} mm, {deg:.2f}°"
    out.print(f"{line}; [camera] written to {path}", markup=False)


def _parse_tags(args: list[str]) -> dict[int, tuple[float, ...]]:
    out: dict[int, tuple[float, ...]] = {}
    for a in args:
        ident, sep, rest = a.partition("=")
        try:
            tag_id = int(ident)
            values = tuple(float(v) for v in rest.split(","))
        except ValueError:
            raise UsageError(
                f"--tag {a!r}: give ID=X,Y,Z,ROLL,PITCH,YAW, e.g. 0=0.4,0.2,0,0,0,0"
            ) from None
        if not sep or len(values) != 6 or not all(math.isfinite(v) for v in values) or tag_id < 0:
            raise UsageError(f"--tag {a!r}: give ID=X,Y,Z,ROLL,PITCH,YAW, e.g. 0=0.4,0.2,0,0,0,0")
        if tag_id in out:
            raise UsageError(f"--tag {tag_id} is given twice")
        out[tag_id] = values
    return out


def _capture(spec, tag_size: float, layout: dict):
    """(one frame, the true camera→table pose or None) from the camera `spec` names."""
    from perception.camera import OPENGL_TO_OPTICAL
    from perception.camera_spec import open_camera

    if spec.kind != "sim":
        try:
            cam = open_camera(spec)
        except OSError as exc:
            raise UsageError(str(exc)) from None
        try:
            return cam.capture(), None
        except OSError as exc:
            raise UsageError(f"the camera gave no frame: {exc}") from None
        finally:
            getattr(cam, "close", lambda: None)()
    from perception.camera import RGBDFrame
    from perception.sim_tag import add_tag
    from sim.camera import render_head
    from sim.world import SimWorld

    world = SimWorld()
    try:
        for tag_id, pose in layout.items():
            add_tag(world.cid, tag_size, pose, tag_id)
        f = render_head(world.cid)
    finally:
        world.close()
    truth = np.asarray(f.extrinsics) @ OPENGL_TO_OPTICAL
    depth = np.where(np.isfinite(f.depth), f.depth, 0.0).astype(np.float32)
    return RGBDFrame(f.rgb, depth, f.intrinsics, truth), truth
