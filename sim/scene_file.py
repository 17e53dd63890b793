"""User scenes from a TOML file: `owl-bt run "<goal>" --scene my_table.toml`.

Format (see examples/fruit_bowl.toml):

    instruction = "put the apple into the bowl"   # optional; used when the command's goal is ""
    [[object]]
    kind = "bowl"            # any catalogue kind (sim.catalog.KINDS), e.g. apple, mug, white_mat
    name = "red_bowl"        # optional, default the kind; unique in the scene
    colour = "red"           # optional, a catalogue colour word
    rgba = [0.8, 0.3, 0.3, 1.0]  # optional instead of colour: any tint; listed by its nearest colour word
    size = [0.05, 0.05, 0.05]  # optional, for box and block ([dx, dy, dz] or one number), cylinder
                             # ([diameter, height]) and sphere (diameter); metres
    pose = [0.55, 0.15]      # [x, y] resting on the table (on a flat marker if over one),
                             # [x, y, z, roll, pitch, yaw] exactly, or "random" (a free spot drawn from --seed)

World frame: x away from the robot base (the table spans 0.2–0.9 m), y to its left (±0.45 m), z up
from the table top; metres and radians. Movable objects must have their centre in the arm's reach
(x 0.35–0.75, y −0.32–0.32). Every problem is a `UsageError` with a one-line reason.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from owl_bt.errors import UsageError
from owl_bt.plain_text import MAX_INSTRUCTION, plain_line
from owl_bt.state import Pose, rotation_matrix
from sim import catalog
from sim.catalog.layout import REACH, Box2, Layout, footprint, on_table, resting_pose
from sim.catalog.markers import THICKNESS
from sim.objects import ObjectSpec
from sim.world import SimWorld

TOP_KEYS = {"instruction", "object"}
OBJECT_KEYS = {"kind", "name", "colour", "rgba", "pose", "size"}
MAX_NAME = 40  # characters of an object's name
TOUCH = (
    0.002  # m: boxes may touch (or sink this far into each other) without counting as overlapping
)


@dataclass(frozen=True)
class SceneObject:
    """One object of a scene: its spec and its pose — a Pose, an (x, y) spot on the table, or None (random)."""

    spec: ObjectSpec
    pose: Pose | tuple[float, float] | None


@dataclass(frozen=True)
class Scene:
    """A user's scene, usable wherever the episode takes a benchmark Task (build, name, instruction).

    It has no success detector (`detect` is None): the run's success is the robot's own judgement,
    and the run says so. No oracle answers either.
    """

    name: str
    instruction: str
    objects: tuple[SceneObject, ...]
    detect: None = None
    observe: None = None
    optimal_length: int = 0
    oracle_sketch: str = ""
    oracle_checkers: str = ""
    path: Path = field(default_factory=Path)

    def build(self, world: SimWorld, seed: int) -> None:
        """Add the objects (markers first, then fixed poses, then random spots from `seed`) and settle."""
        layout = Layout(np.random.default_rng(seed))
        markers: list[Box2] = []
        for obj in sorted(
            (o for o in self.objects if o.pose is not None), key=lambda o: not o.spec.region
        ):
            if isinstance(obj.pose, Pose):
                pose = obj.pose
            else:
                x, y = obj.pose
                over = not obj.spec.region and any(
                    b[0][0] <= x <= b[1][0] and b[0][1] <= y <= b[1][1] for b in markers
                )
                pose = resting_pose(
                    obj.spec, x, y, support_z=THICKNESS if over else catalog.TABLE_TOP_Z
                )
            layout.taken[obj.spec.name] = footprint(obj.spec, pose)
            if obj.spec.region:
                markers.append(layout.taken[obj.spec.name])
            world.add(obj.spec, pose)
        for obj in (o for o in self.objects if o.pose is None):
            try:
                pose = layout.sample(obj.spec)
            except RuntimeError:
                raise UsageError(
                    f"{self.path}: no free spot on the table for {obj.spec.name!r} (seed {seed}); "
                    "use fewer or smaller objects, or give its pose"
                ) from None
            world.add(obj.spec, pose)
        world.settle(0.5)


def load_scene(path: str | Path, reserved: Collection[str] = ()) -> Scene:
    """Read and check a scene file; raises UsageError naming the first problem (one line).

    `reserved`: names the layers above bind already (checker code's: pass
    `owl_bt.language.sandbox.reserved_names()`); an object may not take one."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise UsageError(f"scene file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read scene file {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays nested thousands deep: the TOML reader recurses per level
        raise UsageError(f"{path}: not valid TOML for a scene: nested too deep") from None
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise UsageError(
            f"{path}: unknown key {sorted(unknown)[0]!r}; a scene has: instruction, [[object]]"
        )
    instruction = data.get("instruction", "")
    if not isinstance(instruction, str):
        raise UsageError(f"{path}: instruction must be a string")
    instruction = _checked_instruction(path, instruction)
    entries = data.get("object", [])
    if not isinstance(entries, list) or not entries:
        raise UsageError(
            f"{path}: the scene has no objects; add [[object]] tables with a kind and a pose"
        )
    objects = [_object(path, i, e, reserved) for i, e in enumerate(entries, 1)]
    _check_names(path, objects)
    _check_overlaps(path, objects)
    return Scene(
        name=f"scene:{path.stem}",
        instruction=instruction.strip(),
        objects=tuple(objects),
        path=path,
    )


def _object(path: Path, i: int, entry: object, reserved: Collection[str]) -> SceneObject:
    where = f"{path}: object {i}"
    if not isinstance(entry, dict):
        raise UsageError(f"{where}: expected a table with kind and pose")
    unknown = set(entry) - OBJECT_KEYS
    if unknown:
        raise UsageError(
            f"{where}: unknown key {sorted(unknown)[0]!r}; an object has: {', '.join(sorted(OBJECT_KEYS))}"
        )
    kind = entry.get("kind")
    known = sorted(k for k in catalog.KINDS if k != "table")
    if kind is None:
        raise UsageError(f"{where}: needs a kind (one of: {', '.join(known)})")
    if not isinstance(kind, str) or kind not in known:
        raise UsageError(f"{where}: unknown kind {kind!r}; known kinds: {', '.join(known)}")
    name = entry.get("name", kind)
    if not isinstance(name, str) or not name.isidentifier():
        raise UsageError(
            f"{where}: name {name!r} must be a word of letters, digits and underscores"
        )
    if (
        name.lower() in RESERVED_NAMES
    ):  # "far from the robot" is the back of the table; "put it …" names the last object
        raise UsageError(
            f"{where}: name {name!r} is a word goals use for something else; name it e.g. 'my_{name.lower()}'"
        )
    if name in reserved:
        raise UsageError(
            f"{where}: name {name!r} is a word the constraint code uses for something else; name it e.g. "
            f"'my_{name}'"
        )
    if name != name.lower():  # goals are read in lower case: "the Big_Apple" could not be said
        raise UsageError(f"{where}: name {name!r} must be lower case, e.g. {name.lower()!r}")
    if (
        name != kind and name in catalog.KINDS
    ):  # an apple named "bowl": "the bowl" could then not be said
        article = "an" if kind[0] in "aeiou" else "a"
        raise UsageError(
            f"{where}: {article} {kind} cannot be named {name!r}, the name of another kind; name it e.g. "
            f"'{kind}_2' or 'my_{kind}'"
        )
    if len(name) > MAX_NAME:  # it is said in every failure line and prompt that names the object
        raise UsageError(
            f"{where}: name {name[:20]!r}… is {len(name)} characters long; give at most {MAX_NAME}"
        )
    colour = entry.get("colour")
    if colour is not None and (not isinstance(colour, str) or colour not in catalog.COLOURS):
        raise UsageError(
            f"{where} ({name}): unknown colour {colour!r}; known: {', '.join(sorted(catalog.COLOURS))}"
        )
    spec = catalog.make(kind, name, colour=colour, **_size(f"{where} ({name})", kind, entry))
    if "rgba" in entry:
        spec = _tinted(f"{where} ({name})", spec, entry["rgba"], colour)
    return SceneObject(spec, _pose(f"{where} ({name})", spec, entry.get("pose", "random")))


def _size(where: str, kind: str, entry: dict) -> dict:
    """The builder's `size` keyword for a sized kind (see sim/catalog/everyday.py), {} when none is given."""
    if "size" not in entry:
        return {}
    raw = entry["size"]
    if kind not in catalog.SIZED:
        raise UsageError(
            f"{where}: a {kind} has a fixed size; only {', '.join(sorted(catalog.SIZED))} take a size"
        )
    values = raw if isinstance(raw, list) else [raw]
    if not values or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values
    ):
        raise UsageError(
            f"{where}: size must be a number or a list of numbers (metres), got {raw!r}"
        )
    from sim.catalog.everyday import sized_parts

    try:
        sized_parts(catalog.SIZED[kind], tuple(float(v) for v in values))
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None
    return {"size": tuple(float(v) for v in values)}


