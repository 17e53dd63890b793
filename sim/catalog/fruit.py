"""Fruit: spheres and compounds of spheres sized like the YCB fruit, each with a small
hidden flat spot underneath so it settles where it is put instead of rolling away.

Every fruit's category is its own name ("apple", …); the ontology groups them (fruit, citrus, berry).
All fit the gripper: the widest, apple and orange, are 7.0 cm across. Parts frame: z up, the main
sphere's centre at the origin.
"""

from __future__ import annotations

from sim.catalog.parts import COLOURS, flat_bottom
from sim.objects import ObjectSpec, Part

STEM = (0.45, 0.3, 0.15, 1.0)


def _round_fruit(
    name: str,
    category: str,
    radius: float,
    colour: str,
    mass: float,
    rgba=None,
    stem: float = 0.0,
    extra_parts: tuple[Part, ...] = (),
) -> ObjectSpec:
    """A sphere of `radius` m with a flat spot (and a stem `stem` m long on top when > 0)."""
    parts = [Part("sphere", (radius,)), flat_bottom(0.42 * radius, -radius), *extra_parts]
    if stem > 0:
        parts.append(
            Part(
                "cylinder", (0.0025, stem), offset=(0.0, 0.0, radius + stem / 2 - 0.003), rgba=STEM
            )
        )
    return ObjectSpec(
        name=name,
        category=category,
        parts=tuple(parts),
        rgba=rgba or COLOURS[colour],
        colour=colour,
        mass=mass,
        friction=1.0,
    )


def strawberry(name: str = "strawberry") -> ObjectSpec:
    """A strawberry: a red berry (radius 2.2 cm) with a green calyx on top, 20 g; 4.4 × 4.4 × 4.7 cm."""
    calyx = Part("cylinder", (0.012, 0.006), offset=(0.0, 0.0, 0.022), rgba=COLOURS["green"])
    return _round_fruit(name, "strawberry", 0.022, "red", 0.02, extra_parts=(calyx,))


def apple(name: str = "apple") -> ObjectSpec:
    """An apple: radius 3.5 cm (7.0 cm across, 7.6 cm tall with its stem), 150 g, red."""
    return _round_fruit(name, "apple", 0.035, "red", 0.15, rgba=(0.8, 0.12, 0.1, 1.0), stem=0.012)


def orange(name: str = "orange") -> ObjectSpec:
    """An orange: radius 3.5 cm (7.0 cm across), 140 g."""
    return _round_fruit(name, "orange", 0.035, "orange", 0.14)


def plum(name: str = "plum") -> ObjectSpec:
    """A plum: radius 2.6 cm (5.2 cm across), 70 g, purple."""
    return _round_fruit(name, "plum", 0.026, "purple", 0.07, stem=0.008)


def peach(name: str = "peach") -> ObjectSpec:
    """A peach: radius 3.1 cm (6.2 cm across), 130 g, orange-pink."""
    return _round_fruit(name, "peach", 0.031, "pink", 0.13, stem=0.006)


def lemon(name: str = "lemon") -> ObjectSpec:
    """A lemon: a 2.7 cm-radius sphere with a 1.1 cm nub at each end along x; 7.0 × 5.4 × 5.4 cm, 100 g."""
    nubs = (
        Part("sphere", (0.011,), offset=(0.024, 0.0, 0.0)),
        Part("sphere", (0.011,), offset=(-0.024, 0.0, 0.0)),
    )
    return _round_fruit(name, "lemon", 0.027, "yellow", 0.10, extra_parts=nubs)


def pear(name: str = "pear") -> ObjectSpec:
    """A pear: a 3.2 cm-radius bottom sphere under a 2.2 cm-radius top sphere, with a stem;
    6.4 × 6.4 × 10.3 cm, 180 g, yellow-green."""
    top = Part("sphere", (0.022,), offset=(0.0, 0.0, 0.036))
    stem = Part("cylinder", (0.0025, 0.016), offset=(0.0, 0.0, 0.063), rgba=STEM)
    return ObjectSpec(
        name=name,
        category="pear",
        parts=(Part("sphere", (0.032,)), top, stem, flat_bottom(0.014, -0.032)),
        rgba=(0.7, 0.8, 0.2, 1.0),
        colour="green",
        mass=0.18,
        friction=1.0,
    )


FRUIT = {
    "strawberry": strawberry,
    "apple": apple,
    "orange": orange,
    "plum": plum,
    "peach": peach,
    "lemon": lemon,
    "pear": pear,
}
