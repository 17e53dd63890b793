"""An instruction the offline grounder understands and no plan can meet in the scene is answered
`impossible(<reason>)` to a sketch prompt (which ends the run failed with that reason), not refused
as a misunderstanding nor carried out in part."""

from __future__ import annotations

from pathlib import Path

import pytest

from owl_bt.errors import GroundingError
from owl_bt.language.corpus import load
from owl_bt.language.offline import OfflineGrounder
from owl_bt.language.parser import parse_sketch

_, SCENES = load(Path(__file__).parent / "corpus")


def _sketch_prompt(task: str, scene: str) -> tuple[str, list[str]]:
    things = SCENES[scene]
    objects = "\n".join(f"- {t.name} (category: {t.category}, colour: {t.colour})" for t in things)
    ops = "\n".join(f"- pick({t.name})" for t in things if not t.fixed)
    prompt = (
        f"## Task\n{task}\n\n## Objects in the scene\n{objects}\n\n"
        f"## Ground operators you may use\n{ops}\n"
    )
    return prompt, [t.name for t in things]


@pytest.mark.parametrize(
    ("task", "scene", "reason"),
    [
        ("put the hammer in the drill", "tool_bench", "the power drill is not a container"),
        ("weigh the sugar", "pantry", "and the scene has none"),
        ("put the pear where the mug was", "swap", "the mug stays where it is"),
        ("put each block on the plate of its own colour", "colour_mismatch", "none of the"),
    ],
)
def test_an_impossible_goal_is_answered_impossible(task, scene, reason):
    prompt, names = _sketch_prompt(task, scene)
    answer = OfflineGrounder().complete_kind("sketch", [{"role": "user", "content": prompt}])
    sketch = parse_sketch(answer, [], names)
    assert sketch.actions == () and reason in sketch.impossible


@pytest.mark.parametrize(
    ("task", "ending"),
    [
        ("wipe down the plate", "and the scene has none"),  # nothing named is to be put anywhere
        ("weigh the egg", "and the scene has none; say where to put it"),
    ],
)
def test_a_missing_place_asks_where_only_for_the_named_object(task, ending):
    prompt, names = _sketch_prompt(task, "kitchen_cook")
    answer = OfflineGrounder().complete_kind("sketch", [{"role": "user", "content": prompt}])
    assert parse_sketch(answer, [], names).impossible.endswith(ending)


def test_a_misunderstanding_is_still_refused_not_called_impossible():
    prompt, _ = _sketch_prompt("juggle the apple", "refusals_misc")
    with pytest.raises(GroundingError, match="did not understand: 'juggle'"):
        OfflineGrounder().complete_kind("sketch", [{"role": "user", "content": prompt}])


def test_a_prompt_is_answered_only_when_its_kind_is_told():
    """The grounder does not guess what a prompt asks from its text."""
    prompt, _ = _sketch_prompt("put the apple in the bowl", "refusals_misc")
    with pytest.raises(GroundingError, match="only when told its kind"):
        OfflineGrounder().complete([{"role": "user", "content": prompt}])
    with pytest.raises(GroundingError, match="not 'poem'"):
        OfflineGrounder().complete_kind("poem", [{"role": "user", "content": prompt}])
