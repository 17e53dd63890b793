"""Flat markers that are part of the table (fixed, 2 mm thick, zero mass): places to put things.

`region` (category "region") is a coloured pad; `white_mat` (category "mat") a placemat;
`red_line` (category "line") a long thin strip along x, e.g. the line bisecting the table.
"""

from __future__ import annotations

from sim.catalog.parts import COLOURS
from sim.objects import ObjectSpec, Part

THICKNESS = 0.002  # m


def _pad(name: str, category: str, colour: str, size: tuple[float, float]) -> ObjectSpec:
    if colour not in COLOURS:
        raise KeyError(f"unknown colour {colour!r}; known: {', '.join(sorted(COLOURS))}")
    return ObjectSpec(
        name=name,
        category=category,
        parts=(Part("box", (size[0], size[1], THICKNESS)),),
        rgba=COLOURS[colour],
        colour=colour,
        mass=0.0,
        region=True,
    )


def region(
    name: str = "region", colour: str = "light_grey", size: tuple[float, float] = (0.16, 0.16)
) -> ObjectSpec:
    """A flat square pad, 16 × 16 cm unless `size` (x, y) m says otherwise."""
    return _pad(name, "region", colour, size)


def light_grey_region(
    name: str = "light_grey_region", size: tuple[float, float] = (0.16, 0.16)
) -> ObjectSpec:
    """The benchmark's light-grey region: a 16 × 16 cm pad unless `size` (x, y) m says otherwise."""
    return _pad(name, "region", "light_grey", size)


def white_mat(name: str = "white_mat", size: tuple[float, float] = (0.14, 0.20)) -> ObjectSpec:
    """A white placemat, 14 cm (x) × 20 cm (y) unless `size` says otherwise."""
    return _pad(name, "mat", "white", size)


def red_line(name: str = "red_line", length: float = 0.66) -> ObjectSpec:
    """A red strip 1.2 cm wide and `length` m long along x (the table is 0.7 m deep)."""
    return _pad(name, "line", "red", (length, 0.012))


MARKERS = {
    "region": region,
    "light_grey_region": light_grey_region,
    "white_mat": white_mat,
    "red_line": red_line,
}
