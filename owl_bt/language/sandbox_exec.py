"""Running vetted checker code: what the sandbox worker process does with it.

`Program` executes a checker source that `owl_bt.language.sandbox.check_source` accepted (with
`+`, `*`, `**`, comparisons and the big builtins rewritten into the guards of
`owl_bt.language.guards`) and calls its functions on a state under a trace hook that stops a call
after `time_limit_s` of the calling thread's CPU time or WALL_BACKSTOP_S of wall clock. Any failure
becomes a `Failure` (the error line with the checker's source line quoted), never an exception.

This module runs inside the worker process (`owl_bt.language.sandbox_worker`), behind the limits
the operating system enforces there; the planner's process never runs checker code.
"""

from __future__ import annotations

import ast
import gc
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from owl_bt.language import guards
from owl_bt.language.codebook import HELPERS, Env, initial_bounds
from owl_bt.language.object_handle import ObjectHandle
from owl_bt.language.sandbox_names import SAFE_BUILTINS
from owl_bt.state import WorldState

WALL_BACKSTOP_S = 1.0  # wall clock a call may take whatever its CPU time (one starved of the CPU)
CLOCK_EVERY = 8  # trace events (lines, calls) between two readings of the clocks


class CheckerTimeout(Exception):
    pass


@dataclass(frozen=True)
class Failure:
    """A call that raised or ran out of time: the recorded error line and the key it is logged once
    under (checker, source line, kind)."""

    message: str
    key: tuple


class Program:
    """One vetted checker source, executed once (it only defines functions), bound to the initial
    state and the workspace."""

    def __init__(self, tree: ast.Module, source: str, init_state: WorldState, env: Env) -> None:
        g: dict = {
            "__builtins__": {**SAFE_BUILTINS, **guards.BUILTINS, "range": guards.bounded_range},
            "math": math,
            **HELPERS,
            **guards.GLOBALS,
        }
        g.update(
            {
                "env": env,
                "init_state": guards.read_only(init_state),
                "init_bounds": initial_bounds(env),
            }
        )
        # vetted by the caller; defines functions only (no defaults, no top-level calls)
        exec(compile(guards.rewrite(tree), "<checker>", "exec"), g)  # noqa: S102
        self.source = source
        self.globals = g
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        self.functions: dict[str, Callable] = {n: g[n] for n in names}
        # names the code's globals hold that no object handle may replace
        self.bound = frozenset(g) | frozenset(g["__builtins__"]) | {"state"}

    def call(
        self, name: str, state: WorldState, args: tuple, time_limit_s: float
    ) -> tuple[object, Failure | None]:
        """(what `name(*args)` returned, None) with `state` bound, or (None, the Failure)."""
        g = self.globals
        g["state"] = guards.read_only(state)
        for obj in state.objects.values():
            if obj.name not in self.bound:  # (an object named like a function the code defines)
                g[obj.name] = ObjectHandle.of(obj)
        fn = self.functions.get(name)
        if fn is None:
            return None, Failure(f"{name}: no such checker", (name, None, "missing"))
        # The limit is the worker thread's CPU time (a busy machine does not turn a trivial checker
        # False); a wall-clock backstop still ends one starved of the CPU.
        deadline = time.thread_time() + time_limit_s
        backstop = time.monotonic() + max(WALL_BACKSTOP_S, time_limit_s)
        events = [0]

        def tracer(frame, event, arg):
            if frame.f_code.co_filename != "<checker>":
                return None
            events[0] += 1
            if events[0] % CLOCK_EVERY:  # reading a thread's CPU clock is a system call
                return tracer
            if time.thread_time() > deadline:
                raise CheckerTimeout(f"{name} exceeded {time_limit_s * 1000:.0f} ms of CPU time")
            if time.monotonic() > backstop:
                raise CheckerTimeout(
                    f"{name} exceeded {max(WALL_BACKSTOP_S, time_limit_s):g} s of wall clock"
                )
            return tracer

        # No garbage collection during the call: a collection started by the checker's few
        # allocations would run on its clock, and the verdict would hang on when Python collected.
        collecting = gc.isenabled()
        gc.disable()
        previous = sys.gettrace()
        sys.settrace(tracer)
        try:
            return fn(*args), None
        except Exception as exc:  # untrusted code: any failure is recorded with its source line
            return None, self._failure(name, exc)
        finally:
            sys.settrace(previous)
            if collecting:
                gc.enable()

    def _failure(self, name: str, exc: BaseException) -> Failure:
        lineno, tb = None, exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<checker>":
                lineno = tb.tb_lineno
            tb = tb.tb_next
        text = _short(f"{type(exc).__name__}: {exc}")
        message = f"{name}: {text}"
        if lineno is not None:
            # as the compiler counts lines (not at \x0b, \x0c …)
            lines = re.split(r"\r\n|\r|\n", self.source)
            src = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
            message += f" (line {lineno}: {src})"
        return Failure(message, (name, lineno, type(exc).__name__))


MESSAGE_LIMIT = 400  # characters of an exception's text kept in the error line


def _short(text: str) -> str:
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "…"
