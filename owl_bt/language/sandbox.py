"""Evaluation of untrusted, generated checker code (docs/sandbox.md).

Two gates (the hostile inputs and what stops each: tests/language/hostile/).

Static, in the planner's process: the code is parsed and every AST node, name and attribute is
checked against the allow-lists of `owl_bt.language.sandbox_names` — no imports, no names or
attributes starting with `_`, no exec/eval/compile/open/getattr/globals/vars, calls only to the
codebook, `math`, a few builtins and functions the code itself defines, no huge constants or
power/repeat blow-ups, no default argument values or top-level statements.

Dynamic, in a separate worker process (`owl_bt.language.sandbox_worker`) behind limits the
operating system enforces (memory, CPU, no files, processes or network): each call runs under a
trace hook that stops it after `time_limit_s` of CPU time (default 50 ms), with `+`, `*`, `**`,
comparisons and the big builtins guarded (`owl_bt.language.guards`); the planner kills the worker
when an answer does not come within a wall-clock deadline (`sandbox_client.CALL_DEADLINE_S`). Any
failure — an exception, a timeout, a killed worker, an answer that is not a bool — makes the checker
False, recorded and logged once, never raised into the planner; three killed calls in a row disable
a checker (it stays False, and the reason is part of the evidence constraint repair shows).
"""

from __future__ import annotations

import ast
import collections
import itertools
import keyword
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from owl_bt.errors import UnsafeCodeError
from owl_bt.language import codebook
from owl_bt.language.codebook import HELPERS, Env
from owl_bt.language.object_handle import ObjectHandle
from owl_bt.language.sandbox_client import CALL_DEADLINE_S, shared
from owl_bt.language.sandbox_exec import WALL_BACKSTOP_S, CheckerTimeout
from owl_bt.language.sandbox_names import (
    ALLOWED_ATTRS,
    ALLOWED_NODES,
    CONTEXT,
    FORBIDDEN,
    INTERNALS,
    SAFE_BUILTINS,
)
from owl_bt.state import WorldState
from owl_bt.tamp import bounds_record

__all__ = [
    "WALL_BACKSTOP_S",
    "BoundChecker",
    "CheckerFailed",
    "CheckerSet",
    "CheckerTimeout",
    "ObjectHandle",
    "check_source",
    "reserved_names",
]

MAX_CONSTANT = 10**6
TIME_LIMIT_S = 0.05  # seconds of the worker's CPU time per checker call
REJECTED_KEPT = 50  # states kept per checker while rejections are recorded
KILLS_TO_DISABLE = 3  # killed calls in a row after which a checker is disabled
_PROGRAM_IDS = itertools.count(1)


def reserved_names() -> frozenset[str]:
    """Names checker code has bound already (context, builtins, codebook helpers, math, Python's
    keywords, the forbidden ones): an object named so could not be named in checker code — a scene
    file's apple named 'state' would hide the state from every checker."""
    return (
        frozenset(CONTEXT)
        | frozenset(SAFE_BUILTINS)
        | frozenset(HELPERS)
        | FORBIDDEN
        | frozenset(keyword.kwlist)
    )


class CheckerFailed(Exception):
    """Generated code raised or ran out of time; the message is the recorded error line."""


