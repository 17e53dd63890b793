"""Which clause of a checker fails: probe functions that return one conjunct each.

A checker that ends `return A and B and C` (or returns a call to a helper of its own code that ends
so, `return set_beside("fork", "left")`) is split into one probe per conjunct: the checker's (and the
helper's, its parameters bound to the call's arguments) statements before the return, then
`return bool(<conjunct>)`. Judged on the same states as the checker, the probes show which part
never holds — the evidence constraint repair sends back to the model (`owl_bt.language.repair`).
Checkers of any other shape (an early return, keyword arguments, a single clause) give no probes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

PROBE_PREFIX = "clause_probe_"


@dataclass(frozen=True)
class Clause:
    text: str  # the conjunct as written
    probe: str  # the probe function's name
    source: str  # the probe function's source


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _conjunction(fn: ast.FunctionDef) -> tuple[list[ast.stmt], ast.expr] | None:
    """(statements before the final return, its value) when `fn` returns only at its end."""
    if not fn.body or not isinstance(fn.body[-1], ast.Return) or fn.body[-1].value is None:
        return None
    before = fn.body[:-1]
    if any(isinstance(n, ast.Return) for s in before for n in ast.walk(s)):
        return None
    return before, fn.body[-1].value


def clauses(source: str, name: str) -> list[Clause]:
    """One Clause per conjunct of checker `name` in `source` (see the module's docstring); [] when
    it is not a conjunction of two or more parts."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    fns = _functions(tree)
    fn = fns.get(name)
    found = _conjunction(fn) if fn is not None else None
    if found is None:
        return []
    before, value = found
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.keywords:
        helper = fns.get(value.func.id)
        inner = _conjunction(helper) if helper is not None and helper is not fn else None
        params = [a.arg for a in helper.args.args] if helper is not None else []
        if inner is not None and len(params) == len(value.args) and not helper.args.vararg:
            bind = [
                ast.Assign(targets=[ast.Name(p, ast.Store())], value=a, lineno=0)
                for p, a in zip(params, value.args, strict=True)
            ]
            before, value = before + bind + inner[0], inner[1]
    if not (isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And)):
        return []
    out = []
    for k, part in enumerate(value.values):
        body = [*before, ast.Return(ast.Call(ast.Name("bool", ast.Load()), [part], []))]
        probe = ast.FunctionDef(
            name=f"{PROBE_PREFIX}{k}",
            args=ast.arguments([], [], None, [], [], None, []),
            body=body,
            decorator_list=[],
            returns=None,
            type_params=[],
            lineno=0,
        )
        text = ast.unparse(ast.fix_missing_locations(probe))
        out.append(Clause(_shown(part, before), probe.name, text))
    return out


def _shown(part: ast.expr, before: list[ast.stmt]) -> str:
    """The conjunct as written; a local name with what it was last set to (`level = …`)."""
    text = ast.unparse(part)
    if isinstance(part, ast.Name):
        for s in reversed(before):
            if isinstance(s, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == part.id for t in s.targets
            ):
                return f"{text} (= {ast.unparse(s.value)})"
    return text
