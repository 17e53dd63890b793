"""Argument checks of the codebook helpers: a helper checks the types and sizes of what checker code
hands it before doing any work, and an error quotes at most QUOTE_LIMIT characters of it.

A pose is six finite numbers (x, y, z, roll, pitch, yaw: metres, radians) — where only a position
is read, three (x, y, z) will do; bounds are two such vectors (lower, upper) of 3 or 6 numbers, not
NaN (a side may be ±inf); an object name is a string of at most NAME_LIMIT characters.
"""

from __future__ import annotations

import math
import numbers
import reprlib

from owl_bt.state import Pose

QUOTE_LIMIT = 80  # characters of a bad argument an error message shows
NAME_LIMIT = 200  # characters of an object name

_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxtuple = _REPR.maxlist = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = QUOTE_LIMIT


def quoted(value: object) -> str:
    """A repr of `value` of at most QUOTE_LIMIT characters, computed in bounded time."""
    try:
        text = _REPR.repr(value)
    except Exception:  # a repr that raises: name the type only
        text = f"<{type(value).__name__}>"
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


def _numbers(value: object, sizes: tuple[int, ...], allow_inf: bool) -> tuple[float, ...] | None:
    if type(value) is not tuple and type(value) is not list:  # (the common case, checked fast)
        if isinstance(value, Pose):
            value = value.as_tuple()
        elif isinstance(value, str | bytes) or not hasattr(value, "__len__"):
            return None
        else:
            try:
                value = [value[i] for i in range(len(value))] if len(value) in sizes else ()  # type: ignore[arg-type,index]
            except (TypeError, IndexError, KeyError):
                return None
    if len(value) not in sizes:
        return None
    out = []
    for v in value:
        t = type(v)
        if t is float:
            f = v
        elif (t is int or isinstance(v, numbers.Real)) and t is not bool:
            try:
                f = float(v)
            except (OverflowError, TypeError, ValueError):
                return None
        else:
            return None
        if f != f or (not allow_inf and (f == math.inf or f == -math.inf)):
            return None
        out.append(f)
    return tuple(out)


def pose(fn: str, value: object, sizes: tuple[int, ...] = (6,)) -> tuple[float, ...]:
    """`value` as finite floats (6, or one of `sizes`); raises TypeError quoting it."""
    got = _numbers(value, sizes, allow_inf=False)
    if got is None:
        what = " or ".join(str(s) for s in sizes)
        raise TypeError(f"{fn}: a pose is {what} finite numbers, got {quoted(value)}")
    return got


def bounds(
    fn: str, value: object, sizes: tuple[int, ...] = (3, 6)
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """`value` as (lower, upper) float vectors of one of `sizes` numbers (not NaN); raises TypeError."""
    ok = (
        not isinstance(value, str | bytes)
        and hasattr(value, "__len__")
        and _len(value) == 2
        and (lo := _numbers(value[0], sizes, allow_inf=True)) is not None  # type: ignore[index]
        and (hi := _numbers(value[1], sizes, allow_inf=True)) is not None  # type: ignore[index]
        and len(lo) == len(hi)
    )
    if not ok:
        what = " or ".join(str(s) for s in sizes)
        raise TypeError(
            f"{fn}: bounds are (lower, upper), each {what} numbers, got {quoted(value)}"
        )
    return lo, hi


def name(fn: str, value: object) -> str:
    """`value` if it is an object name (a string of at most NAME_LIMIT characters); else TypeError."""
    if not isinstance(value, str) or len(value) > NAME_LIMIT:
        raise TypeError(f"{fn}: an object name is a short string, got {quoted(value)}")
    return value


def number(fn: str, value: object) -> float:
    """`value` as a finite float; else TypeError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError(f"{fn}: expected a finite number, got {quoted(value)}")
    return float(value)


def _len(value: object) -> int:
    try:
        return len(value)  # type: ignore[arg-type]
    except TypeError:
        return -1
