"""Everyday YCB-like things: cans and boxes, a bottle, tools, cutlery, a sponge, a ball.

Sizes follow the YCB objects; where a real one is too wide for the 85 mm gripper in every
direction a robot must pick it, or too thin to grasp lying flat, the model is a little chunkier
(cutlery handles are 1.4–1.6 cm thick). Parts frame: z up in the resting pose the tasks use.
"""

from __future__ import annotations

from sim.catalog.parts import COLOURS
from sim.objects import ObjectSpec, Part


def potted_meat_can(name: str = "potted_meat_can") -> ObjectSpec:
    """A potted meat can: a box 10 × 6 × 8.3 cm (standing on its 10 × 6 end), 370 g, blue."""
    body = Part("box", (0.10, 0.06, 0.075))
    lid = Part("box", (0.094, 0.054, 0.008), offset=(0.0, 0.0, 0.0415), rgba=COLOURS["silver"])
    return ObjectSpec(
        name=name,
        category="potted_meat_can",
        parts=(body, lid),
        rgba=COLOURS["blue"],
        colour="blue",
        mass=0.37,
        friction=0.8,
    )


def sugar_box(name: str = "sugar_box") -> ObjectSpec:
    """A sugar box standing up: 9 × 3.8 × 17.5 cm, 500 g, yellow and white."""
    return ObjectSpec(
        name=name,
        category="sugar_box",
        parts=(Part("box", (0.09, 0.038, 0.175)),),
        rgba=(0.95, 0.9, 0.55, 1.0),
        colour="yellow",
        mass=0.5,
        friction=0.8,
    )


def mustard_bottle(name: str = "mustard_bottle") -> ObjectSpec:
    """A mustard bottle: a 8 × 5.6 × 14.5 cm body, a shoulder and a cap; 19.5 cm tall, 400 g, yellow."""
    return ObjectSpec(
        name=name,
        category="mustard_bottle",
        parts=(
            Part("box", (0.08, 0.056, 0.145), offset=(0.0, 0.0, 0.0725)),
            Part("box", (0.055, 0.045, 0.025), offset=(0.0, 0.0, 0.1575)),
            Part("cylinder", (0.012, 0.025), offset=(0.0, 0.0, 0.1825), rgba=COLOURS["red"]),
        ),
        rgba=COLOURS["yellow"],
        colour="yellow",
        mass=0.4,
        friction=0.8,
    )


def hammer(name: str = "hammer") -> ObjectSpec:
    """A hammer lying flat: a 26 cm wooden handle (2.5 cm square) and a 3 × 11 × 3 cm steel head;
    29 × 11 × 3 cm overall, 660 g."""
    return ObjectSpec(
        name=name,
        category="hammer",
        parts=(
            Part("box", (0.26, 0.025, 0.025), offset=(0.0, 0.0, 0.0125)),
            Part("box", (0.03, 0.11, 0.03), offset=(0.145, 0.0, 0.015), rgba=COLOURS["grey"]),
        ),
        rgba=COLOURS["brown"],
        colour="brown",
        mass=0.66,
        friction=0.8,
    )


def power_drill(name: str = "power_drill") -> ObjectSpec:
    """A cordless drill standing on its battery: an 8 × 6.5 × 3.5 cm battery, an 11 cm grip and a 19 cm
    body along +x; 19 × 6.5 × 20 cm overall, 900 g, green and black."""
    return ObjectSpec(
        name=name,
        category="power_drill",
        parts=(
            Part("box", (0.08, 0.065, 0.035), offset=(0.03, 0.0, 0.0175), rgba=COLOURS["black"]),
            Part("box", (0.04, 0.045, 0.11), offset=(0.0, 0.0, 0.09)),
            Part("box", (0.19, 0.055, 0.06), offset=(0.05, 0.0, 0.17)),
        ),
        rgba=COLOURS["green"],
        colour="green",
        mass=0.9,
        friction=0.8,
    )


def fork(name: str = "fork") -> ObjectSpec:
    """A fork lying flat: a 12.5 cm handle 1.4 cm wide and 1.4 cm thick, and a 5.5 cm head 2.4 cm
    wide and 4 mm thin; 18 × 2.4 × 1.4 cm, 50 g, steel."""
    return ObjectSpec(
        name=name,
        category="fork",
        parts=(
            Part("box", (0.125, 0.014, 0.014), offset=(-0.0275, 0.0, 0.007)),
            Part("box", (0.055, 0.024, 0.004), offset=(0.0625, 0.0, 0.002)),
        ),
        rgba=COLOURS["silver"],
        colour="silver",
        mass=0.05,
        friction=0.9,
    )


def knife(name: str = "knife") -> ObjectSpec:
    """A table knife lying flat: a 12.5 cm handle 1.6 cm wide and 1.6 cm thick, and a 6.5 cm blade
    2.2 cm wide and 3 mm thin; 19 × 2.2 × 1.6 cm, 60 g."""
    return ObjectSpec(
        name=name,
        category="knife",
        parts=(
            Part("box", (0.125, 0.016, 0.016), offset=(-0.0325, 0.0, 0.008), rgba=COLOURS["black"]),
            Part("box", (0.065, 0.022, 0.003), offset=(0.0625, 0.0, 0.0015)),
        ),
        rgba=COLOURS["silver"],
        colour="silver",
        mass=0.06,
        friction=0.9,
    )


def sponge(name: str = "sponge") -> ObjectSpec:
    """A kitchen sponge: 10 × 6.5 × 3 cm, 30 g, yellow with a green scouring layer."""
    return ObjectSpec(
        name=name,
        category="sponge",
        parts=(
            Part("box", (0.10, 0.065, 0.022)),
            Part("box", (0.10, 0.065, 0.008), offset=(0.0, 0.0, 0.015), rgba=COLOURS["green"]),
        ),
        rgba=COLOURS["yellow"],
        colour="yellow",
        mass=0.03,
        friction=1.0,
    )


def golf_ball(name: str = "golf_ball") -> ObjectSpec:
    """A golf ball: radius 2.1 cm, 46 g, white (rolling friction stops it; no flat spot, so that it
    rolls out of a mug tipped far enough)."""
    return ObjectSpec(
        name=name,
        category="golf_ball",
        parts=(Part("sphere", (0.021,)),),
        rgba=COLOURS["white"],
        colour="white",
        mass=0.046,
        friction=0.8,
    )


YCB = {
    "potted_meat_can": potted_meat_can,
    "sugar_box": sugar_box,
    "mustard_bottle": mustard_bottle,
    "hammer": hammer,
    "power_drill": power_drill,
    "fork": fork,
    "knife": knife,
    "sponge": sponge,
    "golf_ball": golf_ball,
}