def _tinted(where: str, spec: ObjectSpec, raw: object, colour: str | None) -> ObjectSpec:
    """spec tinted `raw` ([r, g, b] or [r, g, b, a] in [0, 1]) and named by the nearest colour word."""
    from dataclasses import replace

    if colour is not None:
        raise UsageError(f"{where}: give colour or rgba, not both")
    ok = (
        isinstance(raw, list)
        and len(raw) in (3, 4)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
        and all(0.0 <= v <= 1.0 for v in raw)
    )
    if not ok:
        raise UsageError(
            f"{where}: rgba must be [r, g, b] or [r, g, b, a], each 0 to 1; got {raw!r}"
        )
    rgba = tuple(float(v) for v in raw) + ((1.0,) if len(raw) == 3 else ())
    return replace(spec, rgba=rgba, colour=catalog.colour_word(rgba))


RESERVED_NAMES = {
    "robot",
    "it",
    "its",
    "them",
    "they",
    "itself",
    "all",
    "every",
    "each",
    "everything",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "both",
    "other",
    "rest",
    "the",
    "a",
    "an",
    "and",
    "or",
    "of",
    "to",
    "on",
    "in",
    "into",
    "onto",
    "then",
    "near",
    "by",
}


def _pose(where: str, spec: ObjectSpec, raw: object) -> Pose | tuple[float, float] | None:
    if raw == "random":
        return None
    ok = (
        isinstance(raw, list)
        and len(raw) in (2, 6)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
    )
    ok = ok and all(math.isfinite(v) for v in raw)  # TOML's inf and nan (and 1e400) are not places
    if not ok:
        raise UsageError(
            f'{where}: pose must be [x, y], [x, y, z, roll, pitch, yaw] or "random", got {raw!r}'
        )
    vals = [float(v) for v in raw]
    pose = resting_pose(spec, vals[0], vals[1]) if len(vals) == 2 else Pose(*vals)
    if not on_table(footprint(spec, pose)):
        raise UsageError(
            f"{where}: pose ({vals[0]}, {vals[1]}) is off the table (x 0.2 to 0.9, y -0.45 to 0.45 m, "
            "with the whole object on it)"
        )
    if not spec.region and not (
        REACH[0][0] <= pose.x <= REACH[0][1] and REACH[1][0] <= pose.y <= REACH[1][1]
    ):
        raise UsageError(
            f"{where}: pose ({vals[0]}, {vals[1]}) is out of the arm's reach (x {REACH[0][0]} to {REACH[0][1]}, "
            f"y {REACH[1][0]} to {REACH[1][1]} m)"
        )
    if len(vals) == 6 and not 0.0 <= pose.z <= 0.5:
        raise UsageError(
            f"{where}: z = {pose.z} m is below the table top or more than 0.5 m above it"
        )
    if len(vals) == 6 and any(
        abs(a) > 2 * math.pi for a in vals[3:]
    ):  # (a roll of 1e308 is damage, not an angle)
        raise UsageError(
            f"{where}: roll, pitch and yaw are radians, each within ±2π (6.283); got {vals[3:]}"
        )
    return (vals[0], vals[1]) if len(vals) == 2 else pose


