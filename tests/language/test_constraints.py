"""The prompts a model answers (owl_bt.language.constraints): what they tell it about frames, the
arm's reach, the helpers and how action checks are judged."""

from __future__ import annotations

import inspect

from owl_bt.language.codebook import HELPERS
from owl_bt.language.constraints import cap_prompt, checker_prompt, sketch_prompt
from owl_bt.language.parser import Sketch, SketchAction
from owl_bt.tamp.grounding import ground
from owl_bt.tamp.operators import GroundOp

TASK = "put the strawberry on the light-grey region"


def _sketch() -> Sketch:
    op = GroundOp("place_ontop", ("strawberry", "light_grey_region"))
    return Sketch((SketchAction(op, "set it down"),), ("strawberry",), "on the region")


def test_every_prompt_says_whose_left_and_where_the_arm_reaches(berry_world, schemas):
    g = ground(berry_world, schemas)
    prompts = (
        sketch_prompt(berry_world, TASK, schemas, g.ops, g.initial),
        checker_prompt(berry_world, TASK, _sketch(), {"place_ontop"}),
    )
    for text in prompts:
        assert "Left and right are always the robot's" in text
        assert "mirrored" in text
        assert "The arm reaches object centres at x 0.35" in text


def test_the_helpers_docs_are_given_whole(berry_world, schemas):
    g = ground(berry_world, schemas)
    for text in (
        checker_prompt(berry_world, TASK, _sketch(), {"place_ontop"}),
        cap_prompt(berry_world, TASK, g.ops, sample=False),
    ):
        for name, fn in HELPERS.items():
            doc = " ".join((inspect.getdoc(fn) or "").split())
            assert doc and doc in text, name  # not cut at its first line


def test_the_checker_prompt_says_how_action_checks_are_judged(berry_world):
    text = checker_prompt(berry_world, TASK, _sketch(), {"place_ontop"})
    assert "Seen poses are off by up to about 5 mm (perception error)" in text
    assert "only the object that action moves has been displaced" in text
    assert "- action_check0: place_ontop(strawberry, light_grey_region); set it down" in text
