"""Run-time guards the sandbox puts around generated checker code.

A wall-clock trace only sees Python lines; a single C-level operation (`sum(range(10**12))`, a
list repeated a billion times, a number raised to a huge power) runs to its end unseen — and holds
the interpreter lock, so not even Ctrl-C stops it. So the sandbox rewrites every `+`, `*` and `**`
of checker code into `binop(...)`, which refuses results larger than the caps below, and hands it a
`range` that refuses more than MAX_ITEMS items. Comparisons (`==`, `<`, `in` …), `.count`/`.index`,
`min`/`max`, `sum` and `round` go through guards too: a list of 65,536 references to one 65,536-long
list passes the size cap, and `x in rows` over it compares 4·10⁹ elements in C (3 s a call; one
level deeper, 6 s), `round(7, -3·10⁷)` builds 10^(3·10⁷) (51 s) and `sum(rows, [])` concatenates
485 MB. What the checker sees of the world is read-only: `read_only(state)` shares the
object states (frozen dataclasses) through a mapping proxy, so a checker cannot add, replace or drop
objects.
"""

from __future__ import annotations

import ast
import copy
import operator
from types import MappingProxyType

from owl_bt.state import WorldState

MAX_ITEMS = 100_000  # elements in a sequence or range a checker may build
MAX_INT_BITS = 4096  # bits of an integer result
MAX_WORK = 200_000  # element comparisons one C-level comparison, search or min/max may make
MAX_ROUND_DIGITS = 30  # |ndigits| of round()


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


def deep_size(v: object, memo: dict | None = None) -> int:
    """Elements of v counting those of nested lists and tuples (1 for anything else), saturating just
    past MAX_WORK; a list that contains itself counts as too big."""
    if not isinstance(v, list | tuple):
        return 1
    memo = {} if memo is None else memo
    if id(v) in memo:
        return memo[id(v)]
    memo[id(v)] = MAX_WORK + 1
    total = 1
    for x in v:
        total += deep_size(x, memo) if isinstance(x, list | tuple) else 1
        if total > MAX_WORK:
            break
    memo[id(v)] = min(total, MAX_WORK + 1)
    return memo[id(v)]


_CMP = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}
_AST_CMP = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
}
_SEQ = list | tuple


def _searching(needle: object, hay: object) -> None:
    if (
        isinstance(hay, _SEQ)
        and isinstance(needle, _SEQ)
        and len(hay) * deep_size(needle) > MAX_WORK
    ):
        raise GuardError("a search of nested sequences beyond the size cap")


def compare(op: str, a: object, b: object) -> bool:
    """a <op> b (== != < <= > >= in, not in), refusing comparisons and searches of nested sequences
    that would compare more than MAX_WORK elements in C (GuardError)."""
    if op in ("in", "not in"):
        _searching(a, b)
    elif isinstance(a, _SEQ) and isinstance(b, _SEQ) and min(deep_size(a), deep_size(b)) > MAX_WORK:
        raise GuardError("a comparison of nested sequences beyond the size cap")
    return _CMP[op](a, b)


def seq_method(obj: object, name: str, *args: object) -> object:
    """obj.count(x) / obj.index(x, …), guarded as `in` is."""
    if args:
        _searching(args[0], obj)
    return getattr(obj, name)(*args)


def _minmax(fn):
    def guarded(*args, **kwargs):
        items = (
            list(args[0]) if len(args) == 1 else list(args)
        )  # (a generator's own code is traced)
        if deep_size(items) > MAX_WORK:
            raise GuardError(f"{fn.__name__}() over nested sequences beyond the size cap")
        key = kwargs.pop("key", None)
        if key is None or not items:
            return fn(items, **kwargs)
        keys = [key(x) for x in items]
        if deep_size(keys) > MAX_WORK:
            raise GuardError(f"{fn.__name__}() keys beyond the size cap")
        return items[
            fn(range(len(items)), key=keys.__getitem__)
        ]  # (the first of the least, as min() gives)

    guarded.__name__ = fn.__name__
    return guarded


def bounded_sum(items, start=0):
    """sum() of numbers: a list or string start (`sum(rows, [])`) would concatenate in C unbounded."""
    if isinstance(start, bool) or not isinstance(start, int | float):
        raise GuardError("sum() in a checker adds numbers only")
    return sum(items, start)


def bounded_round(x, ndigits=None):
    """round() with |ndigits| ≤ MAX_ROUND_DIGITS (round(7, -n) builds 10**n)."""
    if ndigits is None:
        return round(x)
    if not isinstance(ndigits, int) or abs(ndigits) > MAX_ROUND_DIGITS:
        raise GuardError(f"round() to more than {MAX_ROUND_DIGITS} digits")
    return round(x, ndigits)


BUILTINS = {"min": _minmax(min), "max": _minmax(max), "sum": bounded_sum, "round": bounded_round}


def bounded_range(*args: int) -> range:
    """range(...) with at most MAX_ITEMS items."""
    r = range(*args)
    if len(r) > MAX_ITEMS:
        raise GuardError(f"range of {len(r)} items exceeds {MAX_ITEMS}")
    return r


def read_only(state: WorldState) -> WorldState:
    """A WorldState sharing `state`'s (frozen) objects through a read-only mapping."""
    return WorldState(
        objects=MappingProxyType(state.objects), robot=state.robot, source=state.source
    )  # type: ignore[arg-type]


class _Rewrite(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:  # noqa: N802 — ast naming
        self.generic_visit(node)
        name = _AST_OPS.get(type(node.op))
        if name is None:
            return node
        return ast.copy_location(
            ast.Call(
                ast.Name("__owl_binop", ast.Load()), [ast.Constant(name), node.left, node.right], []
            ),
            node,
        )

    def visit_Compare(self, node: ast.Compare) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        if not all(type(op) in _AST_CMP for op in node.ops):
            return node  # (`is`, `is not`: identity, no element compared)
        left, calls = node.left, []
        for op, right in zip(
            node.ops, node.comparators, strict=True
        ):  # a < b < c: (a < b) and (b < c)
            calls.append(
                ast.Call(
                    ast.Name("__owl_compare", ast.Load()),
                    [ast.Constant(_AST_CMP[type(op)]), left, right],
                    [],
                )
            )
            left = right
        out = calls[0] if len(calls) == 1 else ast.BoolOp(ast.And(), calls)
        return ast.copy_location(out, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("count", "index") and not node.keywords:
            return ast.copy_location(
                ast.Call(
                    ast.Name("__owl_seq_method", ast.Load()),
                    [f.value, ast.Constant(f.attr), *node.args],
                    [],
                ),
                node,
            )
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        name = _AST_OPS.get(type(node.op))
        if name is None:
            return node
        load = copy.deepcopy(node.target)
        for n in ast.walk(load):
            if hasattr(n, "ctx"):
                n.ctx = ast.Load()
        call = ast.Call(
            ast.Name("__owl_binop", ast.Load()), [ast.Constant(name), load, node.value], []
        )
        return ast.copy_location(ast.Assign([node.target], call), node)


def rewrite(tree: ast.Module) -> ast.Module:
    """The vetted tree with +, * and ** (also augmented) routed through `binop`, comparisons through
    `compare` and `.count`/`.index` through `seq_method`."""
    return ast.fix_missing_locations(_Rewrite().visit(tree))


GLOBALS = {"__owl_binop": binop, "__owl_compare": compare, "__owl_seq_method": seq_method}