def _check_names(path: Path, objects: list[SceneObject]) -> None:
    """Names are unique ignoring case (a goal is read in lower case) and none is the table's."""
    seen: set[str] = {"table"}
    for obj in objects:
        if obj.spec.name.lower() in seen:
            raise UsageError(
                f"{path}: two objects are called {obj.spec.name!r}"
                + (
                    " (the table is 'table')"
                    if obj.spec.name.lower() == "table"
                    else " (ignoring case)"
                )
                + "; give one a different name"
            )
        seen.add(obj.spec.name.lower())


def _box3(obj: SceneObject) -> tuple[tuple[float, ...], tuple[float, ...]]:
    pose = obj.pose if isinstance(obj.pose, Pose) else resting_pose(obj.spec, *obj.pose)
    return obj.spec.to_state(pose).aabb()


def _cavity_floor(outer: SceneObject) -> tuple[tuple[float, float, float], dict] | None:
    """The middle of outer's cavity floor (world frame, m) and its cavity (radius, bottom, top: see
    sim/catalog/parts.cavity), for a hollow container standing upright at an exact or resting pose; None
    otherwise (a lying or tipped container holds nothing here: its walls are not where an upright one's are)."""
    cav = outer.spec.extra.get("cavity")
    if cav is None or not isinstance(outer.pose, tuple | Pose):
        return None
    opose = outer.pose if isinstance(outer.pose, Pose) else resting_pose(outer.spec, *outer.pose)
    rot = rotation_matrix(*opose.euler)
    if rot[2][2] < 0.95:
        return None
    lo, hi = outer.spec.bounds()
    local = [
        cav["centre"][0] - (lo[0] + hi[0]) / 2,
        cav["centre"][1] - (lo[1] + hi[1]) / 2,
        cav["bottom"] - (lo[2] + hi[2]) / 2,
    ]
    x, y, z = (opose.position[i] + sum(rot[i][j] * local[j] for j in range(3)) for i in range(3))
    return (x, y, z), cav