def check_source(source: str, object_names: set[str]) -> ast.Module:
    """Parse and vet `source`; raises UnsafeCodeError with the first offending construct and line."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise UnsafeCodeError(
            f"checker code does not parse: {exc.msg} (line {exc.lineno})"
        ) from None
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    stored = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    stored |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    known = set(HELPERS) | set(SAFE_BUILTINS) | set(CONTEXT) | object_names | defined | stored
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if not isinstance(node, ALLOWED_NODES):
            raise UnsafeCodeError(
                f"checker code uses a forbidden construct: {type(node).__name__} (line {line})"
            )
        if isinstance(node, ast.Name):
            if node.id.startswith("_") or node.id in FORBIDDEN:
                raise UnsafeCodeError(f"checker code names forbidden {node.id!r} (line {line})")
            if node.id not in known:
                raise UnsafeCodeError(f"checker code uses unknown name {node.id!r} (line {line})")
        if isinstance(node, ast.Attribute) and (
            node.attr.startswith("_") or node.attr.startswith(INTERNALS)
        ):
            raise UnsafeCodeError(
                f"checker code accesses private attribute {node.attr!r} (line {line})"
            )
        if isinstance(node, ast.Attribute) and node.attr not in ALLOWED_ATTRS:
            raise UnsafeCodeError(
                f"checker code uses attribute {node.attr!r}, which is not on the allow-list (line {line})"
            )
        if isinstance(node, ast.arguments) and (
            node.defaults or any(d is not None for d in node.kw_defaults)
        ):
            raise UnsafeCodeError(
                f"checker functions may not have default argument values (line {line})"
            )
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            raise UnsafeCodeError(f"checker code changes attribute {node.attr!r} (line {line})")
        if isinstance(node, ast.FunctionDef) and (node.decorator_list or node.name.startswith("_")):
            raise UnsafeCodeError(f"checker function {node.name!r} is not allowed (line {line})")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int | float)
            and not isinstance(node.value, bool)
        ):
            if abs(node.value) > MAX_CONSTANT:
                raise UnsafeCodeError(f"checker code has an oversized constant (line {line})")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str | bytes)
            and len(node.value) > 10_000
        ):
            raise UnsafeCodeError(f"checker code has an oversized string (line {line})")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            if not (
                isinstance(node.right, ast.Constant)
                and isinstance(node.right.value, int | float)
                and abs(node.right.value) <= 4
            ):
                raise UnsafeCodeError(
                    f"checker code raises to a large or computed power (line {line})"
                )
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for side in (node.left, node.right):
                if isinstance(side, ast.List | ast.Tuple | ast.ListComp) or (
                    isinstance(side, ast.Constant) and isinstance(side.value, str | bytes)
                ):
                    raise UnsafeCodeError(f"checker code repeats a sequence (line {line})")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "range"
        ):
            for a in node.args:
                if (
                    isinstance(a, ast.Constant)
                    and isinstance(a.value, int)
                    and abs(a.value) > 10_000
                ):
                    raise UnsafeCodeError(f"checker code loops too long (line {line})")
    return tree


@dataclass
class CheckerSet:
    """Compiled checker functions by name, bound to the initial state; evaluated in the sandbox
    worker with a WorldState."""

    sources: dict[str, str]
    init_state: WorldState
    env: Env
    errors: list[str] = field(default_factory=list)
    time_limit_s: float = TIME_LIMIT_S
    source: str = ""
    # called once per distinct error (checker, line, kind) with the error line: the event log's hook
    on_error: Callable[[str], None] | None = None
    _seen: set = field(default_factory=set)
    rejected: dict | None = None  # checker name → recent states it rejected (see as_callable)
    disabled: dict[str, str] = field(default_factory=dict)  # checker name → why it was disabled
    last_cpu_s: float = 0.0  # the worker's CPU time for the last call answered
    _names: tuple[str, ...] = ()
    _id: int = 0
    _kills: dict[str, int] = field(default_factory=dict)

    @classmethod
    def compile(
        cls, source: str, init_state: WorldState, env: Env, time_limit_s: float = TIME_LIMIT_S
    ) -> CheckerSet:
        """Vet source (one or more `def name(): …`) and load it into the sandbox worker; raises
        UnsafeCodeError (the code) or SandboxUnavailable (no worker could be started)."""
        tree = check_source(source, set(init_state.objects))
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not names:
            raise UnsafeCodeError("checker code defines no function")
        for node in tree.body:
            docstring = (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            )
            if not (isinstance(node, ast.FunctionDef) or docstring):
                raise UnsafeCodeError(
                    f"checker code has top-level statements besides functions (line {node.lineno})"
                )
        out = cls(
            sources={n: ast.get_source_segment(source, _fn(tree, n)) or "" for n in names},
            init_state=init_state,
            env=env,
            time_limit_s=time_limit_s,
            source=source,
            _names=tuple(names),
            _id=next(_PROGRAM_IDS),
        )
        worker = shared()
        worker.ensure(*out._program())
        weakref.finalize(out, worker.drop, out._id)
        return out

    def _program(self) -> tuple[int, str, WorldState, tuple]:
        env = (tuple(self.env.table_lower), tuple(self.env.table_upper))
        return (self._id, self.source, self.init_state, env)

    def names(self) -> list[str]:
        return list(self._names)

    def _note(self, message: str, key: tuple) -> None:
        self.errors.append(message)
        if self.on_error is not None and key not in self._seen:
            self._seen.add(key)
            self.on_error(message)

    def evaluate(self, name: str, state: WorldState) -> bool:
        """Run checker `name` on `state`; False on exception, timeout, a killed call or a
        non-boolean answer (each recorded in `errors`, logged once through `on_error`)."""
        return self.evaluate_many([(name, state)])[0]

    def evaluate_many(self, items: Sequence[tuple[str, WorldState]]) -> list[bool]:
        """`evaluate` for each (checker name, state), in one exchange with the worker."""
        out: list[bool] = [False] * len(items)
        sent = [i for i, (name, _) in enumerate(items) if name not in self.disabled]
        if not sent:
            return out
        record = bounds_record.recording()
        replies = shared().evaluate(
            self._program(), [items[i] for i in sent], self.time_limit_s, record
        )
        for i, reply in zip(sent, replies, strict=True):
            name = items[i][0]
            out[i] = self._verdict(name, reply)
            for obj, (lo, hi) in reply.get("f", ()):
                bounds_record.note_bounds(obj, (tuple(lo), tuple(hi)))
        return out

    def evaluate_recorded(
        self, items: Sequence[tuple[str, WorldState]]
    ) -> list[tuple[bool, list[tuple[str, bounds_record.Bounds]]]]:
        """`evaluate` for each (checker name, state) in one exchange with the worker, each with the
        (object name, bounds) pairs that call tested object centres against, in the order tested
        (what a `record_bounds()` block around that call alone would have recorded)."""
        out: list[tuple[bool, list]] = [(False, []) for _ in items]
        sent = [i for i, (name, _) in enumerate(items) if name not in self.disabled]
        if not sent:
            return out
        replies = shared().evaluate(
            self._program(), [items[i] for i in sent], self.time_limit_s, True
        )
        for i, reply in zip(sent, replies, strict=True):
            found = [(obj, (tuple(lo), tuple(hi))) for obj, (lo, hi) in reply.get("f", ())]
            out[i] = (self._verdict(items[i][0], reply), found)
        return out

    def _verdict(self, name: str, reply: dict) -> bool:
        if "stopping" in reply:  # the run is stopping: False, not held against the checker
            return False
        if "killed" in reply:
            self._killed(name, reply["killed"])
            return False
        self._kills[name] = 0
        self.last_cpu_s = reply.get("c", 0.0)
        if "e" in reply:
            self._note(reply["e"], tuple(reply["k"]))
            return False
        if "nb" in reply:
            self._note(f"{name}: returned {reply['nb']}, not bool", (name, None, "not bool"))
            return False
        return bool(reply["v"])

    def _killed(self, name: str, reason: str) -> None:
        self._note(
            f"{name}: stopped after {CALL_DEADLINE_S:g} s of wall clock ({reason})",
            (name, None, "killed"),
        )
        self._kills[name] = self._kills.get(name, 0) + 1
        if self._kills[name] >= KILLS_TO_DISABLE:
            why = (
                f"{KILLS_TO_DISABLE} calls in a row did not end within {CALL_DEADLINE_S:g} s "
                "of wall clock and were stopped"
            )
            self.disabled[name] = why
            self._note(f"{name}: disabled: {why}", (name, None, "disabled"))

    def call(
        self,
        name: str,
        state: WorldState,
        time_limit_s: float | None = None,
        drawn: dict[int, codebook.Bounds] | None = None,
    ) -> object:
        """`name(init_state)` with `state` bound: what it returned as plain data (numbers, strings,
        None, lists; a sampler's pose a tuple); with `drawn`, the poses the code drew with
        `sample_ravenpose_uniformly_within_bounds` are entered there (id → bounds). Raises
        CheckerFailed (recorded) on exception, timeout, a killed call or a value not plain data."""
        reply = shared().call(
            self._program(), name, state, time_limit_s or self.time_limit_s, drawn is not None
        )
        if "stopping" in reply:
            raise CheckerFailed(f"{name}: not run: the run is stopping")
        if "killed" in reply:
            message = f"{name}: stopped after its wall-clock deadline ({reply['killed']})"
            self._note(message, (name, None, "killed"))
            raise CheckerFailed(message)
        if "e" in reply:
            self._note(reply["e"], tuple(reply["k"]))
            raise CheckerFailed(reply["e"])
        return _rebuilt(reply["p"], drawn if drawn is not None else {})

    def as_callable(self, name: str) -> BoundChecker:
        """`evaluate(name, ·)`; while `rejected` is a dict, the states it answers False on are kept
        there (the last REJECTED_KEPT per checker): the evidence constraint repair shows the model."""
        return BoundChecker(self, name)

    def _kept(self, name: str, state: WorldState, ok: bool) -> None:
        if not ok and self.rejected is not None:
            self.rejected.setdefault(name, collections.deque(maxlen=REJECTED_KEPT)).append(state)


@dataclass(frozen=True)
class BoundChecker:
    """One checker of a CheckerSet as a callable on a WorldState (see `CheckerSet.as_callable`)."""

    checkers: CheckerSet
    name: str

    def __call__(self, state: WorldState) -> bool:
        ok = self.checkers.evaluate(self.name, state)
        self.checkers._kept(self.name, state, ok)
        return ok

    def many(self, states: Sequence[WorldState]) -> list[bool]:
        """The verdict on each state, all sent to the sandbox worker in one batch."""
        verdicts = self.checkers.evaluate_many([(self.name, s) for s in states])
        for state, ok in zip(states, verdicts, strict=True):
            self.checkers._kept(self.name, state, ok)
        return verdicts


def _rebuilt(plain: object, drawn: dict[int, codebook.Bounds]) -> object:
    """The worker's plain value with a drawn pose as a tuple entered in `drawn`."""
    if isinstance(plain, dict):
        pose = tuple(plain["drawn"])
        lo, hi = plain["bounds"]
        drawn[id(pose)] = (tuple(lo), tuple(hi))
        return pose
    if isinstance(plain, list):
        return [_rebuilt(v, drawn) for v in plain]
    return plain


def _fn(tree: ast.Module, name: str) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
