"""What the offline grounder reads of the scene from a prompt's object list, and the geometry it
judges with (resting on, inside, upright, fits, superlatives). Metres and radians, world frame."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import combinations

_LINE = re.compile(
    r"^- (\w+) \(category: (\w+), colour: (\w*)(?:, (fixed|movable))?(?:, shape: (\w+))?\)"
    r"(?: pose \(([^)]*)\), size \(([^)]*)\), box \(([^)]*)\) to \(([^)]*)\))?"
)


@dataclass(frozen=True)
class Thing:
    """A scene object as the prompt describes it; pose/size/box are empty when the prompt has none."""

    name: str
    category: str
    colour: str
    fixed: bool = False
    pose: tuple[float, ...] = ()
    size: tuple[float, ...] = ()
    lo: tuple[float, ...] = ()
    hi: tuple[float, ...] = ()
    shape: str = (
        ""  # 'box', 'cylinder', 'sphere', 'region', 'compound' or '' when the prompt has none
    )

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split("_"))

    @property
    def upright(self) -> bool:
        return not self.pose or math.cos(self.pose[3]) * math.cos(self.pose[4]) > 0.9

    @property
    def volume(self) -> float:
        return math.prod(self.size) if self.size else 0.0

    @property
    def length(self) -> float:
        return max(self.size) if self.size else 0.0

    @property
    def height(self) -> float:
        return self.hi[2] - self.lo[2] if self.hi else 0.0


def _floats(text: str | None) -> tuple[float, ...]:
    return tuple(float(v) for v in text.split(",")) if text else ()


def read_objects(section: str) -> list[Thing]:
    """The objects listed in a prompt section (lines '- name (category: …, colour: …, …) pose …')."""
    out = []
    for line in section.splitlines():
        m = _LINE.match(line.strip())
        if m:
            out.append(
                Thing(
                    m.group(1),
                    m.group(2),
                    m.group(3) or "",
                    m.group(4) == "fixed",
                    _floats(m.group(6)),
                    _floats(m.group(7)),
                    _floats(m.group(8)),
                    _floats(m.group(9)),
                    m.group(5) or "",
                )
            )
    return out


def over(a: Thing, b: Thing) -> bool:
    """a's centre is over b's box in x and y."""
    return (
        bool(a.pose and b.lo)
        and b.lo[0] <= a.pose[0] <= b.hi[0]
        and b.lo[1] <= a.pose[1] <= b.hi[1]
    )


def within_rim(a: Thing, b: Thing) -> bool:
    """a's centre well inside b's rim when b is round (a standing cylinder as wide as it is deep: a plate, a
    bowl), and well on b when b is a flat mat or region (at most a quarter of a's width over its edge) — the
    offline checkers' `within_rim` and `on`; True for anything else."""
    if b.shape == "region" and b.lo and a.pose and a.size:
        k = [min(max(a.size[:2]) / 4, (b.hi[i] - b.lo[i]) / 4) for i in range(2)]
        return all(b.lo[i] + k[i] <= a.pose[i] <= b.hi[i] - k[i] for i in range(2))
    if b.shape != "cylinder" or not b.size or not a.pose or max(b.size[:2]) > 1.1 * min(b.size[:2]):
        return True
    return math.dist(a.pose[:2], b.pose[:2]) <= min(b.size[:2]) / 2 - 0.02


EXACT_GROUP = 10  # up to this many references every subset is tried (2^10); more are grown greedily


def near_group(
    refs: list[Thing], mover: Thing | None = None, reach: float = 0.15, room: float = 0.06
) -> list[str]:
    """The names of the most of `refs` one thing can be near at once ("near where the other fruit are",
    the fruit spread over the table): the largest subset whose boxes, each widened by `reach` m (the
    checkers' `near`), share a patch at least `room` m across in x and y; of equal subsets, the one with the
    largest shared patch (above EXACT_GROUP references, the largest grown greedily from each one, nearest
    first). All of them when they are close together; when no two are, the one nearest `mover` (else the
    first). Order kept; things without a box are kept."""

    def patch(group: tuple[Thing, ...]) -> float:
        w = [
            min(t.hi[i] for t in group) - max(t.lo[i] for t in group) + 2 * reach for i in range(2)
        ]
        return w[0] * w[1] if min(w) >= room else -1.0

    boxed = [t for t in refs if t.lo]
    if (
        len(boxed) > EXACT_GROUP
    ):  # (every subset of 24 strawberries takes 100 s) grown from each one
        grown = []
        for seed in boxed:
            group = [seed]
            for t in sorted(
                (t for t in boxed if t is not seed),
                key=lambda t: math.dist(t.pose[:2], seed.pose[:2]),
            ):
                if patch((*group, t)) > 0:
                    group.append(t)
            grown.append(tuple(group))
        best = max(grown, key=lambda g: (len(g), patch(g)))
        if len(best) > 1:
            return [t.name for t in refs if t in best or not t.lo]
    for n in range(len(boxed), 1, -1) if len(boxed) <= EXACT_GROUP else ():
        best = max(combinations(boxed, n), key=patch)
        if patch(best) > 0:
            return [t.name for t in refs if t in best or not t.lo]
    if boxed and mover is not None and mover.pose:
        boxed = [
            min(boxed, key=lambda t: math.dist(t.pose[:2], mover.pose[:2]) if t.pose else math.inf)
        ]
    return [t.name for t in refs if not t.lo or t is boxed[0]] if boxed else [t.name for t in refs]


def container(t: Thing) -> bool:
    from owl_bt.language.vocabulary import ONTOLOGY

    return t.category in ONTOLOGY["container"]


def deep(t: Thing) -> bool:
    """t is at least as tall as it is wide in its own frame (a mug, a can): whatever lies in it lies in the way
    of what goes in next, where a wide, shallow container (a bowl, a skillet) has room beside it."""
    return len(t.size) == 3 and t.size[2] >= min(t.size[:2])


def resting_on(a: Thing, b: Thing) -> bool:
    """a rests on (or, for a container, sits in the opening of) b — never on what lies in it (a mug
    does not rest on the golf ball inside it, and "put it back" must not set it down on the ball)."""
    if a.name == b.name or a.fixed or not over(a, b):
        return False
    if held_in(b, a) and b.volume < a.volume and b.lo[2] >= a.lo[2] - 0.005:
        return False  # b lies in a (a flat plate under a bowl set on it does not: it is below it)
    low = b.hi[2] - (0.05 if container(b) else 0.01)
    return low <= a.lo[2] <= b.hi[2] + 0.02


def inside(a: Thing, b: Thing) -> bool:
    """a is held in container b: it fits b's opening, its centre is over b and its bottom below b's rim
    (something too big for the opening sitting on it rests on it instead)."""
    return (
        a.name != b.name
        and not a.fixed
        and container(b)
        and fits_in(a, b)
        and held_in(a, b)
        and within_rim(a, b)
    )


def held_in(a: Thing, b: Thing) -> bool:
    """a's centre over b and a's bottom below b's top: a is in b, whatever b is (a can, a mug). A long
    thing's centre must be within b's walls, as the offline checkers' `inside` has it: a fork leaning
    on a mug from outside has its centre over the mug's box but beside its walls (the grounder then
    answered that the goal already held, and its own checker said it did not)."""
    if (
        a.name == b.name
        or a.fixed
        or not over(a, b)
        or not b.lo[2] - 0.015 <= a.lo[2] < b.hi[2] - 0.01
    ):
        return False
    return (
        a.shape == "sphere"
        or not b.size
        or not b.pose
        or math.dist(a.pose[:2], b.pose[:2]) <= min(b.size[:2]) / 2
    )


def fits_in(a: Thing, c: Thing) -> bool:
    """a's two smallest extents pass c's opening (its smaller horizontal own-frame extent, 80 %)."""
    if not a.size or not c.size:
        return False
    opening = 0.8 * min(c.size[0], c.size[1])
    small = sorted(a.size)[:2]
    return small[1] < opening


def measure(t: Thing, what: str, ref: Thing | None = None) -> float:
    if what == "distance" and ref is not None and t.pose and ref.pose:
        return math.dist(t.pose[:2], ref.pose[:2])
    if what == "stature":  # standing up (a can): its height; lying (a fork): its length
        across = max(t.size[:2]) if t.size else 0.0
        return t.height if t.height >= 0.5 * across else t.length
    return {"volume": t.volume, "length": t.length, "height": t.height}.get(what, 0.0)
