"""The skill registry: skills are found through the Python entry-point group `owl_bt.skills`.

A third-party package adds a skill by declaring, in its own pyproject.toml,
`[project.entry-points."owl_bt.skills"] wipe = "my_pkg.wipe:WipeSkill"`; the planner, the prompts
and the executive then pick it up with no edit here .
"""

from __future__ import annotations

import inspect
from importlib.metadata import entry_points

from owl_bt.errors import OwlError
from owl_bt.tamp.operators import OperatorSchema
from skills.base import Skill

GROUP = "owl_bt.skills"


def registered() -> list[tuple[str, str, str]]:
    """(entry-point name, object reference, distribution that declares it) for every entry point in
    the group, sorted by name, without loading them (for `owl-bt skills`)."""
    return sorted(
        (ep.name, ep.value, ep.dist.name if ep.dist else "?") for ep in entry_points(group=GROUP)
    )


def load_skills() -> dict[str, Skill]:
    """Instances of every registered skill by operator name; raises OwlError when none are found
    (owl-bt is not installed, e.g. run from a bare checkout) or a plugin fails to load."""
    out: dict[str, Skill] = {}
    for ep in entry_points(group=GROUP):
        try:
            cls = ep.load()
            skill = cls()
        except Exception as exc:  # a broken plugin is named, not a traceback
            raise OwlError(f"skill plugin {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        if not isinstance(skill, Skill):
            raise OwlError(f"skill plugin {ep.name!r} is not a skills.base.Skill")
        why = _schema_problem(getattr(skill, "schema", None)) or _hook_problem(skill)
        if why:
            raise OwlError(f"skill plugin {ep.name!r} ({ep.value}): {why}")
        if skill.name in out and type(out[skill.name]) is not type(
            skill
        ):  # (it silently replaced the built-in pick)
            raise OwlError(
                f"skill plugin {ep.name!r} ({ep.value}) defines the operator {skill.name!r}, which another "
                f"skill ({type(out[skill.name]).__module__}) already defines; give it another name"
            )
        out[skill.name] = skill
    if not out:
        raise OwlError(
            "no skills registered: install owl-bt (pip install -e .) so its entry points exist"
        )
    return dict(sorted(out.items()))


def _hook_problem(skill: Skill) -> str | None:
    """What is wrong with a skill's refinement hooks, or None: `sample` and `simulate` must take
    the `step` argument the refiner passes (see docs/architecture.md, the skill API)."""
    for hook in ("sample", "simulate"):
        params = inspect.signature(getattr(skill, hook)).parameters.values()
        if not any(p.name == "step" or p.kind is p.VAR_KEYWORD for p in params):
            return (
                f"its {hook}() takes no `step` argument (the refinement's StepContext; "
                "see docs/architecture.md)"
            )
    return None


def _schema_problem(schema: object) -> str | None:
    """What is wrong with a skill's `schema` for the planner, or None: an OperatorSchema with a
    lower-case identifier name and at least one effect."""
    if not isinstance(schema, OperatorSchema):
        return (
            f"its schema is a {type(schema).__name__}, not an owl_bt.tamp.operators.OperatorSchema"
        )
    if not (
        isinstance(schema.name, str)
        and schema.name.isidentifier()
        and schema.name == schema.name.lower()
    ):
        return f"its operator name {schema.name!r} is not a lower-case identifier (e.g. 'wipe')"
    if not schema.add and not schema.delete:
        return f"its operator {schema.name!r} has no effects (add or delete literals)"
    return None
