"""The offline grounder's answer to the Code-as-Policies prompt (methods `cap`, `cap-sample`):
its own plan written as `gen_plan(initial)` — constant positions computed from the initial scene
(`cap`), or positions drawn from helper-built regions (`cap-sample`)."""

from __future__ import annotations

import math
import re

from owl_bt.language.checker_helpers import FAR_APART
from owl_bt.language.offline_plan import Plan
from owl_bt.language.scene_view import Thing

_CALL = re.compile(r'(\w+)\("([^"]+)"(?:, "([^"]+)"|, (True|False))?(?:, "([^"]+)")?')
REACH = ((0.36, -0.3), (0.74, 0.3))  # metres: where the arm comfortably puts things
POUR_TILT = 2.2  # radians the hand turns a poured object away from the robot
HELPER = {
    "left_of": "left_of",
    "right_of": "right_of",
    "behind": "behind",
    "in_front_of": "in_front_of",
}


def _relations(checks: list[str], obj: str) -> list[tuple[str, ...]]:
    out = []
    for c in checks:
        for m in _CALL.finditer(c):
            args = tuple(a for a in m.groups()[1:] if a)
            if args and args[0] == obj and not c.lstrip().startswith("not"):
                out.append((m.group(1), *args[1:]))
    return out


def _centre(t: Thing) -> tuple[float, float]:
    return ((t.lo[0] + t.hi[0]) / 2, (t.lo[1] + t.hi[1]) / 2)


def _point(
    obj: str,
    support: str,
    rels,
    by: dict[str, Thing],
    planned: dict[str, tuple[float, float]],
    share: tuple[int, int] = (0, 1),
):
    """Where obj goes on support: its own spot on the table, else the support's centre — the k-th of
    n objects put on one support spread across it (`share` = (k, n)) — moved by the relations."""
    t = by[support]
    x, y = planned.get(obj, tuple(by[obj].pose[:2])) if t.category == "table" else _centre(t)
    if t.category != "table" and share[1] > 1 and t.hi:
        room = 0.8 * min(t.hi[0] - t.lo[0], t.hi[1] - t.lo[1])
        y += (share[0] - (share[1] - 1) / 2) * room / share[1]
    for rel in rels:
        kind, refs = rel[0], rel[1:]
        r = by.get(refs[-1]) if refs else None
        rc = planned.get(r.name, _centre(r)) if r else None
        if kind == "side" and r is not None:
            how = refs[0]
            r = by[refs[1]]
            rc = planned.get(r.name, _centre(r))
            half = ((r.hi[0] - r.lo[0]) / 2, (r.hi[1] - r.lo[1]) / 2)
            if how == "left_of":
                y = rc[1] + half[1] + 0.07
            elif how == "right_of":
                y = rc[1] - half[1] - 0.07
            elif how == "behind":
                x = rc[0] + half[0] + 0.07
            elif how == "in_front_of":
                x = rc[0] - half[0] - 0.07
            elif how == "near":
                x, y = rc[0], rc[1] + (-0.12 if rc[1] > 0 else 0.12)
            elif how == "at_initial":
                x, y = _centre(r)
        elif kind == "between" and len(refs) == 2:
            a, b = (planned.get(n, _centre(by[n])) for n in refs)
            x, y = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        elif kind == "aligned" and rc is not None:
            x = rc[0]
        elif kind == "far":
            y = 0.25 if refs and refs[0] == "True" else -0.25
        elif kind == "depth":  # the back (far from the robot) or front third of the table
            x = 0.68 if refs and refs[0] == "True" else 0.42
        elif kind == "part" and len(refs) == 2 and refs[0] in by and by[refs[0]].hi:
            s = by[refs[0]]
            dx, dy = {
                "left_of": (0, 1),
                "right_of": (0, -1),
                "behind": (1, 0),
                "in_front_of": (-1, 0),
            }.get(refs[1], (0, 0))
            x, y = x + dx * (s.hi[0] - s.lo[0]) / 4, y + dy * (s.hi[1] - s.lo[1]) / 4
        elif (
            kind == "apart" and rc is not None
        ):  # far from it: the corner of the reach farthest from it
            x, y = max(
                (
                    (cx, cy)
                    for cx in (REACH[0][0], REACH[1][0])
                    for cy in (REACH[0][1], REACH[1][1])
                ),
                key=lambda c: math.dist(c, rc),
            )
        elif kind == "off" and r is not None and r.lo[1] - 0.05 <= y <= r.hi[1] + 0.05:
            y = r.lo[1] - 0.1 if r.lo[1] - 0.1 > REACH[0][1] else r.hi[1] + 0.1
    x, y = min(max(x, REACH[0][0]), REACH[1][0]), min(max(y, REACH[0][1]), REACH[1][1])
    x, y = _free_spot(obj, (x, y), t, rels, by, planned)
    return (round(x, 3), round(y, 3))


def _radius(t: Thing) -> float:
    return 0.5 * max(t.hi[0] - t.lo[0], t.hi[1] - t.lo[1]) if t.hi else 0.04


