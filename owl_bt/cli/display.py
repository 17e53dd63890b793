"""Whether `run --gui` can open its window: pybullet's GUI needs an X server (or XWayland), and when it
cannot reach one it ends the whole process with exit 1 from C — so the display is tried first."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

from owl_bt.errors import UsageError

ADVICE = (
    "run without --gui; the run folder gets initial.png, final.png and perception-1.png to look at"
)


def check_display() -> None:
    """Raise UsageError (one line) unless an X display can be opened: DISPLAY unset, no X11 client
    library, or no X server answering at DISPLAY. Linux only; elsewhere pybullet uses the native
    window system and nothing is checked."""
    if not sys.platform.startswith("linux"):
        return
    display = os.environ.get("DISPLAY", "")
    if not display:
        raise UsageError(f"--gui needs a display (DISPLAY is not set): {ADVICE}")
    name = ctypes.util.find_library("X11") or "libX11.so.6"
    try:
        xlib = ctypes.CDLL(name)
    except OSError:
        raise UsageError(
            f"cannot open display {display}: the X11 client library ({name}) is not installed; {ADVICE}"
        ) from None
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    handle = xlib.XOpenDisplay(display.encode())
    if not handle:
        raise UsageError(f"cannot open display {display} (no X server answers there): {ADVICE}")
    xlib.XCloseDisplay(handle)
