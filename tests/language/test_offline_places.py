"""The offline grounder's places and spatial relations: behind, beside, between, near, far, the centre,
the robot's left and right, halves of a surface, where a thing is or was; places that fit no reading
are asked about in one line. Hand-written scenes, no planning."""

from __future__ import annotations

import math
import re

import pytest

from owl_bt.errors import GroundingError
from owl_bt.language.checker_helpers import FAR_APART
from owl_bt.language.offline import plan_for
from owl_bt.language.offline_cap import gen_plan_code
from owl_bt.language.scene_view import Thing
from owl_bt.state import Pose
from tests.support.offline_scenes import SCENE, answer, goal_holds, goals, obj, scene, thing

REGION = thing(
    "light_grey_region", "region", "light_grey", 0.55, 0.0, (0.16, 0.16, 0.002), fixed=True
)


FRUIT_BOWL = [
    obj("bowl", "bowl", 0.55, 0.18, (0.16, 0.16, 0.06), shape="cylinder"),
    obj("apple", "apple", 0.45, 0.0, (0.075, 0.075, 0.075), shape="sphere"),
]


@pytest.mark.parametrize(
    ("mug_y", "already"), [(0.02, False), (0.09, True), (0.2, True), (0.27, True), (0.36, False)]
)
def test_behind_a_thing_is_in_line_with_it_not_diagonally_off(mug_y, already):
    """examples/fruit_bowl.toml: the mug at y=0.02 behind a bowl at y=0.18 (16 cm across: its edge at 0.10) was
    'already behind it'. In line: the centre within the bowl's width plus 3 cm (2 cm for the plan's own judgement)."""
    mug = obj("mug", "mug", 0.68, mug_y, (0.072, 0.072, 0.09), shape="cylinder")
    world = scene(*FRUIT_BOWL, mug)
    plan, c = answer("move the mug behind the bowl", world)
    assert (plan.steps == []) is already and goal_holds(c, world) is already
    moved = world.with_pose("mug", Pose(0.72, 0.18, 0.045))
    assert goal_holds(c, moved)


def test_the_strip_is_what_the_guided_sampler_draws_from():
    """side() checks one box, so constraint-guided sampling (tamp.refine.guide) draws in the strip, not the half-table."""
    from owl_bt.tamp.guidance import guide

    world = scene(
        *FRUIT_BOWL, obj("mug", "mug", 0.68, 0.02, (0.072, 0.072, 0.09), shape="cylinder")
    )
    _, c = answer("move the mug behind the bowl", world)
    hint = guide(
        world, "mug", [(n, c.as_callable(n)) for n in c.names() if n.startswith("goal_check")]
    )
    assert hint is not None and hint[0][0] >= 0.63 - 1e-9
    assert hint[0][1] == pytest.approx(0.10 - 0.03) and hint[1][1] == pytest.approx(0.26 + 0.03)


# a tester's scene, listed as perception lists it (alphabetically): the apple and the lemon come first
# but are the farthest from the robot's base (the origin); the strawberry and the peach are the nearest
TESTER = [
    thing("table", "table", "brown", 0.55, 0.0, (0.7, 0.9, 0.0), fixed=True, z0=-0.001),
    thing("apple", "apple", "red", 0.72, 0.25, (0.07, 0.07, 0.07)),
    thing("bowl", "bowl", "white", 0.55, 0.2, (0.16, 0.16, 0.06)),
    thing("lemon", "lemon", "yellow", 0.7, -0.25, (0.06, 0.05, 0.05)),
    thing("peach", "peach", "orange", 0.45, 0.05, (0.06, 0.06, 0.06)),
    thing("plate", "plate", "white", 0.55, -0.16, (0.2, 0.2, 0.02)),
    thing("potted_meat_can", "potted_meat_can", "blue", 0.6, 0.3, (0.1, 0.06, 0.08)),
    thing("strawberry", "strawberry", "red", 0.4, -0.05, (0.03, 0.03, 0.04)),
    thing("tomato_soup_can", "tomato_soup_can", "red", 0.65, 0.0, (0.07, 0.07, 0.1)),
]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "put the apple behind the robot",
            "^'behind the robot' is off the table: the robot's base is at the table's near edge",
        ),
        ("put the apple in back of the robot", "^'in back of the robot' is off the table"),
        (
            "put the apple to the left of the robot",
            "^'left of the robot': the robot is no object in the scene",
        ),
    ],
)
def test_a_place_said_of_the_robot_off_the_table_is_refused_in_one_line(text, reason):
    """'behind the robot' was "did not understand: 'robot'" while 'near the robot' was understood."""
    with pytest.raises(GroundingError, match=reason) as err:
        plan_for(text, TESTER)
    assert "\n" not in str(err.value)
    assert goals("put the apple near the robot", TESTER)[0][3] == (("front", ()),)