def _free_spot(
    obj: str,
    start: tuple[float, float],
    support: Thing,
    rels,
    by: dict[str, Thing],
    planned: dict[str, tuple[float, float]],
) -> tuple[float, float]:
    """The spot nearest `start` (rings of 2 cm, 16 directions) where obj's footprint clears every
    other object's (where it is, or where the plan put it), that stays on a support other than the
    table and keeps the one-sided relations; `start` when none is found."""
    me = _radius(by[obj])
    others = []
    for n, o in by.items():
        if (
            n in (obj, support.name)
            or o.fixed
            or not o.hi
            or o.category in ("region", "mat", "line")
        ):
            continue
        c = planned.get(n, _centre(o))
        others.append((c, _radius(o)))

    def ok(x: float, y: float) -> bool:
        if not (REACH[0][0] <= x <= REACH[1][0] and REACH[0][1] <= y <= REACH[1][1]):
            return False
        if (
            support.category != "table" and support.hi
        ):  # well inside (a plate is round: within its inner circle)
            sc = _centre(support)
            if math.dist((x, y), sc) > max(
                0.0, min(support.hi[0] - sc[0], support.hi[1] - sc[1]) - 0.5 * me
            ):
                return False
        for rel in rels:
            if rel[0] == "off":
                r = by[rel[-1]]
                if (
                    r.lo[0] - me - 0.03 < x < r.hi[0] + me + 0.03
                    and r.lo[1] - me - 0.03 < y < r.hi[1] + me + 0.03
                ):
                    return False
            if (
                rel[0] == "apart"
                and math.dist((x, y), planned.get(rel[-1], _centre(by[rel[-1]]))) < FAR_APART + 0.02
            ):
                return False
            if (
                rel[0] == "side"
                and rel[1] == "near"
                and math.dist((x, y), planned.get(rel[2], _centre(by[rel[2]]))) > 0.15
            ):
                return False
            if rel[0] == "side" and rel[1] in HELPER:
                r = by[rel[2]]
                cx, cy = planned.get(r.name, _centre(r))
                hx, hy = (r.hi[0] - r.lo[0]) / 2, (r.hi[1] - r.lo[1]) / 2
                if not {
                    "left_of": y > cy + hy,
                    "right_of": y < cy - hy,
                    "behind": x > cx + hx,
                    "in_front_of": x < cx - hx,
                }[rel[1]]:
                    return False
        return all(math.dist((x, y), c) > me + half + 0.005 for c, half in others)

    for ring in range(16):
        for k in range(16 if ring else 1):
            a = 2 * math.pi * k / 16
            x, y = start[0] + 0.02 * ring * math.cos(a), start[1] + 0.02 * ring * math.sin(a)
            if ok(x, y):
                return x, y
    return start


def _bounds_code(obj: str, support: str, op: str, rels, by: dict[str, Thing]) -> list[str]:
    helper = {"place_ontop": "ontop_of", "place_inside": "inside"}.get(op)
    if helper is None:  # a pour: above the target
        lines = [
            f'    b = modify_pose_bounds_to_be_above_object(initial, env, init_bounds, "{support}")'
        ]
    else:
        lines = [
            f'    b = modify_pose_bounds_to_be_{helper}_object(initial, env, init_bounds, "{obj}", "{support}")'
        ]
    for rel in rels:
        if rel[0] == "side" and rel[1] in HELPER:
            lines.append(
                f'    b = modify_pose_bounds_to_be_{HELPER[rel[1]]}_object(initial, env, b, "{rel[2]}")'
            )
        elif rel[0] == "side" and rel[1] == "near":
            lines.append(
                f'    b = modify_pose_bounds_to_be_near_object(initial, env, b, "{rel[2]}", 0.15)'
            )
        elif (
            rel[0] == "off" and by[rel[-1]].hi
        ):  # clear of it: on the side of it with more room in reach
            r = by[rel[-1]]
            side = "left_of" if REACH[1][1] - r.hi[1] > r.lo[1] - REACH[0][1] else "right_of"
            lines.append(
                f'    b = modify_pose_bounds_to_be_{side}_object(initial, env, b, "{rel[-1]}")'
            )
    return lines


def gen_plan_code(plan: Plan, things: list[Thing], sample: bool) -> str:
    """The python block defining gen_plan(initial) for `plan`."""
    by = {t.name: t for t in things}
    planned: dict[str, tuple[float, float]] = {}
    onto = [s.args[1] for s in plan.steps if s.op.startswith("place")]
    seen: dict[str, int] = {}
    lines = ["def gen_plan(initial):", "    plan = []"]
    for s in plan.steps:
        obj = s.args[0]
        if s.op == "pick":
            lines.append(f'    plan.append(("pick", "{obj}"))')
            continue
        support = s.args[1]
        rels = _relations(s.check, obj)
        if sample:
            lines += _bounds_code(obj, support, s.op, rels, by)
            lines.append(
                f'    plan.append(("{s.op}", "{obj}", "{support}", sample_ravenpose_uniformly_within_bounds(b)))'
            )
        elif (
            s.op == "pour"
        ):  # held so that the mouth, tilted 2.2 rad away from the robot, is over the target
            h = by[obj].size[2] if by[obj].size else 0.1
            x, y = (
                planned.get(obj, tuple(by[obj].pose[:2]))
                if by[support].category == "table"
                else _centre(by[support])
            )
            top = by[support].hi[2] if by[support].hi else 0.0
            p = (
                round(x - 0.5 * h * math.sin(POUR_TILT), 3),
                round(y, 3),
                round(top + 1.5 * h, 3),
                POUR_TILT,
            )
            lines.append(f'    plan.append(("pour", "{obj}", "{support}", {p}))')
        else:
            p = _point(obj, support, rels, by, planned, (seen.get(support, 0), onto.count(support)))
            seen[support] = seen.get(support, 0) + 1
            planned[obj] = p
            lines.append(f'    plan.append(("{s.op}", "{obj}", "{support}", {p}))')
    lines.append("    return plan")
    return "```python\n" + "\n".join(lines) + "\n```\n"
