"""Counting generated code: checkers, and the helpers they call (directly or through other helpers) —
a helper the model defined that no checker calls is not counted as called, nor printed
(the account and the report printed ~130 lines of 12 helpers for checkers that call one)."""

from __future__ import annotations

from owl_bt.language.checker_names import called_helpers, count_line

SOURCES = {
    "goal_check0": "def goal_check0():\n    return inside('strawberry', 'bowl')",
    "action_check1": "def action_check1():\n    return on('strawberry', 'skillet')",
    "inside": "def inside(name, box):\n    return within_rim(name, box)",  # calls another helper
    "within_rim": "def within_rim(name, ref):\n    return True",
    "far": "def far(name, left):\n    return False",  # nothing calls it
    "on": "def on(name, surface):\n    return True",
    "broken": "def broken(:\n",  # does not parse: calls nothing, and nothing calls it
}


def test_the_helpers_called_are_found_through_other_helpers_in_source_order():
    assert called_helpers(SOURCES) == ["inside", "within_rim", "on"]
    assert called_helpers({"goal_check0": "def goal_check0(:"}) == []


def test_count_line_counts_only_called_helpers_and_says_how_many_more_are_unused():
    assert count_line(SOURCES, name_helpers=True, note="--verbose prints them") == (
        "2 checkers (and 3 helper functions they call: inside, within_rim, on; 2 more defined, unused; --verbose prints them)"
    )
    assert (
        count_line(list(SOURCES)) == "2 checkers (and 5 helper functions they call)"
    )  # names only: all count
    assert count_line(
        {"goal_check0": "def goal_check0():\n    return True", "far": SOURCES["far"]}
    ) == ("1 checker (1 more defined, unused)")
