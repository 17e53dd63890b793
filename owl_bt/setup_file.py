"""The robot setup file: the real cell's arm and camera, tables `[robot]` and `[camera]` of the
settings file (`$OWL_BT_CONFIG`, else `./owl-bt.toml`; its `[vlm]` table is
`owl_bt.language.settings`'). Read by hardware runs (`--backend kortex|rtde`), `owl-bt record
--camera realsense` and written by `owl-bt calibrate`; a simulated run ignores it. See
docs/hardware.md.

    [robot]
    model = "ur5e"              # ur5e, ur5 (CB3) or kinova-gen3
    ip = "192.168.1.10"
    username = "admin"          # Kortex only; the password in $OWL_BT_ARM_PASSWORD (default admin)
    base_pose = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]   # the arm's base in the table frame: x y z (m), roll pitch yaw (rad)
    speed_scaling = 0.25        # share of the joints' velocity limits, (0, 1]

    [camera]
    source = "realsense"        # sim, realsense or recorded:<folder>
    extrinsics = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]   # camera→table, optical frame, m
    reprojection_error_px = 0.4 # written by owl-bt calibrate
    table_height = 0.0          # the table top's z in the table frame, m

Frames: the table frame is the user's (its origin anywhere on the table top plane or below it, z
up); the world frame owl-bt plans in has the arm's base where the simulated arm stands
(`sim.robot.RobotSpec.mount`). `world_from_table` maps one to the other through `base_pose`.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from pathlib import Path
from typing import Literal

import numpy as np
import pydantic

from owl_bt.errors import UsageError
from sim.frames import pose_matrix

SETUP_MAX_BYTES = 1 << 20
PASSWORD_ENV = "OWL_BT_ARM_PASSWORD"
MODELS = ("ur5e", "ur5", "kinova-gen3")
BACKEND_OF = {"ur5e": "rtde", "ur5": "rtde", "kinova-gen3": "kortex"}


class RobotSetup(pydantic.BaseModel):
    """[robot]: model, ip, username (Kortex), base_pose (x, y, z m; roll, pitch, yaw rad; the base
    in the table frame), speed_scaling in (0, 1]."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)

    model: Literal["ur5e", "ur5", "kinova-gen3"]
    ip: str
    username: str = "admin"
    base_pose: tuple[float, float, float, float, float, float] = (0.0,) * 6
    speed_scaling: float = pydantic.Field(0.25, gt=0, le=1, allow_inf_nan=False)

    @pydantic.field_validator("ip")
    @classmethod
    def _ip(cls, v: str) -> str:
        import ipaddress

        try:
            ipaddress.IPv4Address(v)
        except ValueError:
            raise ValueError(f"{v!r} is not an IPv4 address (e.g. 192.168.1.10)") from None
        return v

    @pydantic.field_validator("base_pose")
    @classmethod
    def _pose(cls, v: tuple) -> tuple:
        if not all(math.isfinite(x) for x in v):
            raise ValueError("must be finite numbers")
        if any(abs(x) > 10 for x in v[:3]) or any(abs(a) > 2 * math.pi for a in v[3:]):
            raise ValueError("x y z within ±10 m and angles within ±2π")
        return v

    @property
    def backend(self) -> str:
        return BACKEND_OF[self.model]

    def password(self, env: dict[str, str] | None = None) -> str:
        """The Kortex password: $OWL_BT_ARM_PASSWORD, else the factory default 'admin'."""
        return (os.environ if env is None else env).get(PASSWORD_ENV) or "admin"