def test_a_colour_and_thing_may_name_a_place_and_a_phrase_nothing_fits_is_asked_about():
    # "put the strawberry on the grey thing" ended in "IndexError: list index out of range"
    scene_ = [*SCENE, REGION]
    assert goals("put the strawberry on the grey thing", scene_)[0][:3] == (
        "strawberry",
        "ontop",
        "light_grey_region",
    )
    assert goals("put the strawberry on the grey one", scene_)[0][:3] == (
        "strawberry",
        "ontop",
        "light_grey_region",
    )
    with pytest.raises(GroundingError, match="nothing in the scene fits it"):
        goals("put the strawberry on the purple thing", scene_)


def test_the_robots_left_is_the_left():
    # "… to the robot's left side of the red line" was "did not understand: \"robot's\"", though
    # every report says left and right are the robot's
    assert goals("put the apple to the robot's left of the plate") == goals(
        "put the apple to the left of the plate"
    )
    assert goals("move the lemon to the robot's right side of the plate") == goals(
        "move the lemon to the right side of the plate"
    )


@pytest.mark.parametrize(
    "text",
    [
        "put the strawberry onto the light-grey region and off the light-grey region",
        "put the strawberry onto the light grey region but off the light grey region",
        "put the strawberry off the light-grey region and onto the light-grey region",
    ],
)
def test_on_and_off_the_same_place_is_asked_about_not_half_dropped(text):
    # The "off" half was dropped and the run said success
    with pytest.raises(
        GroundingError,
        match="asks for the strawberry both on and off the light grey region; say one",
    ):
        goals(text, [*SCENE, REGION])
    # taking it off one place and putting it on another is no contradiction
    assert goals("move the apple off the plate onto the light grey region", [*SCENE, REGION])[0][
        :3
    ] == ("apple", "ontop", "light_grey_region")


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("put the apple next to the strawberry, then put the lemon between them", "1: apple"),
        ("put the lemon between it and the apple", "1: apple"),
        ("put the lemon between the apple and the apple", "1: apple"),
        ("put the lemon between the apple", "1: apple"),
    ],
)
def test_between_what_is_not_two_things_is_asked_about(text, names):
    # "between them" after one object, and "between the plates" in a scene of one, ended in
    # "IndexError: tuple index out of range"
    with pytest.raises(
        GroundingError, match=f"'between' needs two things, and .* names {names}; name the two"
    ):
        goals(text, [*SCENE, REGION])
    assert goals("put the lemon between the apple and the strawberry", [*SCENE, REGION])[0][3] == (
        ("between", ("apple", "strawberry")),
    )


@pytest.mark.parametrize(
    ("text", "half"),
    [
        ("put the lemon on the left half of the plate", "half_left"),
        ("put the lemon onto the right half of the plate", "half_right"),
        ("put the lemon on the back half of the plate and the lime in the big bowl", "half_back"),
    ],
)
def test_a_half_of_a_plate_is_that_half_of_it(text, half):
    # "on the left half of the plate" put the lemon at the far left of the table and said success
    got = goals(text, [*SCENE, REGION])
    assert got[0][:4] == ("lemon", "ontop", "plate", ((half, ()),))
    assert (
        goals("put the lemon on the left half of the table", [*SCENE, REGION])[0][:4]
        == goals("put the lemon on the left side of the table", [*SCENE, REGION])[0][:4]
    )


