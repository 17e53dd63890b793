"""Negated goals ("don't move the apple", in any spelling) are refused and nothing moves; leaving
objects out ("all but the apple") is not negation."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import last_line, owl_wide


@pytest.mark.slow
def test_a_negated_goal_is_not_carried_out(tmp_path):
    """ "don't put the strawberry on the plate" was carried out as "put"; now the offline grounder says it
    does not handle negation and nothing moves (a "not" that leaves objects out still works: test_offline)."""
    proc = owl_wide(
        "run",
        "don't put the strawberry on the plate",
        "--task",
        "citrus",
        "--perception",
        "sim-state",
        "--quiet",
        "--json",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 1, proc.stderr
    assert "the offline grounder does not handle negation ('do not put')" in last_line(proc.stderr)
    result = json.loads(proc.stdout)
    assert result["executed"] == [] and result["plan"] == []


def test_negation_is_told_from_leaving_objects_out():
    from owl_bt.language.mentions import tokens_of
    from owl_bt.language.negation import negation

    for goal in (
        "never put the apple in the bowl",
        "the strawberry should not be in the bowl",
        "make sure it is not on the plate",
        "please do not move the apple",
        "the pear shouldn't go there",
    ):
        assert negation(tokens_of(goal)), goal
    for goal in (
        "put the fruit but not the apple on the plate",
        "put all the fruit and not the pear on the plate",
        "put all the fruit except the apple on the plate",
    ):  # (", not in the bowl" is one now: polish 5)
        assert negation(tokens_of(goal)) is None, goal


@pytest.mark.slow
@pytest.mark.parametrize(
    ("goal", "words"),
    [
        ("put the strawberry not onto the light-grey region", "not onto"),
        ("dont put the strawberry on the light-grey region", "dont put"),
    ],
)
def test_a_negated_goal_in_any_spelling_is_refused_and_nothing_moves(tmp_path, goal, words):
    """ "put the strawberry not onto the region" was carried out as "onto", and "dont put …" got
    `did you mean "onto"?` instead of the negation refusal."""
    proc = owl_wide(
        "run",
        goal,
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--quiet",
        "--json",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 1, proc.stderr
    assert f"the offline grounder does not handle negation ('{words}')" in last_line(proc.stderr)
    result = json.loads(proc.stdout)
    assert result["executed"] == [] and result["plan"] == []


def test_negation_spellings_are_found_and_leaving_objects_out_is_not_one():
    from owl_bt.language.mentions import tokens_of
    from owl_bt.language.negation import negation

    said = {
        "do not put the apple in the bowl": "do not put",
        "don't put the apple in the bowl": "do not put",
        "dont put the apple in the bowl": "dont put",
        "never put the apple in the bowl": "never put",
        "put the apple on the plate without touching the bowl": "without touching",
        "put the apple not onto the plate": "not onto",
        "put the apple on the plate, not in the bowl": "not in",
        "put the apple not in the bowl but on the plate": "not in",
        "the apple shouldnt be in the bowl": "shouldnt be",
        "do not ever put the apple in the bowl": "do not ever put",
        "put the apple nowhere near the bowl": "nowhere near",
        "avoid putting the apple in the bowl": "avoid putting",
        # "put no fruit on the plate" put every fruit on it; "…. No, in the bowl" gave both goals
        "put no fruit on the plate": "no fruit",
        "put none of the fruit on the plate": "none of",
        "put nothing on the plate": "nothing on",
        "put the apple on the plate. No, in the bowl": "no",
    }
    for goal, words in said.items():
        assert negation(tokens_of(goal)) == words, goal
    for goal in (
        "put the fruit but not the apple on the plate",
        "put all the fruit and not the pear on the plate",
        "put all the fruit except the apple on the plate",
        "put the knot on the plate",
    ):
        assert negation(tokens_of(goal)) is None, goal
