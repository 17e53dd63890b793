"""Every corpus instruction grounds to its expected goal literals or ends in its expected refusal,
without the simulator; one whose reading needs what the grounder cannot do yet (`gap`) must be
refused, never grounded to something else."""

from __future__ import annotations

from pathlib import Path

import pytest

from owl_bt.language.corpus import judge, load

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
