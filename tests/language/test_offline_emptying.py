"""Emptying and pouring, however it is said: "empty the mug", "pour out the mug", "pour the
golf ball out of the mug", "take the ball out of the mug by pouring": the container is tipped over an empty
part of the table, then stood back upright ("pour out the mug" was refused, "… by pouring" blamed
"take", and "empty the mug" described the ball falling "into the table" and left the mug on its side)."""

from __future__ import annotations

import pytest

from owl_bt.errors import GroundingError
from owl_bt.language.offline import plan_for
from owl_bt.language.reading import Reader
from tests.support.offline_scenes import SCENE, goals, thing

BALL = thing("ball", "golf_ball", "white", 0.7, 0.05, (0.04, 0.04, 0.04), z0=0.01)  # in the mug
WITH_BALL = [*SCENE, BALL]


@pytest.mark.parametrize(
    "text",
    [
        "empty the mug",
        "pour out the mug",
        "pour the ball out of the mug",
        "pour the golf ball out",
        "tip the mug out",
        "take the ball out of the mug by pouring",
        "remove the ball from the mug by pouring it out",
        "get the ball out of the mug by tipping it over",
    ],
)
def test_emptying_said_many_ways_tips_out_and_stands_the_container_up(text):
    assert goals(text, WITH_BALL) == [("mug", "pour", "table", (), True, True, False)]
    plan = plan_for(text, WITH_BALL)
    assert [s.line().split(";")[0] for s in plan.steps] == [
        "pick(mug)",
        "pour(mug, table)",
        "place_ontop(mug, table)",
    ]
    pour, place = plan.steps[1], plan.steps[2]
    assert "so the ball falls out" in pour.text and "into the table" not in pour.text
    assert 'not inside("ball", "mug")' in pour.check
    assert (
        place.text == "set the empty mug upright on the table" and 'upright("mug")' in place.check
    )
    assert plan.goal_checks == ['all([not inside("ball", "mug"), upright("mug")])']
    assert plan.meaning == "the ball poured out of the mug, which stands upright"


def test_pouring_into_a_container_keeps_its_meaning():
    """A pour into a container is not an emptying: tipped in, the source put down (no upright demanded)."""
    assert goals("pour the ball from the mug into the big bowl", WITH_BALL)[0][:5] == (
        "mug",
        "pour",
        "big_bowl",
        (),
        False,
    )
    plan = plan_for("pour the ball from the mug into the big bowl", WITH_BALL)
    assert "falls in" in plan.steps[1].text and not any(
        'upright("mug")' in c for c in plan.goal_checks
    )


def test_emptying_what_is_already_out_stands_the_container_up():
    """A replan after the pour (the ball out, the mug still in the hand) gave up with "there is
    nothing in the mug to pour out", the mug left in the gripper. What is left of the goal is the mug upright."""
    ball = thing("ball", "golf_ball", "white", 0.4, 0.0, (0.04, 0.04, 0.04))
    in_hand = [t for t in SCENE if t.name != "mug"] + [
        ball,
        thing("mug", "mug", "green", 0.5, 0.2, (0.08, 0.08, 0.1), z0=0.25, roll=2.0),
    ]  # held tipped over the table
    for text in (
        "empty the mug",
        "pour the ball out of the mug",
        "take the ball out of the mug by pouring",
    ):
        assert goals(text, in_hand) == [("mug", "ontop", "table", (), True, True, False)], text
        plan = plan_for(text, in_hand, held="mug")
        assert [s.line().split(";")[0] for s in plan.steps] == [
            "pick(mug)",
            "place_ontop(mug, table)",
        ], text
        assert (
            'upright("mug")' in plan.steps[1].check
        )  # (the pick of what is in the hand is done already)
    assert plan_for("empty the mug", SCENE).steps == []  # empty and upright already: nothing to do


PLUM = thing("plum", "plum", "purple", 0.6, 0.2, (0.05, 0.05, 0.05), z0=0.01)  # in the big bowl
TWO = [*WITH_BALL, PLUM]


def _steps(text, scene=TWO):
    return [s.line().split(";")[0] for s in plan_for(text, scene).steps]


