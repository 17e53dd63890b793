"""Silence C-level output (Bullet and OMPL print from C, not through Python's streams)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import tempfile
from collections.abc import Iterator

from owl_bt.output_lock import OUTPUT_LOCK

_LIBC = ctypes.CDLL(None)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Point file descriptors 1 and 2 at /dev/null for the block, then restore them. The process's
    console output waits meanwhile (OUTPUT_LOCK, held for the block): the redirection is the whole
    process's, and a line another thread printed in it was lost."""
    with OUTPUT_LOCK:
        yield from _quiet()


@contextlib.contextmanager
def captured() -> Iterator[list[str]]:
    """As `quiet`, but what C code printed in the block is kept: the list yielded holds it (one
    string) once the block has ended, e.g. ur_rtde's 'connect: Connection refused', which it prints
    on stderr beside the exception it raises."""
    said: list[str] = []
    with OUTPUT_LOCK, tempfile.TemporaryFile() as sink:
        try:
            yield from _quiet(sink.fileno(), said)
        finally:
            sink.seek(0)
            said.append(sink.read().decode("utf-8", errors="replace"))


def _quiet(sink: int | None = None, handed: object = None) -> Iterator:
    # C code prints to descriptors 1 and 2 whatever sys.stdout and sys.stderr are (pytest-xdist's
    # workers replace them, and pybullet's build-time line reached the test run's output)
    streams = []
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
            streams.append(stream.fileno())
        except (OSError, ValueError, AttributeError):
            continue
    fds, saved = [], []
    for fd in dict.fromkeys([1, 2, *streams]):
        try:
            saved.append(os.dup(fd))
        except OSError:  # closed: nothing is printed there
            continue
        fds.append(fd)
    devnull = os.open(os.devnull, os.O_WRONLY) if sink is None else os.dup(sink)
    try:
        for fd in fds:
            os.dup2(devnull, fd)
        yield handed
    finally:
        _LIBC.fflush(None)  # C stdio may still buffer what was printed; drop it while redirected
        for fd, old in zip(fds, saved, strict=True):
            os.dup2(old, fd)
            os.close(old)
        os.close(devnull)
