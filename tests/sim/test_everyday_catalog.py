"""The everyday catalogue (sim/catalog/everyday.toml) on the real simulator: sized primitives have the
size asked for, a scene file can give size and tint, the tint is listed by its real colour, a bin holds
a can put in it, and elongated kinds carry their ends."""

from __future__ import annotations

import math

import pytest

from owl_bt.errors import UsageError
from owl_bt.state import Pose
from sim import catalog
from sim.catalog.everyday import EVERYDAY
from sim.catalog.layout import resting_pose
from sim.scene_file import load_scene
from sim.tasks.common import is_inside
from sim.world import SimWorld

ISSUE_KINDS = (
    "block",
    "banana",
    "lime",
    "egg",
    "bin",
    "water_bottle",
    "milk_carton",
    "kitchen_scale",
    "utensil_holder",
    "spoon",
    "saucepan",
    "cutting_board",
    "box",
    "cylinder",
    "sphere",
)


def test_the_everyday_kinds_are_in_the_catalogue():
    assert set(ISSUE_KINDS) <= set(EVERYDAY) <= set(catalog.KINDS)
    for kind in ISSUE_KINDS:
        spec = catalog.make(kind)
        assert spec.kind == kind and spec.colour in catalog.COLOURS and spec.mass > 0


@pytest.mark.parametrize(
    ("kind", "size", "expected"),
    [
        ("block", (0.04,), (0.04, 0.04, 0.04)),
        ("box", (0.12, 0.05, 0.03), (0.12, 0.05, 0.03)),
        ("cylinder", (0.07, 0.15), (0.07, 0.07, 0.15)),
        ("sphere", (0.05,), (0.05, 0.05, 0.05)),
    ],
)
def test_sized_primitives_have_the_size_asked_for(kind, size, expected):
    spec = catalog.make(kind, size=size)
    assert spec.size() == pytest.approx(expected, abs=1e-9)


def test_a_fixed_size_kind_refuses_a_size():
    with pytest.raises(ValueError, match="fixed size"):
        catalog.make("banana", size=(0.1,))


def test_scene_file_sizes_and_tints(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        '[[object]]\nkind = "block"\nname = "big"\nsize = [0.06, 0.06, 0.06]\ncolour = "blue"\n'
        "pose = [0.5, 0.1]\n"
        '[[object]]\nkind = "tomato_soup_can"\nname = "can"\nrgba = [0.55, 0.05, 0.05]\n'
        "pose = [0.5, -0.1]\n"
    )
    scene = load_scene(path)
    big, can = (o.spec for o in scene.objects)
    assert big.size() == pytest.approx((0.06, 0.06, 0.06)) and big.colour == "blue"
    assert can.colour == "red" and can.rgba[:3] == pytest.approx((0.55, 0.05, 0.05))


def test_colour_word_is_the_nearest_catalogue_colour():
    assert catalog.colour_word((0.7, 0.2, 0.2, 1.0)) == "red"
    assert catalog.colour_word((0.76, 0.76, 0.8, 1.0)) == "silver"
    assert catalog.colour_word((0.1, 0.6, 0.15, 1.0)) == "green"


def test_a_bad_size_in_a_scene_is_one_usage_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[[object]]\nkind = "sphere"\nsize = "big"\n')
    with pytest.raises(UsageError, match="size must be a number"):
        load_scene(path)


def test_elongated_kinds_declare_their_ends_and_front():
    for kind, front in (
        ("fork", "tines"),
        ("knife", "blade"),
        ("spoon", "bowl"),
        ("banana", "tip"),
    ):
        ends = catalog.make(kind).extra["ends"]
        assert ends["front"] == front and ends[front] == [1.0, 0.0, 0.0]
        assert "handle" in ends or "stem" in ends


def test_a_can_dropped_into_the_bin_stays_inside():
    w = SimWorld()
    try:
        w.add(catalog.make("bin"), resting_pose(catalog.make("bin"), 0.55, 0.0))
        can = catalog.make("potted_meat_can")
        lo, hi = can.bounds()
        w.add(can, Pose(0.55, 0.0, 0.03 + (hi[2] - lo[2]) / 2))
        w.settle(1.5)
        assert is_inside(w, "potted_meat_can", "bin")
        assert (
            abs(w.pose("bin").roll) < 0.02
            and math.dist(w.pose("bin").position[:2], (0.55, 0.0)) < 0.01
        )
    finally:
        w.close()


def test_four_blocks_stacked_stand():
    """Four 5 cm blocks of four colours set on each other stand where they were put (physics)."""
    w = SimWorld()
    try:
        for i, colour in enumerate(("red", "green", "blue", "yellow")):
            spec = catalog.make("block", f"{colour}_block", colour=colour)
            w.add(spec, resting_pose(spec, 0.55, 0.0, support_z=0.05 * i))
        w.settle(1.0)
        assert w.pose("yellow_block").z == pytest.approx(0.175, abs=0.003)
        assert math.dist(w.pose("yellow_block").position[:2], (0.55, 0.0)) < 0.003
    finally:
        w.close()