EMPTY_MUG = ["pick(mug)", "pour(mug, table)", "place_ontop(mug, table)"]
EMPTY_BOWL = ["pick(big_bowl)", "pour(big_bowl, table)", "place_ontop(big_bowl, table)"]


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        (
            "empty both containers",
            EMPTY_BOWL + EMPTY_MUG,
        ),  # (only one was emptied, and success claimed)
        ("empty the mug and the big bowl", EMPTY_MUG + EMPTY_BOWL),
        ("pour the ball out of the mug and the plum out of the big bowl", EMPTY_MUG + EMPTY_BOWL),
        ("empty everything", EMPTY_BOWL + EMPTY_MUG),
        ("pick up the mug and empty it", EMPTY_MUG),  # ("pour into what?")
        ("tip over the mug", EMPTY_MUG),
        (
            "empty the mug and put the ball back in it",
            EMPTY_MUG + ["pick(ball)", "place_inside(ball, mug)"],
        ),
    ],
)
def test_emptying_several_containers_pronouns_and_what_comes_after(text, steps):
    assert _steps(text) == steps


def test_emptying_what_lies_in_nested_containers_takes_the_innermost():
    """Break-it: "pour the golf ball out" with the mug standing in a bowl poured the bowl."""
    bowl = thing("big_bowl", "bowl", "blue", 0.7, 0.05, (0.16, 0.16, 0.06))
    scene = [t for t in WITH_BALL if t.name != "big_bowl"] + [bowl]
    scene = [
        thing("mug", "mug", "green", 0.7, 0.05, (0.08, 0.08, 0.1), z0=0.005)
        if t.name == "mug"
        else t
        for t in scene
    ]
    assert _steps("pour the golf ball out", scene) == EMPTY_MUG


def test_emptying_says_what_it_cannot_do():
    with pytest.raises(GroundingError, match="the apple is not in the mug \\(the ball is\\)"):
        goals("pour the apple out of the mug", WITH_BALL)
    with pytest.raises(
        GroundingError,
        match="^'near the big bowl': the offline grounder empties a container onto a free",
    ):
        goals("empty the mug near the big bowl", WITH_BALL)


def test_a_container_is_never_in_or_on_what_lies_in_it():
    """Break-it: "pick up the mug and put it back where it was" with the golf ball in it answered "the robot has no
    action place_ontop(mug, golf_ball)": the mug was taken to be in its own ball."""
    assert goals("pick up the mug and put it back where it was", WITH_BALL)[0][:3] == (
        "mug",
        "ontop",
        "table",
    )


def test_emptying_what_is_no_container_says_what_to_say_instead():
    plum_on_plate = [
        *SCENE,
        thing("plum", "plum", "purple", 0.45, 0.15, (0.05, 0.05, 0.05), z0=0.02),
    ]
    for text, says in [
        (
            "empty the plate",
            "the plate is not a container to pour out; to take what is on it off, say "
            "'clear the plate'",
        ),
        (
            "empty the table",
            "the table is not a container to pour out; say where what is on it goes",
        ),
        ("empty the apple", "the apple lies in no container: there is nothing to pour it out of"),
        ("empty everything", "no container in the scene holds anything to pour out"),
    ]:
        with pytest.raises(GroundingError, match=f"^{says}"):
            goals(text, plum_on_plate)


def test_emptying_onto_a_plate_puts_what_falls_out_on_it():
    """Break-it: "empty the mug onto the plate" was met with the ball anywhere out of the mug (on the table
    beside the plate), and asked for the plate to stand upright, as a bowl poured into must."""
    plan = plan_for("empty the mug onto the plate", WITH_BALL)
    assert [s.line().split(";")[0] for s in plan.steps] == [
        "pick(mug)",
        "pour(mug, plate)",
        "place_ontop(mug, table)",
    ]
    assert (
        plan.goal_checks == ['on("ball", "plate")'] and 'on("ball", "plate")' in plan.steps[1].check
    )


@pytest.mark.parametrize(
    "text",
    [
        "put the strawberry in the mug, then empty the mug",
        "put the strawberry in the mug, then empty it",
        "put the strawberry in the mug and then pour it out",
    ],
)
def test_filling_then_emptying_is_done_in_the_order_said(text):
    """Break-it: "put X in the mug, then empty the mug" emptied the mug first and left X in it, meeting a goal
    the person had undone; "… then empty it" was refused ("the strawberry lies in no container")."""
    plan = plan_for(text, WITH_BALL)
    assert [s.line().split(";")[0] for s in plan.steps] == [
        "pick(strawberry)",
        "place_inside(strawberry, mug)",
        "pick(mug)",
        "pour(mug, table)",
        "place_ontop(mug, table)",
    ]
    assert plan.goal_checks == [
        'all([not inside("ball", "mug"), not inside("strawberry", "mug"), upright("mug")])'
    ]


