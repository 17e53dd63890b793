"""`owl-bt skills`: the skills registered through the entry-point group `owl_bt.skills`, each with
its operator schema (typed parameters, preconditions, effects), its description for the model, and
the package that provides it."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from skills.registry import load_skills, registered


def _atoms(atoms) -> str:
    return ", ".join(f"{pred}({', '.join(args)})" for pred, args in atoms) or "—"


def skill_records() -> list[dict]:
    """One dict per registered skill: name, signature, params [(name, type)], pre, add, delete
    (atoms as text), open_world, description, entry_point, package. Raises OwlError when a plugin
    fails to load."""
    skills = load_skills()
    where = {name: (value, dist) for name, value, dist in registered()}
    out = []
    for name, skill in skills.items():
        s = skill.schema
        value, dist = where.get(name, (f"{type(skill).__module__}:{type(skill).__name__}", "?"))
        out.append(
            {
                "name": name,
                "signature": f"{name}({', '.join(f'{p}: {t}' for p, t in s.params)})",
                "params": [list(p) for p in s.params],
                "pre": _atoms(s.pre),
                "add": _atoms(s.add),
                "delete": _atoms(s.delete),
                "open_world": s.open_world,
                "description": s.description,
                "entry_point": value,
                "package": dist,
            }
        )
    return out


def print_skills(out: Console, records: list[dict]) -> None:
    """The records as a readable list on `out`."""
    for r in records:
        # a plugin's names are text, not markup: a '[' in them must not break (or style) the listing
        out.print(
            f"[bold]{escape(r['signature'])}[/]  [dim]from {escape(str(r['package']))} ({escape(r['entry_point'])})[/]",
            highlight=False,
        )
        out.print(f"    pre:    {r['pre']}", markup=False)
        out.print(f"    add:    {r['add']}", markup=False)
        out.print(f"    delete: {r['delete']}", markup=False)
        out.print(
            f"    open-world (gets a generated checker): {'yes' if r['open_world'] else 'no'}",
            markup=False,
        )
        out.print(f"    {r['description']}", markup=False)
        out.print()
