"""The plan-sketch and checker parsers accept what models write and reject the rest with a reason."""

from __future__ import annotations

import pytest

from owl_bt.errors import ModelAnswerError
from owl_bt.language.parser import extract_code, parse_checkers, parse_sketch
from owl_bt.tamp.operators import GroundOp

OPS = [
    GroundOp("pick", ("berry",)),
    GroundOp("place_ontop", ("berry", "pad")),
    GroundOp("place_ontop", ("berry", "table")),
]
NAMES = ["berry", "pad", "table"]


def test_plain_block():
    s = parse_sketch(
        "The berry is on the table.\nPlan:\npick(berry); grab it\nplace_ontop(berry, pad); centre\n"
        "achieve_goal(berry, pad); berry on pad\n",
        OPS,
        NAMES,
    )
    assert [str(a.op) for a in s.actions] == ["pick(berry)", "place_ontop(berry, pad)"]
    assert s.actions[1].description == "centre"
    assert s.goal_objects == ("berry", "pad")


def test_numbered_bulleted_fenced_and_trailing_prose():
    text = (
        "**Plan:**\n```\n1. pick(berry); grab it\n\n- place(berry, pad); centre\n"
        "* achieve_goal(berry, pad); done\n```\nHope this helps!"
    )
    s = parse_sketch(text, OPS, NAMES)
    assert [str(a.op) for a in s.actions] == ["pick(berry)", "place_ontop(berry, pad)"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("pick(berry); x\n", "no line 'Plan:'"),
        ("Plan:\npick(apple); x\nachieve_goal(berry); y", "'apple', which is not in the scene"),
        (
            "Plan:\nplace_inside(berry, pad); x\nachieve_goal(berry); y",
            "not one of the ground operators",
        ),
        ("Plan:\npick(berry); x\n", "does not end with achieve_goal"),
        ("Plan:\nthrow the berry\n", "is not '<operator>(<args>); <description>'"),
    ],
)
def test_rejections_carry_reason(text, reason):
    with pytest.raises(ModelAnswerError) as exc:
        parse_sketch(text, OPS, NAMES)
    assert reason in exc.value.reason


def test_checker_code_from_fences_and_required_names():
    code = extract_code("Here:\n```python\ndef goal_check0():\n    return True\n```\n")
    assert code.startswith("def goal_check0")
    with pytest.raises(ModelAnswerError, match="action_check1"):
        parse_checkers(
            "```python\ndef goal_check0():\n    return True\n```", ["goal_check0", "action_check1"]
        )
    with pytest.raises(ModelAnswerError, match="no Python code"):
        extract_code("I cannot help with that.")


def test_a_newline_the_person_types_is_not_replan_history():
    from owl_bt.language.constraints import split_instruction

    typed = "put the strawberry\nonto the region"
    assert split_instruction(typed, []) == (
        "put the strawberry onto the region",
        "(none: this is the first attempt)",
    )
    line = "attempt 1: plan: failed — no sample satisfied"
    assert split_instruction(typed + "\n" + line, [line]) == (
        "put the strawberry onto the region",
        line,
    )


def test_inline_code_bold_steps_and_quoted_names():
    text = (
        "### Plan:\nStep 1: `pick(berry)`; grab it\n2) **place_ontop('berry', 'pad')** — centre it\n\n"
        "3. `achieve_goal(berry, pad)`; done\n\nThat is all."
    )
    s = parse_sketch(text, OPS, NAMES)
    assert [str(a.op) for a in s.actions] == ["pick(berry)", "place_ontop(berry, pad)"]
    assert s.actions[1].description == "centre it"
    with pytest.raises(ModelAnswerError, match="ambiguous or unknown"):
        parse_sketch("Plan:\nplace(berry, berry)\nachieve_goal(berry); x", OPS, NAMES)


def test_a_sketch_longer_than_the_cap_is_sent_back():
    lines = "".join(
        "pick(berry); grab it\nplace_ontop(berry, pad); put it down\n" for _ in range(31)
    )
    with pytest.raises(ModelAnswerError, match="more than 60 actions"):
        parse_sketch(f"Plan:\n{lines}achieve_goal(berry); done\n", OPS, NAMES)
