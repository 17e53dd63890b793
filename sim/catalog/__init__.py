"""The object catalogue: procedural models with plausible size (m), mass (kg), friction and colour.

`make(kind, name)` builds an ObjectSpec; `KINDS` lists what can be made. Sizes follow the YCB
objects the benchmark names (SPEC §8) where one exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from owl_bt.state import ObjectState
from sim.objects import ObjectSpec, Part, spec_from_state

TABLE_TOP_Z = 0.0  # metres; the table's top surface is the world's z = 0 plane
TABLE_CENTRE = (0.55, 0.0)  # metres, world frame
TABLE_SIZE = (0.7, 0.9, 0.05)  # metres: x from 0.2 to 0.9, y from −0.45 to 0.45

COLOURS = {
    "red": (0.85, 0.1, 0.1, 1.0),
    "green": (0.2, 0.65, 0.2, 1.0),
    "light_grey": (0.78, 0.78, 0.78, 1.0),
    "white": (0.95, 0.95, 0.95, 1.0),
    "brown": (0.55, 0.4, 0.25, 1.0),
}


def strawberry(name: str = "strawberry") -> ObjectSpec:
    """A strawberry: a red berry body (radius 2.2 cm) with a green calyx on top, 20 g."""
    return ObjectSpec(
        name=name, category="strawberry",
        parts=(
            Part("sphere", (0.022,)),
            Part("cylinder", (0.012, 0.006), offset=(0.0, 0.0, 0.022), rgba=COLOURS["green"]),
        ),
        rgba=COLOURS["red"], colour="red", mass=0.02, friction=1.0,
    )


def region(name: str, colour: str = "light_grey", size: tuple[float, float] = (0.16, 0.16)) -> ObjectSpec:
    """A flat pad on the table (2 mm thick, fixed): a place to put things, not a thing to move."""
    return ObjectSpec(
        name=name, category="region", parts=(Part("box", (size[0], size[1], 0.002)),),
        rgba=COLOURS.get(colour, COLOURS["light_grey"]), colour=colour, mass=0.0, region=True,
    )


def table(name: str = "table") -> ObjectSpec:
    return ObjectSpec(
        name=name, category="table", parts=(Part("box", TABLE_SIZE),), rgba=COLOURS["brown"],
        colour="brown", mass=0.0, friction=0.8, fixed=True,
    )


KINDS: dict[str, Callable[..., ObjectSpec]] = {
    "strawberry": strawberry,
    "region": region,
    "table": table,
}


def make(kind: str, name: str | None = None, **kwargs: object) -> ObjectSpec:
    """ObjectSpec for `kind` (see KINDS) called `name`; raises KeyError naming known kinds."""
    if kind not in KINDS:
        raise KeyError(f"unknown object kind {kind!r}; known: {', '.join(sorted(KINDS))}")
    return replace(KINDS[kind](name or kind, **kwargs), kind=kind)


def spec_for_state(obj: ObjectState) -> ObjectSpec:
    """The geometry the planning model builds for a perceived object (DESIGN §3).

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
    return replace(spec, rgba=obj.rgba, colour=obj.colour, fixed=spec.fixed or obj.fixed, mass=obj.mass,
                   friction=obj.friction)


def _scaled(part: Part, k: tuple[float, float, float]) -> Part:
    offset = tuple(o * s for o, s in zip(part.offset, k, strict=True))
    if part.kind == "box":
        dims = tuple(d * s for d, s in zip(part.dims, k, strict=True))
    elif part.kind == "sphere":
        dims = (part.dims[0] * sum(k) / 3,)
    else:
        dims = (part.dims[0] * (k[0] + k[1]) / 2, part.dims[1] * k[2])
    return replace(part, dims=dims, offset=offset)
