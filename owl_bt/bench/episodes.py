"""`episodes.jsonl`: one JSON object per finished episode, append-only, keyed by (task, seed, method).

Only the bench's parent process writes it, one complete line per `os.write` on an O_APPEND
descriptor, then `fsync`; a write that fails (a full disk) is cut back off, so the file holds whole
lines only. Reading is strict about what it counts: every line is checked against `Record` (types
and ranges, pydantic in strict mode). A line that is not UTF-8, not JSON, not an object, or has a
missing or wrongly typed field is skipped and reported as one `file:line: field …` problem; a cut
last line (a writer killed mid-line) is skipped with a warning; of two lines with the same key the
first is kept and the second reported. Nothing is counted that was not checked.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from owl_bt import safe_json

FILENAME = "episodes.jsonl"
Key = tuple[str, int, str]

Count = Annotated[int, Field(ge=0, le=10**12)]
Seconds = Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False)]  # sums of these stay finite
Name = Annotated[
    str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,99}$")
]  # a task or method name: one word ("oracle+faults")


class Record(BaseModel):
    """The fields of an episode line that a bench reads (others are kept, unchecked). Strict: a
    boolean must be true/false (not "false" or 0), a count a whole number in [0, 10¹²], seconds a
    finite number in [0, 10⁹] (s); task, seed and method form the key and must be present, task and method as
    single words (they head tables and rows of summary.md)."""

    model_config = ConfigDict(strict=True, extra="allow")

    task: Name
    seed: Count
    method: Name
    success: bool
    declared_success: bool = False
    error: bool = False
    samples: Count = 0
    skeletons: Count = 0
    attempts: Count = 0
    queries: Count = 0
    guard_rejections: Count = 0
    wall_s: Seconds = 0.0
    model_s: Seconds = 0.0
    tick_hz: Seconds | None = None
    detector: str | None = None
    failure: str | None = None
    run_dir: str | None = None
    robot: str | None = None
    perception: str | None = None
    code: Name | None = (
        None  # which code ran it (owl_bt.code_version): one word, it is quoted into summary.md
    )
    stage_s: dict[Name, Seconds] | None = (
        None  # seconds per stage of the executive (runner.stage_seconds)
    )
    budget: Count | None = None
    max_attempts: Count | None = None
    max_skeletons: Count | None = None
    plan_time_s: Seconds | None = None  # --plan-time the episode ran with


@dataclass
class Loaded:
    """records: the checked records, first per key, in file order; problems: one line per line of
    the file that was not counted (`path:line: why; skipped`)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def key(rec: dict[str, Any]) -> Key:
    """The episode's identity: (task, seed, method)."""
    return (str(rec["task"]), int(rec["seed"]), str(rec["method"]))


def _why(exc: ValidationError) -> str:
    e = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in e["loc"]) or "(line)"
    if e["type"] == "missing":
        return f"field {where!r} is missing"
    msg = e["msg"][:1].lower() + e["msg"][1:]
    return f"field {where!r}: {msg}, got {json.dumps(e.get('input'), default=str)[:60]}"


def read(path: Path) -> Loaded:
    """Read and check `path` (nothing when it does not exist); see the module docstring."""
    out = Loaded()
    if not path.is_file():
        return out
    data = path.read_bytes()
    lines = data.split(b"\n")
    cut_last = not data.endswith(b"\n") and bool(lines[-1])
    if not cut_last:
        lines = lines[:-1]
    first: dict[Key, int] = {}
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = safe_json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            out.problems.append(f"{where}: not UTF-8 text; skipped")
            continue
        except ValueError as exc:
            if cut_last and number == len(lines):
                out.problems.append(
                    f"{where}: the last line is cut short (a bench stopped mid-write?); skipped"
                )
            else:
                out.problems.append(f"{where}: not valid JSON ({str(exc).split(':')[0]}); skipped")
            continue
        if not isinstance(obj, dict):
            out.problems.append(f"{where}: not a JSON object; skipped")
            continue
        try:
            Record.model_validate(obj)
        except ValidationError as exc:
            out.problems.append(f"{where}: {_why(exc)}; skipped")
            continue
        unknown = _unknown(obj)
        if unknown:  # (a line of an unknown task gets no row and does not count in the overall one)
            out.problems.append(f"{where}: {unknown}; skipped")
            continue
        k = key(obj)
        if k in first:
            out.problems.append(
                f"{where}: repeats episode {k} of line {first[k]}; skipped (the first is kept)"
            )
            continue
        first[k] = number
        out.records.append(obj)
    return out


def _unknown(obj: dict[str, Any]) -> str:
    """'' when the line's task is a benchmark task and its method a comparison method (with '+faults'
    when faults were injected); else what is unknown."""
    from owl_bt.bench.methods import FAULTS_SUFFIX, METHODS
    from sim.tasks import all_tasks

    method = obj["method"].removesuffix(FAULTS_SUFFIX)
    if obj["task"] not in all_tasks():
        return f"unknown task {obj['task']!r}"
    return "" if method in METHODS else f"unknown method {obj['method']!r}"


def load(path: Path) -> list[dict[str, Any]]:
    """The checked records of `path` (see `read`), without the problems."""
    return read(path).records


def append(path: Path, rec: dict[str, Any]) -> None:
    """Append `rec` as one line: a single write of the whole line, then fsync. Raises OSError (e.g.
    ENOSPC) after cutting the file back to its former length, so no part of the line stays."""
    data = (json.dumps(rec, default=str) + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if (
            size and os.pread(fd, 1, size - 1) != b"\n"
        ):  # a line cut by a crash elsewhere: start afresh
            data = b"\n" + data
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, size)
            except (
                OSError
            ) as exc:  # a special file (/dev/full) cannot be cut: nothing was kept anyway
                if exc.errno not in (errno.EINVAL, errno.EBADF):
                    raise
            raise
    finally:
        os.close(fd)