@pytest.mark.parametrize(
    ("text", "near"),
    [
        ("put the apple near where the lemon is", ("lemon",)),
        ("put the apple next to where the lemon and the lime are", ("lemon", "lime")),
        ("put the apple near where the other fruit are", ("strawberry", "lemon", "lime")),
    ],
)
def test_near_where_a_thing_is_is_near_it(text, near):
    (g,) = goals(text)
    assert g[:3] == ("apple", "ontop", "table")
    assert {r for rel, refs in g[3] for r in refs if rel == "near"} == set(near)


def test_where_a_thing_was_at_the_start_is_still_its_first_place():
    said = "put the lemon on the plate, then put the apple where the lemon was"
    assert goals(said)[1][3] == (("at_initial", ("lemon",)),)


def test_where_a_thing_is_means_beside_it_where_it_is_then():
    # "is": the lemon's place when the clause is read (on the plate, put there first), beside it
    said = "put the lemon on the plate, then put the apple where the lemon is"
    assert goals(said)[1][1:4] == ("ontop", "plate", (("near", ("lemon",)),))
    assert goals("put the apple where the lemon is")[0][1:4] == (
        "ontop",
        "table",
        (("near", ("lemon",)),),
    )


@pytest.mark.parametrize(
    "text",
    ["put the apple in the center", "put the apple in the middle.", "put the apple at the centre"],
)
def test_the_centre_alone_is_the_tables(text):
    assert goals(text)[0][:4] == ("apple", "ontop", "table", (("middle", ()),))


def test_the_centre_after_another_support_is_not_moved_to_the_table():
    assert goals("put the apple on the plate in the middle")[0][2] == "plate"


def test_the_robots_side_is_the_side():
    assert goals("put the apple on the robot's right side of the plate") == goals(
        "put the apple on the right side of the plate"
    )
    assert goals("put the apple to the robot's left of the mug")[0][3] == (("left_of", ("mug",)),)


MUG = obj("mug", "mug", 0.55, 0.0, (0.08, 0.08, 0.1), shape="cylinder")


APPLE = obj("apple", "apple", 0.45, 0.1, (0.07, 0.07, 0.07), shape="sphere")


def test_far_from_a_thing_is_a_quarter_metre_off_it():
    world = scene(MUG, APPLE)
    plan, c = answer("put the apple far from the mug", world)
    assert [f"{s.op}({', '.join(s.args)})" for s in plan.steps] == [
        "pick(apple)",
        "place_ontop(apple, table)",
    ]
    assert "far from the mug" in plan.steps[1].text
    assert not goal_holds(c, world)  # 14 cm off it now
    assert not goal_holds(c, world.with_pose("apple", Pose(0.55, FAR_APART - 0.01, 0.035)))
    assert goal_holds(c, world.with_pose("apple", Pose(0.55, FAR_APART + 0.01, 0.035)))
    assert goal_holds(c, world.with_pose("apple", Pose(0.3, -0.2, 0.035)))


