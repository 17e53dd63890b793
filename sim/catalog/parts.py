"""Building blocks shared by the catalogue modules: colours and primitive-part helpers.

All lengths in metres, angles in radians, in an object's own "parts frame" (z up; the body frame
`spawn` uses is the centre of the parts' bounding box). Hollow bodies are rings of thin boxes that
overlap at their inner edges, so there is no gap for small things to slip through.
"""

from __future__ import annotations

import math

from sim.objects import Part

Rgba = tuple[float, float, float, float]

COLOURS: dict[str, Rgba] = {
    "red": (0.85, 0.1, 0.1, 1.0),
    "green": (0.2, 0.65, 0.2, 1.0),
    "light_grey": (0.78, 0.78, 0.78, 1.0),
    "grey": (0.5, 0.5, 0.52, 1.0),
    "dark_grey": (0.2, 0.2, 0.22, 1.0),
    "black": (0.08, 0.08, 0.08, 1.0),
    "white": (0.95, 0.95, 0.95, 1.0),
    "brown": (0.55, 0.4, 0.25, 1.0),
    "yellow": (0.95, 0.85, 0.15, 1.0),
    "orange": (0.98, 0.55, 0.1, 1.0),
    "purple": (0.45, 0.15, 0.45, 1.0),
    "pink": (0.98, 0.62, 0.5, 1.0),
    "blue": (0.15, 0.3, 0.75, 1.0),
    "silver": (0.75, 0.76, 0.8, 1.0),
}


def flat_bottom(radius: float, z_bottom: float, rgba: Rgba | None = None) -> Part:
    """A 4 mm disc whose underside is flush with `z_bottom`: a small flat spot under a round body,
    hidden inside it, so that the body settles instead of rolling. `radius`: the flat spot, m."""
    return Part("cylinder", (radius, 0.004), offset=(0.0, 0.0, z_bottom + 0.002), rgba=rgba)


def ring(
    r_out: float, wall: float, height: float, z0: float = 0.0, n: int = 16, rgba: Rgba | None = None
) -> tuple[Part, ...]:
    """An upright cylindrical wall of n boxes: outer radius r_out (the polygon's apothem, so the
    bounding box is exactly 2·r_out wide when n is a multiple of 4), thickness `wall`, from z0 up
    by `height`."""
    chord = 2 * r_out * math.tan(math.pi / n)
    r_mid = r_out - wall / 2
    parts = []
    for k in range(n):
        a = 2 * math.pi * k / n
        parts.append(
            Part(
                "box",
                (wall, chord, height),
                offset=(r_mid * math.cos(a), r_mid * math.sin(a), z0 + height / 2),
                rgba=rgba,
                rpy=(0.0, 0.0, a),
            )
        )
    return tuple(parts)


def flared_ring(
    r_bottom: float,
    r_top: float,
    wall: float,
    height: float,
    z0: float = 0.0,
    n: int = 16,
    rgba: Rgba | None = None,
) -> tuple[Part, ...]:
    """A wall that widens upwards (a bowl's side): its outer surface runs from radius r_bottom at
    z0 to r_top at z0 + height; n tilted boxes `wall` thick."""
    length = math.hypot(r_top - r_bottom, height)
    tilt = math.atan2(r_top - r_bottom, height)
    chord = 2 * r_top * math.tan(math.pi / n)
    # centre of the box: middle of the outer line, moved inwards by half the wall along its normal
    r_c = (r_bottom + r_top) / 2 - wall / 2 * math.cos(tilt)
    z_c = z0 + height / 2 + wall / 2 * math.sin(tilt)
    parts = []
    for k in range(n):
        a = 2 * math.pi * k / n
        parts.append(
            Part(
                "box",
                (wall, chord, length),
                offset=(r_c * math.cos(a), r_c * math.sin(a), z_c),
                rgba=rgba,
                rpy=(0.0, tilt, a),
            )
        )
    return tuple(parts)


def cavity(
    radius: float, bottom: float, top: float, centre: tuple[float, float] = (0.0, 0.0)
) -> dict:
    """Metadata for a container's inside, parts frame: axis at `centre` (x, y), inner `radius`,
    floor height `bottom` and rim height `top` (m). Stored in `ObjectSpec.extra["cavity"]`."""
    return {"cavity": {"centre": centre, "radius": radius, "bottom": bottom, "top": top}}
