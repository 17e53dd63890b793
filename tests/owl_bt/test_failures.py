"""The failure record: typed evidence, and the dict written to events.jsonl."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from owl_bt.failures import Evidence, Failure, FailureKind, Stage

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("owl_bt", "skills", "perception", "sim", "trees")


def test_the_record_carries_only_the_facts_given_with_stage_and_kind_as_strings():
    failure = Failure(
        Stage.MONITOR,
        "the end state is not sound: mug tipped over",
        "place_ontop(mug, table)",
        ("mug",),
        Evidence(sanity="mug tipped over"),
        kind=FailureKind.POSTCONDITION,
    )
    assert failure.to_dict() == {
        "stage": "monitor",
        "reason": "the end state is not sound: mug tipped over",
        "action": "place_ontop(mug, table)",
        "offending_objects": ("mug",),
        "observed": {"sanity": "mug tipped over"},
        "kind": "POSTCONDITION",
    }


def test_an_unknown_fact_is_refused():
    with pytest.raises(ValidationError):
        Evidence(colour="red")


def test_every_fact_the_code_records_is_a_field_of_evidence():
    # Evidence forbids unknown fields: a keyword that is not one fails only when that failure
    # happens (the end-state sanity check's `sanity=` raised instead of reporting the failure)
    used: dict[str, str] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                called = getattr(node, "func", None)
                name = getattr(called, "id", None) or getattr(called, "attr", None)
                if isinstance(node, ast.Call) and name in ("Evidence", "with_"):
                    for kw in node.keywords:
                        if kw.arg is not None:
                            used.setdefault(kw.arg, str(path.relative_to(ROOT)))
    assert "samples" in used and "sanity" in used  # the walk found the calls
    unknown = {k: where for k, where in used.items() if k not in Evidence.model_fields}
    assert not unknown, unknown
