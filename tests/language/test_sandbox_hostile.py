"""Hostile checkers beyond the corpus of snippets (tests/language/hostile/, run by
tests/language/test_hostile_corpus.py)."""

from __future__ import annotations

from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.workspace import env_from_state


def fn(body: str, extra: str = "") -> str:
    return extra + "def goal_check0():\n" + "".join(f"    {ln}\n" for ln in body.splitlines())


def test_an_object_named_like_the_codes_own_names_does_not_replace_them(berry_world):
    """The sandbox binds each object's name to its handle; a name the code already uses (its
    own function, `math`, `state`, a helper) keeps its meaning."""
    from dataclasses import replace

    from owl_bt.state import WorldState

    berry = berry_world.get("strawberry")
    objects = {
        **berry_world.objects,
        "middle": replace(berry, name="middle"),
        "math": replace(berry, name="math"),
        "state": replace(berry, name="state"),
    }
    world = WorldState(objects=objects, robot=berry_world.robot, source=berry_world.source)
    src = fn(
        "return middle() == 2 and math.hypot(3, 4) == 5 and state.get('strawberry').pose.x > 0",
        "def middle():\n    return 2\n",
    )
    cs = CheckerSet.compile(src, world, env_from_state(world))
    assert cs.evaluate("goal_check0", world) is True, cs.errors