def test_emptying_a_can_of_soup_pours_the_can():
    """ "empty the soup can into the bowl" poured the soup with the can as its contents (the can's box held
    in the soup's)."""
    scene = [
        thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
        thing("soup_can", "tomato_soup_can", "red", 0.5, -0.2, (0.07, 0.07, 0.1)),
        thing("soup", "soup", "red", 0.5, -0.2, (0.05, 0.05, 0.03), z0=0.005),
        thing("bowl", "bowl", "red", 0.6, 0.2, (0.16, 0.16, 0.06)),
    ]
    for text in ("empty the soup can into the bowl", "pour the soup into the bowl"):
        (g,) = Reader(scene).read(text).goals
        assert (g.obj, g.how, g.support, g.contents) == ("soup_can", "pour", "bowl", ("soup",)), (
            text
        )


def test_pouring_from_a_named_can_making_sure_and_meat():
    """ "pour the soup from the can into the bowl" asked which can (the one the soup is in: no question);
    "making sure" and "the meat" were unknown words."""
    scene = [
        thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
        thing("soup_can", "tomato_soup_can", "red", 0.5, -0.2, (0.07, 0.07, 0.1)),
        thing("soup", "soup", "red", 0.5, -0.2, (0.05, 0.05, 0.03), z0=0.005),
        thing("meat_can", "potted_meat_can", "blue", 0.3, 0.1, (0.1, 0.06, 0.08)),
        thing("bowl", "bowl", "red", 0.6, 0.2, (0.16, 0.16, 0.06)),
    ]
    (g,) = Reader(scene).read("pour the soup from the can into the bowl").goals
    assert (g.obj, g.how, g.support, g.contents) == ("soup_can", "pour", "bowl", ("soup",))
    with pytest.raises(GroundingError, match="the soup is not in the meat can"):
        goals("pour the soup out of the meat can into the bowl", scene)
    assert goals("put the meat next to the bowl", scene)[0][:4] == (
        "meat_can",
        "ontop",
        "table",
        (("near", ("bowl",)),),
    )
    assert goals("put the strawberry into the mug, making sure the mug is upright") == [
        ("strawberry", "inside", "mug", (), False, True, False),
        ("mug", "ontop", "table", (), True, True, False),
    ]


def test_taking_out_emptying_and_a_place_said_before():
    """mug3 in other words: "…, but first take the ball out" passed over the ball; "empty the mug and put the
    fork in it" and "take the ball out of the mug, then put the fork in" asked "in what?"; berry1: "move the
    strawberry to the grey area" moved the region (fixed) and the strawberry to the table."""
    scene = [
        *SCENE,
        thing("ball", "golf_ball", "white", 0.7, 0.05, (0.04, 0.04, 0.04), z0=0.01),
    ]  # in the mug
    take_out = ("ball", "ontop", "table", (("off", ("mug",)),))
    assert [
        g[:4] for g in goals("put the spoon in the mug, but first take the ball out", scene)
    ] == [take_out, ("spoon", "inside", "mug", ())]
    assert [g[:4] for g in goals("take the ball out of the mug, then put the spoon in", scene)] == [
        take_out,
        ("spoon", "inside", "mug", ()),
    ]
    assert [g[:3] for g in goals("take the ball out and put it next to the ketchup", scene)] == [
        ("ball", "ontop", "table")
    ]
    assert [g[:3] for g in goals("empty the mug and put the spoon in it", scene)] == [
        ("mug", "pour", "table"),
        ("spoon", "inside", "mug"),
    ]
    region = [
        *SCENE,
        thing("grey_region", "region", "light_grey", 0.55, 0.0, (0.1, 0.1, 0.001), fixed=True),
    ]
    assert goals("move the lime to the grey area", region) == [
        ("lime", "ontop", "grey_region", (), False, True, False)
    ]