def test_far_from_a_thing_for_code_as_policies_is_a_spot_that_far():
    things = [
        Thing(
            "table",
            "table",
            "brown",
            True,
            (0.55, 0.0, -0.001, 0, 0, 0),
            (0.7, 0.9, 0.0),
            (0.2, -0.45, -0.001),
            (0.9, 0.45, -0.001),
        ),
        Thing(
            "mug",
            "mug",
            "green",
            False,
            (0.5, 0.0, 0.05, 0, 0, 0),
            (0.08, 0.08, 0.1),
            (0.46, -0.04, 0.0),
            (0.54, 0.04, 0.1),
        ),
        Thing(
            "apple",
            "apple",
            "red",
            False,
            (0.45, 0.1, 0.035, 0, 0, 0),
            (0.07, 0.07, 0.07),
            (0.415, 0.065, 0.0),
            (0.485, 0.135, 0.07),
        ),
    ]
    src = gen_plan_code(plan_for("put the apple far from the mug", things), things, sample=False)
    x, y = map(
        float, re.search(r'"place_ontop", "apple", "table", \(([-\d.]+), ([-\d.]+)\)', src).groups()
    )
    assert math.dist((x, y), (0.5, 0.0)) >= FAR_APART


def test_far_from_the_robot_is_still_the_back_of_the_table():
    assert goals("put the apple far from the robot", SCENE)[0][3] == (("back", ()),)


@pytest.mark.parametrize(
    "text",
    [
        "put the lemon near the lemon",
        "put the lemon far from the lemon",
        "put the lemon near itself",
        "put the lemon left of itself",
        "put the lemon to the robot's left of the lemon",
        "put the lemon near where the lemon is",
    ],
)
def test_a_thing_placed_relative_to_itself_is_refused(text):
    with pytest.raises(GroundingError, match="cannot put the lemon .*itself; name another object"):
        goals(text)


def test_leaving_a_thing_where_it_is_is_still_its_own_place():
    assert goals("leave the lemon where it is")[0][3] == (("at_initial", ("lemon",)),)


def test_between_is_on_the_stretch_between_not_in_a_corner_of_their_box():
    """An apple in a corner of the box around the mug and the bowl was 'already between' them."""
    a = obj("mug", "mug", 0.40, -0.25, (0.08, 0.08, 0.1), shape="cylinder")
    b = obj("bowl", "bowl", 0.70, 0.22, (0.16, 0.16, 0.06), shape="cylinder")
    apple = obj("apple", "apple", 0.40, 0.25, (0.07, 0.07, 0.07), shape="sphere")
    world = scene(a, b, apple)
    plan, c = answer("put the apple between the mug and the bowl", world)
    assert plan.steps and not goal_holds(c, world)  # (the corner: it used to be 'already between')
    assert goal_holds(
        c, world.with_pose("apple", Pose(0.55, -0.015, 0.035))
    )  # the middle of the line
    assert goal_holds(
        c, world.with_pose("apple", Pose(0.55 + 0.03, -0.015 - 0.02, 0.035))
    )  # 3.6 cm off it
    assert not goal_holds(
        c, world.with_pose("apple", Pose(0.55 + 0.06, -0.015 - 0.04, 0.035))
    )  # 7 cm off it
    assert not goal_holds(c, world.with_pose("apple", Pose(0.42, -0.22, 0.035)))  # at the mug's end


def test_the_side_of_an_object_is_beside_it_and_intensifiers_and_either_are_read():
    """ "to the left side of the red line" was the far left of the table; "right next to" and "either" were
    unknown words; "…, in that order" was an unknown 'order'."""
    scene = [*SCENE, thing("red_line", "line", "red", 0.55, 0.0, (0.7, 0.01, 0.001), fixed=True)]
    assert goals("move the lemon to the left side of the red line", scene)[0][3] == (
        ("left_of", ("red_line",)),
    )
    assert goals("move the lemon to the right side of the line", scene)[0][3] == (
        ("right_of", ("red_line",)),
    )
    assert goals("move the lemon to the left side of the table", scene)[0][3] == (("far_left", ()),)
    assert goals("put the lemon right next to the bowl")[0][3] == (("near", ("big_bowl",)),)
    assert [g[0] for g in goals("put either citrus fruit on the plate")] == ["lemon"]
    assert [
        g[:3] for g in goals("put the apple on the plate and the lime in the bowl, in that order")
    ] == [("apple", "ontop", "plate"), ("lime", "inside", "big_bowl")]


