"""A grounding corpus: scenes and instructions as data, each instruction with the goal literals it
must ground to or the refusal it must end in, judged without the simulator.

Scene files (TOML): `name`, `[[object]]` tables (`kind`; optional `name`, `colour`, `at` = [x, y]
in metres in the robot's frame, `on` / `in` = the name of the object it rests on or in, `size`,
`fixed`), and `[[case]]` tables (`say`, `class`, and either `expect` = the literals
(`owl_bt.language.goals.literals`) in order, or `refuse` = a regular expression the refusal
matches; `gap` = why an expected grounding is refused for now). Sizes and shapes of kinds come from
`kinds.toml` beside the scenes.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language.pipeline import ground
from owl_bt.language.scene_view import Thing

VERDICTS = ("grounded right", "refused right", "refused, should ground", "wrong")


@dataclass(frozen=True)
class Case:
    scene: str
    say: str
    cls: str
    expect: tuple[str, ...] | None = None
    refuse: str | None = None
    gap: str = ""


@dataclass
class Outcome:
    case: Case
    literals: list[str] = field(default_factory=list)
    refusal: str = ""

    @property
    def verdict(self) -> str:
        """'grounded right', 'refused right', 'refused, should ground' (an honest gap) or 'wrong'
        (grounded when it should refuse, or to other literals, or refused for another reason)."""
        c = self.case
        if self.refusal:
            if c.refuse is not None:
                ok = re.search(c.refuse, self.refusal, re.IGNORECASE)
                return "refused right" if ok else "wrong"
            return "refused, should ground"
        if c.expect is not None and tuple(self.literals) == c.expect:
            return "grounded right"
        return "wrong"


def _table_top(things: dict[str, Thing], name: str) -> float:
    return things[name].hi[2]


def scene_things(scene: dict, kinds: dict) -> list[Thing]:
    """The scene file's objects as the grounder sees them (a table always first)."""
    table = kinds["table"]
    out = {
        "table": Thing(
            "table",
            "table",
            "brown",
            True,
            (0.55, 0.0, -0.0005, 0.0, 0.0, 0.0),
            tuple(table["size"]),
            (0.2, -0.45, -0.001),
            (0.9, 0.45, 0.0),
            "box",
        )
    }
    for o in scene.get("object", []):
        kind = kinds[o["kind"]]
        name = o.get("name", o["kind"])
        size = tuple(o.get("size", kind["size"]))
        if "in" in o or "on" in o:
            holder = out[o.get("in") or o["on"]]
            x, y = o.get("at", holder.pose[:2])
            z0 = holder.lo[2] + 0.005 if "in" in o else holder.hi[2]
        else:
            (x, y), z0 = o["at"], 0.0
        lo = (x - size[0] / 2, y - size[1] / 2, z0)
        hi = (x + size[0] / 2, y + size[1] / 2, z0 + size[2])
        out[name] = Thing(
            name,
            kind.get("category", o["kind"]),
            o.get("colour", kind.get("colour", "")),
            o.get("fixed", kind.get("fixed", False)),
            (x, y, z0 + size[2] / 2, 0.0, 0.0, o.get("yaw", 0.0)),
            size,
            lo,
            hi,
            kind.get("shape", "box"),
        )
    return list(out.values())


def load(folder: Path) -> tuple[list[Case], dict[str, list[Thing]]]:
    """The cases of every scene file in `folder` and each scene's objects."""
    kinds = tomllib.loads((folder / "kinds.toml").read_text("utf-8"))
    cases, scenes = [], {}
    for path in sorted(folder.glob("*.toml")):
        if path.name == "kinds.toml":
            continue
        data = tomllib.loads(path.read_text("utf-8"))
        for c in data.get("case", []):
            if c.get("gap") and "expect" not in c:
                raise ValueError(f"{path.name}: {c['say']!r} has a gap but no expected literals")
        scenes[data["name"]] = scene_things(data, kinds)
        for c in data.get("case", []):
            cases.append(
                Case(
                    data["name"],
                    c["say"],
                    c["class"],
                    tuple(c["expect"]) if "expect" in c else None,
                    c.get("refuse"),
                    c.get("gap", ""),
                )
            )
    return cases, scenes


def judge(case: Case, things: list[Thing]) -> Outcome:
    """Ground `case.say` over `things` (the reading, then the sketch: both must succeed)."""
    try:
        grounding = ground(case.say, things)
    except (GroundingError, UnknownObjectError) as exc:
        return Outcome(case, refusal=str(exc) or type(exc).__name__)
    return Outcome(case, list(grounding.literals))


def tally(outcomes: list[Outcome]) -> dict[str, Counter]:
    """class → how many of its cases had each verdict."""
    out: dict[str, Counter] = {}
    for o in outcomes:
        out.setdefault(o.case.cls, Counter())[o.verdict] += 1
    return out


def table(counts: dict[str, Counter]) -> str:
    """A markdown table of the per-class counts, with a total row."""
    head = "| class | cases | " + " | ".join(VERDICTS) + " |"
    rows = [head, "|" + "---|" * (len(VERDICTS) + 2)]
    total: Counter = Counter()
    for cls in sorted(counts):
        c = counts[cls]
        total += c
        rows.append(
            f"| {cls} | {sum(c.values())} | " + " | ".join(str(c[v]) for v in VERDICTS) + " |"
        )
    rows.append(
        f"| **all** | {sum(total.values())} | " + " | ".join(str(total[v]) for v in VERDICTS) + " |"
    )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """`python -m owl_bt.language.corpus FOLDER`: the per-class table, then each case not grounded
    or refused as expected, one line each; exit 2 when FOLDER holds no corpus."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else Path("tests/language/corpus")
    if not (folder / "kinds.toml").is_file():
        print(f"error: {folder} holds no corpus (kinds.toml and scene files)", file=sys.stderr)
        return 2
    cases, scenes = load(folder)
    outcomes = [judge(c, scenes[c.scene]) for c in cases]
    print(table(tally(outcomes)))
    for o in outcomes:
        if o.verdict not in ("grounded right", "refused right"):
            print(f"- {o.verdict}: {o.case.scene}: {o.case.say!r}: {o.refusal or o.literals}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
