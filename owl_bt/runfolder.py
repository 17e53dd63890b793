"""The run folder a person looks at after a run.

Written into `<final>.partial/` while the run goes on and renamed to its final name only when the
run ends cleanly (success, failure or Ctrl-C), so a folder without `.partial` is always complete.
`events.jsonl` has one structlog JSON event per line.

A `.partial` folder left by a run that was killed is removed when a new run wants the same name,
and that is said in one line on stderr (and logged as a `leftover_removed` event); a `.partial`
that a live run is still writing (it holds a lock on its `events.jsonl`) is refused instead. A full
disk (ENOSPC, EDQUOT) or the file-size limit (EFBIG) while writing ends the run with a DiskFullError
naming the file, after the unfinished folder is removed: no half-written folder is left. So does a
Ctrl-C or SIGTERM that arrives outside the ticking tree (which handles its own, writing the folder
whole): while the run is set up or its folder written, it is an `Interrupted` error (exit 130) and
the unfinished folder is removed.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import structlog

from owl_bt import stops
from owl_bt.errors import OwlError, UsageError, disk_error
from owl_bt.report.writer import write_report


class Interrupted(OwlError):
    """Ctrl-C or SIGTERM while a run folder was being set up or written (not while the tree ticked)."""

    exit_code = 130


SCENE_COPY = "scene.toml"  # a run on a scene file keeps a copy of it under this name


class _EventSink:
    """events.jsonl as the event logger's file: a write that fails is remembered (`error`) and the
    log goes quiet, rather than raising into whichever behaviour logged; the run reports it at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115
        fcntl.flock(
            self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB
        )  # "a live run writes this folder"
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        if self.error is None:
            try:
                return self._file.write(text)
            except OSError as exc:
                self.error = exc
        return 0

    def flush(self) -> None:
        if self.error is None:
            try:
                self._file.flush()
            except OSError as exc:
                self.error = exc

    def close(self) -> None:
        try:
            self._file.close()
        except OSError as exc:
            self.error = self.error or exc


def in_use(partial: Path) -> bool:
    """Whether a live run is writing the folder `partial` (it holds the lock on its events.jsonl)."""
    try:
        fd = os.open(partial / "events.jsonl", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def remove_leftover(path: Path) -> bool:
    """Remove `path`, a run folder (or its `.partial`) that no live run is writing; False when there
    is nothing there. Raises UsageError when a live run writes it or it is a symbolic link."""
    if path.is_symlink():
        raise UsageError(
            f"{path} is a symbolic link where a run folder would go; remove it or choose another --out"
        )
    if not path.exists():
        return False
    if in_use(path):
        raise UsageError(f"another owl-bt run is writing {path} right now; choose another --out")
    if not _left_by_a_run(path):  # never delete what owl-bt did not write
        raise UsageError(
            f"{path} is in the way and was not left by an owl-bt run; remove it or choose another --out"
        )
    try:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    except OSError as exc:
        raise UsageError(
            f"cannot remove {path}, left by a run that did not finish: {exc.strerror}"
        ) from None
    return True


LIVE: set[Path] = set()  # the `.partial` folders this process is writing now


def _left_by_a_run(path: Path) -> bool:
    """Does `path` look like a run folder a killed run left: an empty folder (killed as it was made),
    or one with its event log at the top and no folders inside (a run writes files only)?"""
    try:
        if not path.is_dir():
            return False
        inside = list(path.iterdir())
        return not inside or (
            (path / "events.jsonl").is_file() and not any(p.is_dir() for p in inside)
        )
    except OSError:
        return False


# Files a caller wants in the next run folders it makes (e.g. the spoken goal's transcript): name →
# JSON-able data or bytes. Set through `extra_files`; written when the folder is created.
_EXTRA: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "owl_bt_run_extras", default=None
)


@contextlib.contextmanager
def extra_files(files: dict[str, Any]):
    """Within this block every new RunFolder starts with these files (bytes are written as they
    are, anything else as JSON)."""
    token = _EXTRA.set(dict(files))
    try:
        yield
    finally:
        _EXTRA.reset(token)


