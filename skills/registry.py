"""The skill registry: skills are found through the Python entry-point group `owl_bt.skills`.

A third-party package adds a skill by declaring, in its own pyproject.toml,
`[project.entry-points."owl_bt.skills"] wipe = "my_pkg.wipe:WipeSkill"`; the planner, the prompts
and the executive then pick it up with no edit here (SPEC §7 job 3).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from owl_bt.errors import OwlError
from skills.base import Skill

GROUP = "owl_bt.skills"


def registered() -> list[tuple[str, str, str]]:
    """(entry-point name, object reference, distribution that declares it) for every entry point in
    the group, sorted by name, without loading them (for `owl-bt skills`)."""
    return sorted((ep.name, ep.value, ep.dist.name if ep.dist else "?") for ep in entry_points(group=GROUP))


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
        out[skill.name] = skill
    if not out:
        raise OwlError("no skills registered: install owl-bt (pip install -e .) so its entry points exist")
    return dict(sorted(out.items()))
