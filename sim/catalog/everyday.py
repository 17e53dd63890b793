"""Everyday things built from data: `everyday.toml` describes each kind (parts, colour, mass, cavity),
and this module turns an entry into an ObjectSpec.

`EVERYDAY` maps each kind to its builder `(name, size=None) -> ObjectSpec`; `ENDS` maps a kind
(any catalogue kind, not only these) to its named ends and front (unit directions in the parts
frame); `PICKABLE_EVERYDAY` lists the kinds the gripper can take. Kinds with `sized` accept a
`size` (metres): a box or block [dx, dy, dz] (one number: a cube), a cylinder [diameter, height],
a sphere its diameter.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable
from pathlib import Path

from sim.catalog.parts import COLOURS, cavity, flat_bottom, ring
from sim.objects import ObjectSpec, Part

DATA = Path(__file__).with_name("everyday.toml")
SIZE_RANGE = (0.01, 0.30)  # m: each dimension a `size` may give


@functools.cache
def _data() -> dict:
    return tomllib.loads(DATA.read_text(encoding="utf-8"))


def _colour(word: str) -> tuple[float, float, float, float]:
    if word not in COLOURS:
        raise KeyError(f"everyday.toml: unknown colour {word!r}")
    return COLOURS[word]


def _walls(inner: list[float], wall: float, height: float, z0: float) -> tuple[Part, ...]:
    """Four boxes standing round an inner rectangle `inner` (dx, dy), `wall` thick, overlapping at the
    corners."""
    dx, dy = inner
    z = z0 + height / 2
    return (
        Part("box", (dx + 2 * wall, wall, height), offset=(0.0, (dy + wall) / 2, z)),
        Part("box", (dx + 2 * wall, wall, height), offset=(0.0, -(dy + wall) / 2, z)),
        Part("box", (wall, dy, height), offset=((dx + wall) / 2, 0.0, z)),
        Part("box", (wall, dy, height), offset=(-(dx + wall) / 2, 0.0, z)),
    )


def _parts(entry: dict) -> tuple[Part, ...]:
    out: list[Part] = []
    for raw in entry["parts"]:
        shape = raw["shape"]
        rgba = _colour(raw["colour"]) if "colour" in raw else None
        if shape in ("box", "cylinder", "sphere"):
            out.append(
                Part(
                    shape,
                    tuple(float(d) for d in raw["dims"]),
                    offset=tuple(float(v) for v in raw.get("offset", (0.0, 0.0, 0.0))),
                    rgba=rgba,
                    rpy=tuple(float(v) for v in raw.get("rpy", (0.0, 0.0, 0.0))),
                )
            )
        elif shape == "ring":
            out.extend(ring(raw["r_out"], raw["wall"], raw["height"], z0=raw["z0"], rgba=rgba))
        elif shape == "walls":
            out.extend(_walls(raw["inner"], raw["wall"], raw["height"], raw["z0"]))
        elif shape == "flat_spot":
            out.append(flat_bottom(raw["radius"], raw["z"], rgba=rgba))
        else:
            raise ValueError(f"everyday.toml: unknown part shape {shape!r}")
    return tuple(out)


def sized_parts(sized: str, size: tuple[float, ...]) -> tuple[Part, ...]:
    """The parts of a generic primitive of `size` (see the module doc), standing on z = 0; raises
    ValueError for a size of the wrong length or outside SIZE_RANGE."""
    want = {"box": (1, 3), "cylinder": (2,), "sphere": (1,)}[sized]
    if len(size) not in want:
        shapes = {
            "box": "[dx, dy, dz] or one number (a cube)",
            "cylinder": "[diameter, height]",
            "sphere": "a diameter",
        }
        raise ValueError(f"a {sized}'s size is {shapes[sized]}, in metres; got {list(size)}")
    lo, hi = SIZE_RANGE
    if not all(lo <= float(v) <= hi for v in size):
        raise ValueError(f"each size must be {lo} to {hi} m; got {list(size)}")
    if sized == "box":
        dims = tuple(float(v) for v in (size * 3 if len(size) == 1 else size))
        return (Part("box", dims, offset=(0.0, 0.0, dims[2] / 2)),)
    if sized == "cylinder":
        d, h = (float(v) for v in size)
        return (Part("cylinder", (d / 2, h), offset=(0.0, 0.0, h / 2)),)
    r = float(size[0]) / 2
    return (Part("sphere", (r,), offset=(0.0, 0.0, r)), flat_bottom(0.4 * r, 0.0))


def build(kind: str, name: str | None = None, size: tuple[float, ...] | None = None) -> ObjectSpec:
    """The ObjectSpec of everyday `kind` called `name` (default: the kind), resized when `size` is given
    (only kinds with `sized`; ValueError otherwise or for a bad size)."""
    entry = _data()["kind"][kind]
    parts = _parts(entry)
    mass = float(entry["mass"])
    if size is not None:
        sized = entry.get("sized")
        if sized is None:
            raise ValueError(
                f"a {kind} has a fixed size; only box, block, cylinder and sphere take one"
            )
        before = ObjectSpec(kind, kind, parts, (0, 0, 0, 1)).size()
        parts = sized_parts(sized, tuple(size))
        after = ObjectSpec(kind, kind, parts, (0, 0, 0, 1)).size()
        mass *= (after[0] * after[1] * after[2]) / (before[0] * before[1] * before[2])
        mass = max(mass, 0.01)
    extra = {}
    if "cavity" in entry:
        cav = entry["cavity"]
        extra = cavity(cav["radius"], cav["bottom"], cav["top"])
    ends = ENDS.get(kind)
    if ends:
        extra = {**extra, "ends": ends}
    return ObjectSpec(
        name=name or kind,
        category=entry["category"],
        parts=parts,
        rgba=_colour(entry["colour"]),
        colour=entry["colour"],
        mass=mass,
        friction=float(entry["friction"]),
        extra=extra,
    )


def _builder(kind: str) -> Callable[..., ObjectSpec]:
    def make(name: str = kind, size: tuple[float, ...] | None = None) -> ObjectSpec:
        return build(kind, name, size)

    make.__name__ = kind
    make.__doc__ = f"The everyday catalogue's {kind} (sim/catalog/everyday.toml)."
    return make


ENDS: dict[str, dict] = {k: dict(v) for k, v in _data().get("ends", {}).items()}
EVERYDAY: dict[str, Callable[..., ObjectSpec]] = {k: _builder(k) for k in _data()["kind"]}
PICKABLE_EVERYDAY = frozenset(k for k, v in _data()["kind"].items() if v.get("pickable"))
SIZED: dict[str, str] = {k: v["sized"] for k, v in _data()["kind"].items() if v.get("sized")}