def _in_cavity(inner: SceneObject, outer: SceneObject) -> bool:
    """Does inner sit in outer's cavity (a hollow container standing upright): its bottom no lower than the
    cavity's floor (3 mm leeway: a can's soup rests on it) and, when it is all below the rim, all of it
    within the walls (2 mm leeway: a 7 cm apple "in" a mug with a 6.4 cm inside would knock the mug
    over at the start), else its box centre (a fork leaning in it)."""
    found = _cavity_floor(outer)
    if found is None:
        return False
    floor, cav = found
    (ilo, ihi) = _box3(inner)
    c = [(a + b) / 2 for a, b in zip(ilo, ihi, strict=True)]
    below_rim = ihi[2] <= floor[2] + cav["top"] - cav["bottom"]
    off_axis = math.hypot(c[0] - floor[0], c[1] - floor[1])
    reach = off_axis + (max(ihi[0] - ilo[0], ihi[1] - ilo[1]) / 2 if below_rim else 0.0)
    return reach <= cav["radius"] + (0.002 if below_rim else 0.0) and ilo[2] >= floor[2] - 0.003


def _inside_hint(a: SceneObject, b: SceneObject) -> str:
    """', or to start the golf ball inside the mug, …' when one of the two is a container standing upright."""
    for inner, outer in ((a, b), (b, a)):
        found = _cavity_floor(outer)
        if found is not None:
            (x, y, z), cav = found
            return (
                f", or to start the {inner.spec.name} inside the {outer.spec.name}, give it an exact pose within "
                f"{cav['radius'] * 100:.1f} cm of the axis at ({x:.3f}, {y:.3f}), its bottom no lower than the floor "
                f"at z {z:.3f} m"
            )
    return ""


def _check_overlaps(path: Path, objects: list[SceneObject]) -> None:
    placed = [o for o in objects if o.pose is not None]
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            if a.spec.region or b.spec.region:
                continue  # things rest on flat markers
            (alo, ahi), (blo, bhi) = _box3(a), _box3(b)
            if all(alo[k] < bhi[k] - TOUCH and blo[k] < ahi[k] - TOUCH for k in range(3)):
                if not (_in_cavity(a, b) or _in_cavity(b, a)):
                    raise UsageError(
                        f"{path}: {a.spec.name!r} and {b.spec.name!r} overlap; move one of them"
                        + _inside_hint(a, b)
                    )


def _checked_instruction(path: Path, text: str) -> str:
    """The scene's instruction checked as a typed goal is: terminal
    escapes and control characters dropped, at least one word, at most MAX_INSTRUCTION characters;
    raises UsageError naming the file."""
    text = plain_line(text, limit=None)
    if text and not re.search(r"[^\W\d_]", text):
        raise UsageError(
            f"{path}: the instruction has no words ({text[:40]!r}); say what the robot should do"
        )
    if len(text) > MAX_INSTRUCTION:
        raise UsageError(
            f"{path}: the instruction is {len(text)} characters long; say the goal in at most {MAX_INSTRUCTION}"
        )
    return text
