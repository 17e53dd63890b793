"""Every corpus instruction grounds to its expected goal literals or ends in its expected refusal,
without the simulator; one whose reading needs what the grounder cannot do yet (`gap`) must be
refused, never grounded to something else."""

from __future__ import annotations

from pathlib import Path

import pytest

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language.corpus import judge, load
from owl_bt.language.pipeline import ground

CASES, SCENES = load(Path(__file__).parent / "corpus")


@pytest.mark.parametrize("case", CASES, ids=[f"{c.scene}:{c.say}" for c in CASES])
def test_case_grounds_as_expected(case):
    outcome = judge(case, SCENES[case.scene])
    wanted = ("refused, should ground",) if case.gap else ("grounded right", "refused right")
    assert outcome.verdict in wanted, (outcome.literals, outcome.refusal)


def test_the_corpus_covers_enough():
    refusals = [c for c in CASES if c.refuse is not None]
    assert len(SCENES) >= 30 and len(CASES) >= 200 and len(refusals) >= 40
    per_class: dict[str, set[str]] = {}
    for c in CASES:
        per_class.setdefault(c.cls, set()).add(c.scene)
    thin = {k: len(v) for k, v in per_class.items() if len(v) < 2}
    assert not thin, f"classes seen in one scene only: {thin}"


def test_an_unexpected_grounding_is_judged_wrong():
    """The judge is not lenient: other literals, or a grounding where a refusal was expected, are wrong."""
    case = next(c for c in CASES if c.expect)
    other = type(case)(case.scene, case.say, case.cls, ("On(x, y)",))
    assert judge(other, SCENES[case.scene]).verdict == "wrong"
    refusal = type(case)(case.scene, case.say, case.cls, refuse="never said")
    assert judge(refusal, SCENES[case.scene]).verdict == "wrong"


def test_a_scene_with_no_table_gets_readings_or_one_line_refusals():
    """A prompt may list no table: every corpus instruction over its scene without the table ends in
    a reading or a one-line GroundingError — an ordering, a tower or "put it back" once raised
    KeyError for the missing table."""
    no_table = "no surface to put the"
    refused = 0
    for case in CASES:
        things = [t for t in SCENES[case.scene] if t.category != "table"]
        try:
            ground(case.say, things)
        except (GroundingError, UnknownObjectError) as exc:
            assert "\n" not in str(exc)
            refused += no_table in str(exc)
    assert refused >= 10  # the table-less readings are refused, not placed nowhere