class CameraSetup(pydantic.BaseModel):
    """[camera]: source (`perception.camera_spec`), extrinsics 4×4 camera→table (optical frame, m),
    reprojection_error_px of the calibration that wrote them, table_height (m, table frame)."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)

    source: str = "realsense"
    extrinsics: list[list[float]] | None = None
    reprojection_error_px: float | None = pydantic.Field(None, ge=0, allow_inf_nan=False)
    table_height: float = pydantic.Field(0.0, ge=-5, le=5, allow_inf_nan=False)

    @pydantic.field_validator("source")
    @classmethod
    def _source(cls, v: str) -> str:
        from perception.camera_spec import parse_camera

        try:
            parse_camera(v)
        except UsageError as exc:
            raise ValueError(exc.reason) from None
        return v

    @pydantic.field_validator("extrinsics")
    @classmethod
    def _extrinsics(cls, v: list | None) -> list | None:
        if v is None:
            return v
        if len(v) != 4 or any(len(row) != 4 for row in v):
            raise ValueError("must be a 4×4 matrix of finite numbers")
        m = np.asarray(v, dtype=float)
        if not np.isfinite(m).all():
            raise ValueError("must be a 4×4 matrix of finite numbers")
        if np.abs(m[:3, 3]).max() > 10:
            raise ValueError("its translation must be within ±10 m")
        r = m[:3, :3]
        if not np.allclose(r.T @ r, np.eye(3), atol=1e-3) or np.linalg.det(r) < 0:
            raise ValueError("its upper-left 3×3 must be a rotation")
        if not np.allclose(m[3], (0, 0, 0, 1)):
            raise ValueError("its last row must be 0 0 0 1")
        return v

    def matrix(self) -> np.ndarray:
        """The extrinsics (4×4 camera→table); identity when not calibrated."""
        return np.eye(4) if self.extrinsics is None else np.asarray(self.extrinsics, dtype=float)


class Setup(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

    path: Path
    robot: RobotSetup | None = None
    camera: CameraSetup | None = None


def setup_path(env: dict[str, str] | None = None) -> Path:
    """Where the setup file is: $OWL_BT_CONFIG, else ./owl-bt.toml."""
    env = os.environ if env is None else env
    return Path(env.get("OWL_BT_CONFIG") or "owl-bt.toml")


def load_setup(path: Path | None = None, env: dict[str, str] | None = None) -> Setup:
    """The [robot] and [camera] tables of `path` (default `setup_path()`); a missing file gives
    a Setup with neither. Raises UsageError (one line naming the file and key) when malformed."""
    path = path or setup_path(env)
    if not path.exists():
        return Setup(path=path)
    if not path.is_file():
        raise UsageError(f"setup file {path} is {'a folder' if path.is_dir() else 'not a file'}")
    try:
        if path.stat().st_size > SETUP_MAX_BYTES:
            raise UsageError(f"setup file {path} is larger than {SETUP_MAX_BYTES} bytes")
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"setup file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise UsageError(f"setup file {path} is not valid TOML: nested too deeply") from None
    except OSError as exc:
        raise UsageError(f"cannot read the setup file {path}: {exc.strerror or exc}") from None
    tables = {}
    for name, model in (("robot", RobotSetup), ("camera", CameraSetup)):
        if name not in data:
            continue
        table = data[name]
        if not isinstance(table, dict):
            raise UsageError(f"setup file {path}: [{name}] must be a table")
        if name == "robot" and "password" in table:
            raise UsageError(
                f"setup file {path}: put the arm's password in ${PASSWORD_ENV}, not in the file"
            )
        try:
            tables[name] = model.model_validate(_lists_as_tuples(table, name))
        except pydantic.ValidationError as exc:
            raise UsageError(f"setup file {path}: {_one_line(exc, name, model)}") from None
    return Setup(path=path, **tables)


def _lists_as_tuples(table: dict, name: str) -> dict:
    """TOML arrays are lists; the strict base_pose wants a tuple."""
    if name == "robot" and isinstance(table.get("base_pose"), list):
        return {**table, "base_pose": tuple(table["base_pose"])}
    return table


def _one_line(exc: pydantic.ValidationError, table: str, model) -> str:
    e = exc.errors()[0]
    loc = [str(x) for x in e["loc"] if not isinstance(x, int)][:1]
    where = f"[{table}] {loc[0]}" if loc else f"[{table}]"
    msg = e["msg"].removeprefix("Value error, ")
    if e["type"] == "extra_forbidden":
        msg = f"not a setting (the [{table}] keys are {', '.join(model.model_fields)})"
    elif e["type"] == "missing" and len(e["loc"]) > 1:
        msg = "must have 6 numbers: x y z (m), roll pitch yaw (rad)"
    elif e["type"] in ("missing", "too_long"):
        msg = "missing" if e["type"] == "missing" else "must have 6 numbers"
    elif e["type"] == "literal_error":
        msg = f"must be one of {', '.join(MODELS)}, got {e.get('input')!r}"
    return f"{where}: {msg[:1].lower()}{msg[1:]}"


def world_from_table(base_pose, mount: tuple[float, float, float]) -> np.ndarray:
    """4×4 mapping table-frame points into the planning world, in which the arm's base stands at
    `mount` (m, unrotated): world ← base ← table = T(mount) · base_pose⁻¹."""
    m = np.eye(4)
    m[:3, 3] = mount
    return m @ np.linalg.inv(pose_matrix(base_pose))


def writable_setup(path: Path) -> Path:
    """The file `write_camera` writes for `path`: a symbolic link's target (renaming the new file
    onto the link replaced the link, and the file it named kept the old settings). Raises UsageError
    for a link to nothing or a folder that does not exist, before anything is captured."""
    if path.is_symlink():
        if not path.exists():  # (a loop too)
            raise UsageError(f"setup file {path} is a symbolic link to nothing")
        path = Path(os.path.realpath(path))
    if not path.parent.is_dir():
        raise UsageError(
            f"cannot write the setup file {path}: {path.parent} is not a folder"
            if path.parent.exists()
            else f"cannot write the setup file {path}: no folder {path.parent}"
        )
    return path


def write_camera(path: Path, extrinsics: np.ndarray, error_px: float, source: str | None) -> None:
    """Set [camera] extrinsics and reprojection_error_px in `path` (made if missing; a link's
    target), keeping every other table and [camera]'s other keys. The file is replaced whole (a
    temporary file renamed); raises UsageError (DiskFullError for a full disk) when it cannot be."""
    path = writable_setup(path)
    text = path.read_text(encoding="utf-8-sig") if path.exists() else ""
    old = load_setup(path).camera if path.exists() else None
    keep = old.model_dump(exclude={"extrinsics", "reprojection_error_px"}) if old else {}
    if source is not None:
        keep["source"] = source
    rows = ",\n  ".join("[" + ", ".join(f"{v:.9f}" for v in row) + "]" for row in extrinsics)
    lines = ["[camera]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in keep.items()]
    lines += [f"extrinsics = [\n  {rows},\n]", f"reprojection_error_px = {error_px:.4f}"]
    body = _without_table(text, "camera").rstrip()
    out = (body + "\n\n" if body else "") + "\n".join(lines) + "\n"
    try:
        tomllib.loads(out)
    except tomllib.TOMLDecodeError:
        raise UsageError(
            f"setup file {path}: cannot rewrite its camera settings; write them as a table of "
            "their own (a `[camera]` header), not inline or as dotted keys"
        ) from None
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(out, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        from owl_bt.errors import disk_error

        tmp.unlink(missing_ok=True)
        raise disk_error(exc, path) or UsageError(
            f"cannot write the setup file {path}: {exc.strerror or exc}"
        ) from None


def _toml_value(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(float(v)) if isinstance(v, float) else str(v)


def _without_table(text: str, name: str) -> str:
    """`text` without the `[name]` table (its header to the next table header)."""
    out, skipping = [], False
    for line in text.splitlines():
        header = re.match(r"\s*\[\s*([^\]\s]+)\s*\]", line)
        if header and not line.lstrip().startswith("[["):
            skipping = header.group(1) == name
        if not skipping:
            out.append(line)
    return "\n".join(out)
