"""The object catalogue: procedural models with plausible size (m), mass (kg), friction and colour.

`make(kind, name)` builds an ObjectSpec; `KINDS` lists what can be made: fruit (`fruit.py`),
containers and dishes (`containers.py`), YCB-like things (`ycb.py`), flat markers (`markers.py`) and
the everyday catalogue described as data (`everyday.toml`, built by `everyday.py`: blocks, generic
box/cylinder/sphere of any size, kitchen things). `ENDS` gives elongated kinds' named ends and front.
Sizes follow the YCB objects the benchmark names where one exists. `layout.py` computes
resting heights and seeded collision-free spots on the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from owl_bt.state import ObjectState
from sim.catalog.containers import CONTAINERS
from sim.catalog.everyday import ENDS, EVERYDAY, PICKABLE_EVERYDAY, SIZED
from sim.catalog.fruit import FRUIT, strawberry
from sim.catalog.layout import REACH, TABLE_TOP_Z
from sim.catalog.markers import MARKERS, region
from sim.catalog.parts import COLOURS
from sim.catalog.ycb import YCB
from sim.objects import ObjectSpec, Part, spec_from_state

__all__ = [
    "COLOURS",
    "ENDS",
    "KINDS",
    "PICKABLE",
    "REACH",
    "SIZED",
    "TABLE_CENTRE",
    "TABLE_SIZE",
    "TABLE_TOP_Z",
    "colour_word",
    "make",
    "region",
    "spec_for_state",
    "strawberry",
    "table",
]

TABLE_CENTRE = (0.55, 0.0)  # metres, world frame
TABLE_SIZE = (0.7, 0.9, 0.05)  # metres: x from 0.2 to 0.9, y from −0.45 to 0.45

# Kinds a robot must be able to pick: each is at most 7.2 cm wide in some horizontal direction.
PICKABLE = (
    frozenset(FRUIT)
    | {
        "mug",
        "tomato_soup_can",
        "potted_meat_can",
        "fork",
        "knife",
        "sponge",
        "golf_ball",
        "mustard_bottle",
        "sugar_box",
        "soup",
    }
    | PICKABLE_EVERYDAY
)


def table(name: str = "table") -> ObjectSpec:
    """The table: a 70 × 90 × 5 cm brown slab whose top is the world's z = 0 plane (fixed)."""
    return ObjectSpec(
        name=name,
        category="table",
        parts=(Part("box", TABLE_SIZE),),
        rgba=COLOURS["brown"],
        colour="brown",
        mass=0.0,
        friction=0.8,
        fixed=True,
    )


KINDS: dict[str, Callable[..., ObjectSpec]] = {
    **FRUIT,
    **CONTAINERS,
    **YCB,
    **MARKERS,
    **EVERYDAY,
    "table": table,
}


def make(
    kind: str, name: str | None = None, colour: str | None = None, **kwargs: object
) -> ObjectSpec:
    """ObjectSpec for `kind` (see KINDS) called `name` (default: the kind), recoloured when `colour`
    (a COLOURS word) is given; other keyword arguments go to the kind's builder (e.g. a marker's
    size). Raises KeyError naming the known kinds or colours."""
    if kind not in KINDS:
        raise KeyError(f"unknown object kind {kind!r}; known: {', '.join(sorted(KINDS))}")
    if colour is not None and colour not in COLOURS:
        raise KeyError(f"unknown colour {colour!r}; known: {', '.join(sorted(COLOURS))}")
    spec = replace(KINDS[kind](name or kind, **kwargs), kind=kind)
    if colour is not None:
        spec = replace(spec, rgba=COLOURS[colour], colour=colour)
    if kind in ENDS and "ends" not in spec.extra:
        spec = replace(spec, extra={**spec.extra, "ends": ENDS[kind]})
    return spec


def colour_word(rgba: tuple[float, ...]) -> str:
    """The COLOURS word nearest (rgb distance) to `rgba` (values in [0, 1]): what a tinted object is
    called in the object list."""
    rgb = tuple(rgba[:3])
    return min(COLOURS, key=lambda w: math.dist(COLOURS[w][:3], rgb))


def spec_for_state(obj: ObjectState) -> ObjectSpec:
    """The geometry the planning model builds for a perceived object.

    A recognised kind is rebuilt from this catalogue (hollow containers, rims and handles matter
    for placing and pouring), scaled per axis to the perceived size when it differs by over 2 %;
    an unknown kind becomes one primitive filling the perceived box.
    """
    if obj.kind not in KINDS:
        return spec_from_state(obj)
    spec = make(obj.kind, obj.name)
    ref = spec.size()
    scale = tuple(s / r if r > 1e-6 else 1.0 for s, r in zip(obj.size, ref, strict=True))
    if any(abs(k - 1.0) > 0.02 for k in scale):
        spec = replace(spec, parts=tuple(_scaled(part, scale) for part in spec.parts))
    return replace(
        spec,
        rgba=obj.rgba,
        colour=obj.colour,
        fixed=spec.fixed or obj.fixed,
        mass=obj.mass,
        friction=obj.friction,
    )


def _scaled(part: Part, k: tuple[float, float, float]) -> Part:
    offset = tuple(o * s for o, s in zip(part.offset, k, strict=True))
    if part.kind == "box":
        dims = tuple(d * s for d, s in zip(part.dims, k, strict=True))
    elif part.kind == "sphere":
        dims = (part.dims[0] * sum(k) / 3,)
    else:
        dims = (part.dims[0] * (k[0] + k[1]) / 2, part.dims[1] * k[2])
    return replace(part, dims=dims, offset=offset)
