"""Containers and dishes: mug, bowl, plate, skillet, the open tomato soup can and its soup.

Hollow bodies are real shells (a floor plus a ring of thin wall boxes), so things put in them stay
in and things tipped out of them fall out. `extra["cavity"]` records each inside (parts frame, see
`parts.cavity`) for detectors. Parts frame: z up, the floor's underside at z = 0, the axis at x = y = 0.
"""

from __future__ import annotations

from sim.catalog.parts import COLOURS, cavity, flared_ring, ring
from sim.objects import ObjectSpec, Part

MUG_R = 0.036  # outer radius, m (7.2 cm across: fits the 85 mm gripper with 7.5 cm to spare)
MUG_H = 0.09  # height, m
MUG_WALL = 0.004  # m
MUG_FLOOR = 0.006  # m


def mug(name: str = "mug") -> ObjectSpec:
    """A mug: a hollow cylinder 7.2 cm across and 9 cm tall with 4 mm walls (inside 6.4 cm across,
    8.4 cm deep) and a handle sticking out 2.6 cm along +x; 9.8 × 7.2 × 9.0 cm overall, 300 g."""
    floor = Part("cylinder", (MUG_R - 0.002, MUG_FLOOR), offset=(0.0, 0.0, MUG_FLOOR / 2))
    walls = ring(MUG_R, MUG_WALL, MUG_H - MUG_FLOOR, z0=MUG_FLOOR)
    hx = MUG_R + 0.026  # the handle's outer face, m
    handle = (
        Part("box", (0.030, 0.012, 0.008), offset=(MUG_R + 0.011, 0.0, 0.070)),
        Part("box", (0.030, 0.012, 0.008), offset=(MUG_R + 0.011, 0.0, 0.024)),
        Part("box", (0.008, 0.012, 0.054), offset=(hx - 0.004, 0.0, 0.047)),
    )
    return ObjectSpec(
        name=name,
        category="mug",
        parts=(floor, *walls, *handle),
        rgba=COLOURS["blue"],
        colour="blue",
        mass=0.3,
        friction=0.9,
        extra=cavity(MUG_R - MUG_WALL, MUG_FLOOR, MUG_H),
    )


def bowl(name: str = "bowl") -> ObjectSpec:
    """A bowl: a 1 cm-thick floor 10 cm across and a flared 5 mm wall up to 16 cm across at its 6 cm
    rim; 16 × 16 × 6 cm, 250 g, white unless coloured. The wall starts 2 mm up, inside the floor's
    edge, so only the floor stands on the table: with the wall's 16 lower edges on it too, a resting
    bowl kept 34 contact points, which made each physics step five times as dear as an empty table."""
    floor = Part("cylinder", (0.05, 0.01), offset=(0.0, 0.0, 0.005))
    walls = flared_ring(0.05, 0.08, 0.005, 0.058, z0=0.002)
    return ObjectSpec(
        name=name,
        category="bowl",
        parts=(floor, *walls),
        rgba=COLOURS["white"],
        colour="white",
        mass=0.25,
        friction=0.9,
        extra=cavity(0.07, 0.01, 0.06),
    )


def plate(name: str = "plate") -> ObjectSpec:
    """A plate: a flat disc 22 cm across and 1.5 cm thick, 400 g, white."""
    return ObjectSpec(
        name=name,
        category="plate",
        parts=(Part("cylinder", (0.11, 0.015)),),
        rgba=COLOURS["white"],
        colour="white",
        mass=0.4,
        friction=0.9,
    )


def skillet(name: str = "skillet") -> ObjectSpec:
    """A frying pan: a 1.2 cm base 22 cm across, a 4 cm-high 6 mm rim, and a 12 cm handle along +x at
    rim height; 34 × 22 × 4 cm overall, 1.2 kg, black."""
    base = Part("cylinder", (0.108, 0.012), offset=(0.0, 0.0, 0.006))
    rim = ring(0.11, 0.006, 0.028, z0=0.012, n=24)
    handle = Part(
        "box", (0.125, 0.028, 0.014), offset=(0.11 + 0.0605, 0.0, 0.033), rgba=COLOURS["dark_grey"]
    )
    return ObjectSpec(
        name=name,
        category="skillet",
        parts=(base, *rim, handle),
        rgba=COLOURS["black"],
        colour="black",
        mass=1.2,
        friction=0.9,
        extra=cavity(0.104, 0.012, 0.04),
    )


def tomato_soup_can(name: str = "tomato_soup_can") -> ObjectSpec:
    """An opened tomato soup can: an open-topped cylinder 6.6 cm across and 10 cm tall with 3 mm walls
    (inside 6.0 cm across, 9.5 cm deep), 100 g empty, red with a white band."""
    floor = Part("cylinder", (0.031, 0.005), offset=(0.0, 0.0, 0.0025))
    walls = ring(0.033, 0.003, 0.07, z0=0.005)
    band = ring(0.033, 0.003, 0.025, z0=0.075, rgba=COLOURS["white"])
    return ObjectSpec(
        name=name,
        category="tomato_soup_can",
        parts=(floor, *walls, *band),
        rgba=(0.8, 0.12, 0.1, 1.0),
        colour="red",
        mass=0.1,
        friction=0.9,
        extra=cavity(0.030, 0.005, 0.10),
    )


def soup(name: str = "soup") -> ObjectSpec:
    """The can's contents: a ball 1.2 cm in radius, 30 g, orange-red (friction 0.6); it slides out of
    the open can once the can is tipped past about 120°. Like a liquid it does not bounce
    (restitution 0) and, once out, soon stops (damped, high rolling friction)."""
    return ObjectSpec(
        name=name,
        category="soup",
        parts=(Part("sphere", (0.012,)),),
        rgba=(0.85, 0.3, 0.1, 1.0),
        colour="red",
        mass=0.03,
        friction=0.6,
        extra={"dynamics": {"restitution": 0.0, "rollingFriction": 0.05, "linearDamping": 0.3}},
    )


CONTAINERS = {
    "mug": mug,
    "bowl": bowl,
    "plate": plate,
    "skillet": skillet,
    "tomato_soup_can": tomato_soup_can,
    "soup": soup,
}
