"""Run-time guards the sandbox puts around generated checker code (DESIGN §5).

A wall-clock trace only sees Python lines; a single C-level operation (`sum(range(10**12))`, a
list repeated a billion times, a number raised to a huge power) runs to its end unseen. So the
sandbox rewrites every `+`, `*` and `**` of checker code into `binop(...)`, which refuses results
larger than the caps below, and hands it a `range` that refuses more than MAX_ITEMS items. What
the checker sees of the world is read-only: `read_only(state)` shares the object states (frozen
dataclasses) through a mapping proxy, so a checker cannot add, replace or drop objects.
"""

from __future__ import annotations

import ast
import copy
import operator
from types import MappingProxyType

from owl_bt.state import WorldState

MAX_ITEMS = 100_000  # elements in a sequence or range a checker may build
MAX_INT_BITS = 4096  # bits of an integer result


class GuardError(Exception):
    """A checker tried to build something too large; the checker counts as False."""


_OPS = {"add": operator.add, "mul": operator.mul, "pow": operator.pow, "mod": operator.mod}
_AST_OPS = {ast.Add: "add", ast.Mult: "mul", ast.Pow: "pow", ast.Mod: "mod"}


def _size(v: object) -> int | None:
    return len(v) if isinstance(v, str | bytes | list | tuple) else None


def binop(op: str, a: object, b: object) -> object:
    """a <op> b for op in add | mul | pow | mod, refusing oversized sequences and integers, and
    printf-style string formatting (one `%` can build hundreds of megabytes in C) (GuardError)."""
    sa, sb = _size(a), _size(b)
    if op == "mod" and isinstance(a, str | bytes):
        raise GuardError("string formatting with % is not allowed in a checker")
    if op == "mul" and (sa is not None or sb is not None):
        n = b if sa is not None else a
        if isinstance(n, int) and (sa if sa is not None else sb) * max(n, 0) > MAX_ITEMS:
            raise GuardError("a sequence repeated beyond the size cap")
    if op == "add" and sa is not None and sb is not None and sa + sb > MAX_ITEMS:
        raise GuardError("a sequence grown beyond the size cap")
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        if op == "mul" and a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise GuardError("an integer product beyond the size cap")
        if op == "pow" and b > 0 and a.bit_length() * b > MAX_INT_BITS:
            raise GuardError("an integer power beyond the size cap")
    return _OPS[op](a, b)


def bounded_range(*args: int) -> range:
    """range(...) with at most MAX_ITEMS items."""
    r = range(*args)
    if len(r) > MAX_ITEMS:
        raise GuardError(f"range of {len(r)} items exceeds {MAX_ITEMS}")
    return r


def read_only(state: WorldState) -> WorldState:
    """A WorldState sharing `state`'s (frozen) objects through a read-only mapping."""
    return WorldState(objects=MappingProxyType(state.objects), robot=state.robot, source=state.source)  # type: ignore[arg-type]


class _Rewrite(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:  # noqa: N802 — ast naming
        self.generic_visit(node)
        name = _AST_OPS.get(type(node.op))
        if name is None:
            return node
        return ast.copy_location(ast.Call(ast.Name("__owl_binop", ast.Load()), [ast.Constant(name), node.left, node.right], []),
                                 node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        name = _AST_OPS.get(type(node.op))
        if name is None:
            return node
        load = copy.deepcopy(node.target)
        for n in ast.walk(load):
            if hasattr(n, "ctx"):
                n.ctx = ast.Load()
        call = ast.Call(ast.Name("__owl_binop", ast.Load()), [ast.Constant(name), load, node.value], [])
        return ast.copy_location(ast.Assign([node.target], call), node)


def rewrite(tree: ast.Module) -> ast.Module:
    """The vetted tree with +, * and ** (also augmented) routed through `binop`."""
    return ast.fix_missing_locations(_Rewrite().visit(tree))


GLOBALS = {"__owl_binop": binop}