# the lime lies on the plate and the strawberry in the bowl
PLACED = [t for t in SCENE if t.name not in ("lime", "strawberry")] + [
    thing("lime", "lime", "green", 0.45, 0.15, (0.05, 0.05, 0.05), z0=0.02),
    thing("strawberry", "strawberry", "red", 0.6, 0.2, (0.03, 0.03, 0.04), z0=0.005),
]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("put the fruit on the plate in the bowl", [("lime", "inside", "big_bowl")]),
        ("move the fruit in the bowl to the plate", [("strawberry", "ontop", "plate")]),
        ("put the red fruit in the bowl on the plate", [("strawberry", "ontop", "plate")]),
        ("put the lemon in the bowl on the table", [("lemon", "inside", "big_bowl")]),
        ("take everything off the plate", [("lime", "ontop", "table")]),
        ("take the fruit out of the bowl", [("strawberry", "ontop", "table")]),
    ],
)
def test_a_place_after_a_group_says_which_of_it(text, want):
    """ "put the fruit on the plate in the bowl" put all the fruit on the plate (the bowl passed over);
    "take everything off the plate" moved what was not on it; "the red fruit in the bowl" was ambiguous."""
    assert [g[:3] for g in goals(text, PLACED)] == want


def test_two_places_that_fit_no_reading_are_refused():
    with pytest.raises(
        GroundingError, match="two places for the same objects: 'on the plate' and 'in the bowl'"
    ):
        goals("put the apple on the plate in the bowl", PLACED)


def test_later_relations_to_a_group_and_a_fixed_object_read_as_moved():
    """ "… and later return it to where it started" was one clause (the lemon on the plate where it started);
    "the lemon behind all the fruit" put it behind itself."""
    assert [
        g[:4] for g in goals("move the lemon to the plate and later return it to where it started")
    ] == [
        ("lemon", "ontop", "plate", ()),
        ("lemon", "ontop", "table", (("at_initial", ("lemon",)),)),
    ]
    assert ("behind", ("lemon",)) not in goals("put the lemon behind all the fruit")[0][3]


PLATED = [  # the plate 1.6 cm thin, as the simulator's: the peach on it is within 2 cm of the table
    *(t for t in SCENE if t.name != "plate"),
    thing("plate", "plate", "white", 0.45, 0.15, (0.2, 0.2, 0.016)),
    thing("peach", "peach", "orange", 0.45, 0.15, (0.06, 0.06, 0.06), z0=0.016),
]


def test_a_thing_on_a_thin_plate_or_in_a_bowl_is_not_already_on_the_table():
    """("put the lemon back on the table" with the lemon on a 1.6 cm plate answered "the goal
    already holds", moved nothing and claimed success)"""
    steps = [s.line().split(";")[0] for s in plan_for("put the peach on the table", PLATED).steps]
    assert steps == ["pick(peach)", "place_ontop(peach, table)"]
    assert 'off("peach", "plate")' in plan_for("put the peach on the table", PLATED).goal_checks[0]
    assert plan_for("put the apple on the table", PLATED).steps == []  # on the table already
    in_bowl = [*SCENE, thing("peach", "peach", "orange", 0.6, 0.2, (0.06, 0.06, 0.06), z0=0.005)]
    plan = plan_for("put the peach on the table", in_bowl)
    assert [s.line().split(";")[0] for s in plan.steps] == [
        "pick(peach)",
        "place_ontop(peach, table)",
    ]
    assert 'off("peach", "big_bowl")' in plan.goal_checks[0]
    mat = Thing(
        "mat",
        "white_mat",
        "white",
        True,
        (0.45, -0.2, 0.001, 0, 0, 0),
        (0.2, 0.2, 0.002),
        (0.35, -0.3, 0.0),
        (0.55, -0.1, 0.002),
        shape="region",
    )  # under the apple
    assert plan_for("put the apple on the table", [*SCENE, mat]).steps == []  # a mat is no bearer