def slugify(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "run"


def check_run_folder(final: Path) -> Path:
    """The run folder's name must be free (an empty folder is fine); a link to a folder is followed.
    Returns the folder to write (absolute); raises UsageError (exit 2) naming the path, also for an
    OSError (a name too long, a parent that is a file). Called by `owl-bt run` before the planner
    loads, and again when the folder is made."""
    final = Path(final).absolute()
    try:
        if final.name.endswith(".partial"):
            raise UsageError(
                f"a run folder's name may not end in .partial (that marks an unfinished run): {final}"
            )
        if final.is_symlink() and not final.exists():
            raise UsageError(f"output path {final} is a symbolic link to nothing")
        if final.is_symlink():
            final = final.resolve()  # the folder it names (renaming onto the link would fail)
        if final.exists() and not final.is_dir():
            raise UsageError(f"output path {final} exists and is not a folder")
        if final.exists() and any(final.iterdir()):
            raise UsageError(f"output folder {final} already exists and is not empty")
    except OSError as exc:
        raise UsageError(f"cannot use {final} as the run folder: {exc.strerror}") from None
    return final


class RunFolder:
    """A run folder at `final` (default runs/<time>-<slug>/), written via a `.partial` sibling."""

    def __init__(self, final: Path | None, instruction: str) -> None:
        stops.FINISHING, stops.LATE_STOP = False, ""  # a new run: nothing has ended yet
        default = final is None
        if final is None:
            stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            final = Path("runs") / f"{stamp}-{slugify(instruction)}"
            final = _unused(final)  # two runs started in the same second get -2, -3 …
        self.final = Path(final).absolute()  # planning may change the working directory meanwhile
        try:
            self._check_final()
            self.path = self.final.with_name(self.final.name + ".partial")
            leftover = not default and remove_leftover(self.path)
        except OSError as exc:  # e.g. a name too long for the file system, a parent that is a file
            raise UsageError(f"cannot use {self.final} as the run folder: {exc.strerror}") from None
        if leftover:
            print(
                f"owl-bt: removed {self.path}, left by a run that did not finish",
                file=sys.stderr,
                flush=True,
            )
        made = False
        try:
            self.path.mkdir(parents=True)
            made = True
            LIVE.add(self.path)
            self._events = _EventSink(self.path / "events.jsonl")
        except OSError as exc:
            if made:  # never another run's folder
                shutil.rmtree(self.path, ignore_errors=True)
            raise disk_error(exc, self.path) or UsageError(
                f"cannot create the run folder {self.path}: {exc.strerror}"
            ) from None
        self.log = structlog.wrap_logger(
            structlog.WriteLogger(self._events),  # type: ignore[arg-type]
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.JSONRenderer(default=str),
            ],
        )
        if leftover:
            self.log.info("leftover_removed", path=str(self.path))
        with self.writing():
            for name, data in (_EXTRA.get() or {}).items():
                self.write_bytes(name, data) if isinstance(data, bytes) else self.write_json(
                    name, data
                )

    def _check_final(self) -> None:
        self.final = check_run_folder(self.final)

    @contextlib.contextmanager
    def writing(self) -> Iterator[RunFolder]:
        """Within this block, an OSError meaning "no room to write" (NO_SPACE) removes the unfinished
        folder and is raised as a DiskFullError naming the file; other errors pass unchanged."""
        try:
            yield self
        except OSError as exc:
            err = disk_error(exc, self.path, "; the unfinished run folder was removed")
            if err is None:
                raise
            self.discard()
            raise err from None
        except (
            KeyboardInterrupt
        ):  # outside the ticking tree (it handles its own): nothing moved, or all is done
            self.discard()
            raise Interrupted(
                f"stopped by {stops.STOPPED_BY or 'Ctrl-C (SIGINT)'} before the run finished setting up or "
                f"writing its folder; the unfinished run folder {self.path} was removed"
            ) from None

    def write_json(self, name: str, data: Any) -> None:
        tmp = self.path / (name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
        os.replace(tmp, self.path / name)

    def write_text(self, name: str, text: str) -> None:
        (self.path / name).write_text(text, encoding="utf-8")

    def write_bytes(self, name: str, data: bytes) -> None:
        (self.path / name).write_bytes(data)

    def keep_scene(self, path: Path) -> dict[str, str]:
        """Copy the run's scene file into the folder as `scene.toml`; returns {'scene_file': its absolute
        path, 'scene_sha256': the hex SHA-256 of its bytes}, what `run --replay` checks a --scene against."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:  # removed or made unreadable since it was loaded: nothing ran yet
            self.discard()
            raise UsageError(f"cannot read scene file {str(path)!r}: {exc.strerror}") from None
        self.write_bytes(SCENE_COPY, data)
        return {
            "scene_file": str(Path(path).absolute()),
            "scene_sha256": hashlib.sha256(data).hexdigest(),
        }

    def discard(self) -> None:
        """Nothing worth keeping happened (the scene could not even be built, or the disk is
        full): remove the folder."""
        self._events.close()
        shutil.rmtree(self.path, ignore_errors=True)
        LIVE.discard(self.path)

    def finish(self) -> Path:
        """Close the event log, write the report (report.md/.html, tree.dot/.png), and move the
        folder to its final name; returns that path. Raises DiskFullError (the folder removed) when
        anything of the run, the event log included, could not be written for lack of space."""
        with self.writing():
            self._events.close()
            if self._events.error is not None:
                raise self._events.error
            write_report(self.path)  # a report that cannot be made says so in report.md
            final, moved = self.final, False
            if final.exists() or final.is_symlink():
                try:
                    if _holds_cwd(
                        final
                    ):  # (`-o .`: removed, it left the caller's shell in a deleted folder)
                        raise IsADirectoryError(final)
                    final.rmdir()  # empty (checked in __init__)
                except OSError:  # never a traceback, nor the finished run left as .partial
                    if not final.is_dir() or any(final.iterdir()) or not _writable(final):
                        final = _unused(
                            final
                        )  # written into, or replaced by a file, meanwhile; or not ours to fill
                    else:  # a mount point (busy), or the current folder: the run's files go into it
                        for entry in sorted(self.path.iterdir()):
                            shutil.move(str(entry), str(final / entry.name))
                        self.path.rmdir()
                        moved = True
            if not moved:
                os.replace(self.path, final)
        LIVE.discard(self.path)
        self.final = final
        return final


def _holds_cwd(folder: Path) -> bool:
    """Is `folder` the current working folder or one that holds it?"""
    try:
        here = Path.cwd()
    except OSError:
        return False
    return folder == here or folder in here.parents


def _writable(folder: Path) -> bool:
    """Can a file be made in `folder` (tried: permissions, read-only or immutable mounts)?"""
    probe = folder / f".owl-bt-probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        probe.unlink()
        return True
    except OSError:
        return False


def _unused(final: Path) -> Path:
    """`final`, or `final-2`, `final-3` … the first whose folder and `.partial` do not exist."""
    candidate, n = final, 1
    while candidate.exists() or candidate.with_name(candidate.name + ".partial").exists():
        n += 1
        candidate = final.with_name(f"{final.name}-{n}")
    return candidate
