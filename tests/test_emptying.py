"""Emptying a container onto the table, however it is said: "empty the mug", "pour out the mug", "pour the
golf ball out of the mug", "take the ball out of the mug by pouring": the container is tipped over an empty
part of the table, then stood back upright (newcomer: "pour out the mug" was refused, "… by pouring" blamed
"take", and "empty the mug" described the ball falling "into the table" and left the mug on its side)."""

from __future__ import annotations

import pytest
from test_offline import SCENE, goals, thing

from owl_bt.errors import GroundingError
from owl_bt.language.offline import plan_for

BALL = thing("ball", "golf_ball", "white", 0.7, 0.05, (0.04, 0.04, 0.04), z0=0.01)  # in the mug
WITH_BALL = [*SCENE, BALL]


@pytest.mark.parametrize("text", [
    "empty the mug", "pour out the mug", "pour the ball out of the mug", "pour the golf ball out",
    "tip the mug out", "take the ball out of the mug by pouring", "remove the ball from the mug by pouring it out",
    "get the ball out of the mug by tipping it over",
])
def test_emptying_said_many_ways_tips_out_and_stands_the_container_up(text):
    assert goals(text, WITH_BALL) == [("mug", "pour", "table", (), True, True, False)]
    plan = plan_for(text, WITH_BALL)
    assert [s.line().split(";")[0] for s in plan.steps] == ["pick(mug)", "pour(mug, table)", "place_ontop(mug, table)"]
    pour, place = plan.steps[1], plan.steps[2]
    assert "so the ball falls out" in pour.text and "into the table" not in pour.text
    assert 'not inside("ball", "mug")' in pour.check
    assert place.text == "set the empty mug upright on the table" and 'upright("mug")' in place.check
    assert plan.goal_checks == ['all([not inside("ball", "mug"), upright("mug")])']
    assert plan.meaning == "the ball poured out of the mug, which stands upright"


def test_pouring_into_a_container_keeps_its_meaning():
    """A pour into a container is not an emptying: tipped in, the source put down (no upright demanded)."""
    assert goals("pour the ball from the mug into the big bowl", WITH_BALL)[0][:5] == ("mug", "pour", "big_bowl", (), False)
    plan = plan_for("pour the ball from the mug into the big bowl", WITH_BALL)
    assert "falls in" in plan.steps[1].text and not any('upright("mug")' in c for c in plan.goal_checks)


def test_emptying_what_is_not_there_says_so():
    with pytest.raises(GroundingError, match="the apple is not in the mug"):
        goals("pour the apple out of the mug", WITH_BALL)
    with pytest.raises(GroundingError, match="nothing in the mug to pour out"):
        goals("empty the mug", SCENE)
