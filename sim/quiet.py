"""Silence C-level output (Bullet and OMPL print from C, not through Python's streams)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
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


def _quiet() -> Iterator[None]:
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
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in fds:
            os.dup2(devnull, fd)
        yield
    finally:
        _LIBC.fflush(None)  # C stdio may still buffer what was printed; drop it while redirected
        for fd, old in zip(fds, saved, strict=True):
            os.dup2(old, fd)
            os.close(old)
        os.close(devnull)
