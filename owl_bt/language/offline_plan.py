"""From the offline grounder's goals to a plan sketch and checker code (the formats of docs/architecture.md).

Ordering and preparation follow from the scene, not from any task: a container that receives
something is set in place (and upright) before it is filled — carrying a filled mug spills it; what
rests on a goal's target or on an object to be moved is moved off first; a deep container (a mug,
whose contents lie in the way of what goes in; a bowl or a skillet has room beside them) holding
something the goal does not name is poured out onto the table first (and what fell out must stay
out); a goal placed relative to another moved object comes after it, and that object's placement
leaves room on that side of a bounded support; objects already where a goal wants them are left
alone unless what they are placed relative to moves. "On" a round plate and "in" a round bowl mean
within its rim, not in the corners of its box — in the checkers and when judging what already holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from owl_bt.language import vocabulary as V
from owl_bt.language.checker_helpers import (
    EXTRA,
    FAR_APART,
    LONG_SIDE,
    PRELUDE,
    SIDE_REACH,
    SIDE_SLACK,
)  # the checkers' helper functions (re-exported)
from owl_bt.language.goals import Goal, Reading
from owl_bt.language.orientation import DIRECTION_WORDS, VECTORS
from owl_bt.language.scene_view import (
    Thing,
    container,
    deep,
    held_in,
    inside,
    resting_on,
    within_rim,
)


@dataclass
class Step:
    op: str
    args: tuple[str, ...]
    text: str
    check: list[str] = field(
        default_factory=list
    )  # predicate expressions judged right after the step

    def line(self) -> str:
        return f"{self.op}({', '.join(self.args)}); {self.text}"


@dataclass
class Plan:
    steps: list[Step]
    goal_checks: list[str]
    deciding: list[str]
    meaning: str
    goal_texts: list[str] = field(default_factory=list)  # what each goal check tests, in words


def _w(name: str) -> str:
    return name.replace("_", " ")


def predicates(g: Goal, things: dict[str, Thing], during: bool = False) -> list[str]:
    """Code expressions that hold when goal g is met (`during`: right after its action — a pour is
    judged tipped over the target then, by where the contents went at the end)."""
    if g.how == "pour":
        into = container(
            things[g.support]
        )  # into a container: upside down, so nothing stays in on the arm
        out = (
            [f'tipped_over("{g.obj}", "{g.support}", {-0.7 if into else -0.5})']
            if during and (into or g.contents)
            else []
        )
        for c in g.contents:  # into a container; onto a plate, on it; onto the table, anywhere out
            out.append(
                f'inside("{c}", "{g.support}")'
                if into
                else f'not inside("{c}", "{g.obj}")'
                if things[g.support].category == "table"
                else f'on("{c}", "{g.support}")'
            )
        if g.upright and not during:  # emptied onto the table: then stood back up
            out.append(f'upright("{g.obj}")')
        return out
    if g.how == "held":
        return [f'held("{g.obj}")']
    out = [f'{"inside" if g.how == "inside" else "on"}("{g.obj}", "{g.support}")']
    if g.how == "ontop" and g.obj in things and g.support in things:
        t, s = things[g.obj], things[g.support]
        out += [  # "back on the table" from a thin plate or a bowl: `on` alone holds already
            f'off("{g.obj}", "{u}")' for u in _bearers_above(t, s, things)
        ]
    for rel, refs in g.spatial:
        if rel == "between":
            out.append(f'between("{g.obj}", "{refs[0]}", "{refs[1]}")')
        elif rel == "aligned":
            out.append(f'aligned("{g.obj}", "{refs[0]}")')
        elif rel == "off":
            out.append(f'off("{g.obj}", "{refs[0]}")')
        elif rel == "apart":
            out.append(f'apart("{g.obj}", "{refs[0]}")')
        elif rel in ("far_left", "far_right"):
            out.append(f'far("{g.obj}", {rel == "far_left"})')
        elif rel in ("back", "front"):
            out.append(f'depth("{g.obj}", {rel == "back"})')
        elif rel in HALF:
            out.append(f'part("{g.obj}", "{g.support}", "{HALF[rel]}")')
        elif rel == "upside_down":
            out.append(f'upside_down("{g.obj}")')
        elif rel == "middle":
            out.append(f'middle("{g.obj}", "{g.support}")')
        elif rel == "straight":
            out.append(f'straight("{g.obj}")')
        elif rel.startswith("points:"):
            _, end, direction = rel.split(":")
            out.append(f'points("{g.obj}", "{end}", {VECTORS[direction]})')
        elif rel in ("parallel", "perpendicular"):
            out.append(f'{rel}("{g.obj}", "{refs[0]}")')
        else:
            out.append(f'side("{g.obj}", "{rel}", "{refs[0]}")')
    if g.upright:
        out.append(f'upright("{g.obj}")')
    return out


def _bearers_above(t: Thing, s: Thing, things: dict[str, Thing]) -> list[str]:
    """The things standing higher than s that t rests on or is in: a lemon on a 1.6 cm plate or a
    peach low in a bowl is within resting_on's 2 cm of the table, but it is not on the table (a thing
    on a flat mat or region still is). None when the prompt gives no boxes."""
    if not t.hi or not s.hi:
        return []
    return [
        u.name
        for u in things.values()
        if u is not s
        and u.shape != "region"
        and u.hi
        and u.hi[2] > s.hi[2]
        and (resting_on(t, u) or inside(t, u))
    ]


def _holds_now(g: Goal, things: dict[str, Thing]) -> bool:
    """Is goal g already met in the scene (judged roughly from the prompt's boxes)?"""
    t, s = things[g.obj], things[g.support]
    if g.how == "inside" and not g.spatial and not g.upright:
        return inside(t, s)
    if (
        g.how != "ontop"
        or not resting_on(t, s)
        or not within_rim(t, s)
        or (g.upright and not t.upright)
        or not t.pose
        or _bearers_above(t, s, things)
    ):
        return False
    for rel, refs in g.spatial:
        r = things[refs[0]] if refs else None
        near = 0.15 - 0.02  # the checkers' closeness, with a margin
        ok = {
            "at_initial": r is t,
            "left_of": r and t.lo[1] > r.hi[1],
            "right_of": r and t.hi[1] < r.lo[1],
            "behind": r and t.lo[0] > r.hi[0],
            "in_front_of": r and t.hi[0] < r.lo[0],
            "near": r
            and r.lo[0] - near <= t.pose[0] <= r.hi[0] + near
            and r.lo[1] - near <= t.pose[1] <= r.hi[1] + near,
            "apart": r and math.dist(t.pose[:2], r.pose[:2]) >= FAR_APART + 0.02,
            "off": r
            and (
                t.hi[0] + 0.04 < r.lo[0]
                or t.lo[0] - 0.04 > r.hi[0]
                or t.hi[1] + 0.04 < r.lo[1]
                or t.lo[1] - 0.04 > r.hi[1]
            ),
        }.get(rel)
        across = {"left_of": 0, "right_of": 0, "behind": 1, "in_front_of": 1}.get(rel)
        if ok and across is not None:  # and in line with it, as the checker's side() asks
            strip = SIDE_SLACK - 0.01  # with a margin
            ok = r.lo[across] - strip <= t.pose[across] <= r.hi[across] + strip
            w, d = sorted((t.hi[0] - t.lo[0], t.hi[1] - t.lo[1]))
            if not r.fixed and d > LONG_SIDE * w:  # a long thing: along all its length
                ok = (
                    ok
                    and r.lo[across] - strip <= t.lo[across]
                    and t.hi[across] <= r.hi[across] + strip
                )
            reach = SIDE_REACH - 0.01  # and beside a movable reference, as side() asks
            k = 1 - across
            ok = ok and (r.fixed or r.lo[k] - reach <= t.pose[k] <= r.hi[k] + reach)
        if not ok:
            return False
    return True


def make_plan(reading: Reading, things: list[Thing], held: str | None = None) -> Plan:
    """The sketch and checkers for `reading`; `held`: the object in the hand now (a replan after a
    failed placement), whose own goal comes first."""
    by = {t.name: t for t in things}
    goals = list(reading.goals)
    table = next((t.name for t in things if t.category == "table"), None)
    steps: list[Step] = []
    done: set[int] = set()
    cleared: set[str] = set()
    emptied: set[str] = set()
    placed: set[str] = set()
    poured_out: list[
        tuple[str, str]
    ] = []  # (what was tipped out, of which container): it stays out
    goal_objs = {g.obj for g in goals} | {c for g in goals for c in g.contents}

    def pending(name: str) -> int | None:
        return next(
            (i for i, g in enumerate(goals) if i not in done and g.obj == name and g.final), None
        )

    def clear(target: str, moving: str, keep: frozenset[str] = frozenset()) -> None:
        """Move what rests on `target` (not the table) out of the way first — but not `keep`, the things the
        placement is said relative to ("between the lemon and the orange" on the plate: they stay on it)."""
        if by[target].category == "table":
            return
        for t in things:
            if (
                t.name in (cleared | keep | {moving, target})
                or t.fixed
                or not resting_on(t, by[target])
                or inside(t, by[target])
            ):
                continue
            if any(inside(t, by[o]) for o in by if o != target):
                continue
            src = pending(t.name)
            if src is not None:
                cleared.add(t.name)
                emit(src)  # it has a goal of its own: carry that out now
                continue
            if any(
                held_in(t, by[o]) and by[o].volume > t.volume for o in by if o != target
            ):  # the soup in its can
                continue
            if t.name in goal_objs:
                continue
            cleared.add(t.name)
            if table:
                steps.append(Step("pick", (t.name,), f"lift the {_w(t.name)} off the {_w(target)}"))
                steps.append(
                    Step(
                        "place_ontop",
                        (t.name, table),
                        f"put the {_w(t.name)} on the {_w(table)} clear of the {_w(target)}",
                        [f'on("{t.name}", "{table}")', f'off("{t.name}", "{target}")'],
                    )
                )

    def empty_then(name: str, after: Goal | None) -> None:
        """Pick `name`, pour out what the goals do not name, then put it where `after` says (or back)."""
        foreign = [t.name for t in things if inside(t, by[name]) and t.name not in goal_objs]
        emptied.add(name)
        poured_out.extend((f, name) for f in foreign)
        steps.append(Step("pick", (name,), f"grasp the {_w(name)}, keeping it upright"))
        steps.append(
            Step(
                "pour",
                (name, table),
                f"tip the {_w(name)} over an empty part of the table so the "
                f"{' and '.join(map(_w, foreign))} {'fall' if len(foreign) > 1 else 'falls'} out",
                [f'tipped_over("{name}", "{table}", -0.5)']
                + [f'not inside("{f}", "{name}")' for f in foreign],
            )
        )
        g = after or Goal(name, "ontop", table, upright=True)
        g.upright = True
        steps.append(
            Step(
                "place_ontop",
                (name, g.support),
                f"set the empty {_w(name)} upright on the {_w(g.support)}" + _where(g),
                predicates(g, by),
            )
        )

    def prepare(name: str, filling: Goal | None = None) -> None:
        """A container about to receive something (`filling`'s object): in place, upright, empty of what the
        goal does not name."""
        if name in emptied or name in placed:
            return
        i = pending(name)
        k = next((j for j, x in enumerate(goals) if x is filling), None)
        if i is not None and k is not None and i > k and goals[i].how == "pour":
            i = None  # "put the fork in the mug, then empty the mug": emptied after it is filled, as said
        if (
            i is not None and k is not None and i > k and filling.final
        ):  # said after it: say why it comes first
            goals[i].note = "; ".join(
                filter(
                    None,
                    (
                        goals[i].note,
                        f"before the {_w(filling.obj)} goes in: a container "
                        "is set in place before it is filled",
                    ),
                )
            )
        foreign = (
            [t.name for t in things if inside(t, by[name]) and t.name not in goal_objs]
            if deep(by[name])
            else []
        )
        if foreign and table:
            if i is not None:
                done.add(i)
            empty_then(name, goals[i] if i is not None else None)
            return
        emptied.add(name)
        if i is not None:
            goals[i].upright = goals[i].upright or container(by[name])
            emit(i)
        elif not by[name].upright and table:
            emit_goal(Goal(name, "ontop", _support_of(name, by, table), upright=True))

    def emit(i: int) -> None:
        if i in done:
            return
        done.add(i)
        g = goals[i]
        for rel, refs in g.spatial if g.final else ():  # relative to another moved object: it first
            for r in refs:
                j = pending(r)
                if rel == "at_initial" and r in placed:  # where r was: vacated by r's earlier step
                    continue
                if j is not None and r != g.obj:
                    emit(j)
        emit_goal(g)

    def emit_goal(g: Goal) -> None:
        placed.add(g.obj)
        if g.how == "held":  # "pick up the apple": the run ends with it in the hand
            clear(g.obj, g.obj)
            steps.append(Step("pick", (g.obj,), f"grasp the {_w(g.obj)} and keep holding it"))
            return
        if (
            g.how in ("inside", "pour")
            and container(by[g.support])
            or g.support in reading.upright_needed
        ):
            prepare(g.support, g)
        clear(g.support, g.obj, frozenset(r for _, refs in g.spatial for r in refs))
        clear(g.obj, g.obj)
        if g.how == "pour":
            what = " and ".join(map(_w, g.contents)) or "contents"
            falls = "fall" if len(g.contents) != 1 else "falls"
            if (
                not container(by[g.support]) and table
            ):  # emptying out onto the table, then standing it back up
                steps.append(Step("pick", (g.obj,), f"grasp the {_w(g.obj)}, keeping it upright"))
                steps.append(
                    Step(
                        "pour",
                        (g.obj, g.support),
                        f"tip the {_w(g.obj)} over an empty part of the "
                        f"{_w(g.support)} so the {what} {falls} out",
                        predicates(g, by, during=True),
                    )
                )
                steps.append(
                    Step(
                        "place_ontop",
                        (g.obj, table),
                        f"set the empty {_w(g.obj)} upright on the {_w(table)}",
                        [f'on("{g.obj}", "{table}")', f'upright("{g.obj}")'],
                    )
                )
                return
            steps.append(Step("pick", (g.obj,), f"grasp the {_w(g.obj)} upright so nothing spills"))
            steps.append(
                Step(
                    "pour",
                    (g.obj, g.support),
                    f"hold the {_w(g.obj)} over the {_w(g.support)} and tip it "
                    f"upside down so the {what} {falls} in",
                    predicates(g, by, during=True),
                )
            )
            if table:
                away = [s for s in by if resting_on(by[g.obj], by[s]) and s != table]
                steps.append(
                    Step(
                        "place_ontop",
                        (g.obj, table),
                        f"put the {_w(g.obj)} down on the table"
                        + (f" away from the {_w(away[0])}" if away else ""),
                        [f'on("{g.obj}", "{table}")'] + [f'off("{g.obj}", "{a}")' for a in away],
                    )
                )
            return
        moving = {
            x.obj for x in goals if x is not g
        }  # a relation to something the plan moves must be made anew
        poured = any(
            g.obj in x.contents for x in goals if x.how == "pour"
        )  # "… put the ball back in it": it came out
        if (
            g.final
            and _holds_now(g, by)
            and not poured
            and not any(r in moving for _, refs in g.spatial for r in refs)
        ):
            return
        steps.append(Step("pick", (g.obj,), f"grasp the {_w(g.obj)}"))
        where = "into" if g.how == "inside" else "on"
        room = _room_for(g, goals) if by[g.support].category != "table" else None
        steps.append(
            Step(
                f"place_{'inside' if g.how == 'inside' else 'ontop'}",
                (g.obj, g.support),
                f"put the {_w(g.obj)} {where} the {_w(g.support)}"
                + _where(g)
                + (f", leaving room {room[1]}" if room else "")
                + (f" ({g.note})" if g.note else ""),
                predicates(g, by)
                + ([f'part("{g.obj}", "{g.support}", "{room[0]}")'] if room else []),
            )
        )

    if held is not None and held in by and held not in goal_objs and table:
        # in the hand with no goal of its own (a failed step left it there): down clear of what the goals act on
        away = [
            o
            for o in dict.fromkeys([g.support for g in goals] + [g.obj for g in goals])
            if o in by and o not in (table, held)
        ]
        steps.append(
            Step(
                "place_ontop",
                (held, table),
                f"put the {_w(held)} in the hand down on the {_w(table)}"
                + (f" clear of the {' and the '.join(map(_w, away))}" if away else ""),
                [f'on("{held}", "{table}")'] + [f'off("{held}", "{o}")' for o in away],
            )
        )
    for name in sorted(reading.upright_needed):
        if pending(name) is None and not by[name].upright:
            prepare(name)
        elif pending(name) is not None:
            goals[pending(name)].upright = True
    held_goals = [i for i, g in enumerate(goals) if g.obj == held] if held is not None else []
    # a support that is itself still to be moved ("the red block on the green one", the green one not
    # yet on the blue): the held object waits on the table, else the tower could not be built under it
    waits = [goals[i].support for i in held_goals if pending(goals[i].support) is not None]
    if held is not None and pending(held) is not None and waits and table:
        steps.append(
            Step(
                "place_ontop",
                (held, table),
                f"put the {_w(held)} in the hand down on the {_w(table)} for now: the "
                f"{_w(waits[0])} it goes on is moved first",
                [f'on("{held}", "{table}")'],
            )
        )
    elif held is not None and pending(held) is not None:
        # the object in the hand goes where it belongs first: each of its places in the order said (a
        # strawberry held at a replan goes to the pan, then the bowl, never its last place first)
        for i in held_goals:
            emit(i)
    for i, g in enumerate(goals):
        if (g.final or i not in done) and g.how != "held":
            emit(i)
    for i, g in enumerate(goals):  # what is to be held at the end is picked last
        if g.how == "held":
            emit(i)
    finals = [g for g in goals if g.final]
    checks, texts = [], []
    for g in finals:
        expr = predicates(g, by)
        if g.only:
            others = {
                x.support
                for x in goals
                if x.obj == g.obj and x.support != g.support and x.how == "inside"
            }
            expr += [f'not inside("{g.obj}", "{o}")' for o in sorted(others)]
        checks.append(expr)
        texts.append(_meaning(g))
    for name in sorted(reading.upright_needed):
        if not any(g.obj == name for g in finals):
            checks.append([f'upright("{name}")'])
            texts.append(f"the {_w(name)} stands upright")
    for what, box in poured_out:  # tipped out to make room: not back in at the end
        checks.append([f'not inside("{what}", "{box}")'])
        texts.append(f"the {_w(what)} stays out of the {_w(box)}")
    deciding = list(
        dict.fromkeys(
            [g.obj for g in goals]
            + [c for g in goals for c in g.contents]
            + [w for w, _ in poured_out]
            + [g.support for g in finals if g.support]
            + [r for g in finals for _, refs in g.spatial for r in refs]
        )
    )
    meaning = "; ".join(_meaning(g) for g in finals) or "the containers stand upright"
    return Plan(
        steps,
        [" and ".join(c) if len(c) == 1 else "all([" + ", ".join(c) + "])" for c in checks],
        deciding,
        meaning,
        texts,
    )


HALF = {
    "half_left": "left_of",
    "half_right": "right_of",
    "half_back": "behind",
    "half_front": "in_front_of",
}
OPPOSITE = {
    "left_of": ("right_of", "on its left"),
    "right_of": ("left_of", "on its right"),
    "behind": ("in_front_of", "behind it"),
    "in_front_of": ("behind", "in front of it"),
}


def _room_for(g: Goal, goals: list[Goal]) -> tuple[str, str] | None:
    """When a later goal puts something on the same support (not the table) to one side of g's object ("the
    peach to the right of the apple", both on the mat): (the half of the support g's object goes to, where
    room is left)."""
    if g.how != "ontop":
        return None
    for other in goals:
        if other.final and other.support == g.support and other.obj != g.obj:
            for rel, refs in other.spatial:
                if rel in OPPOSITE and refs == (g.obj,):
                    return OPPOSITE[rel]
    return None


def _support_of(name: str, by: dict[str, Thing], table: str) -> str:
    return next((s for s in by if s != name and resting_on(by[name], by[s])), table)


def _where(g: Goal) -> str:
    parts = []
    for rel, refs in g.spatial:
        if rel in ("far_left", "far_right", "back", "front"):
            parts.append(f"at the {rel.replace('_', ' ')} of the table")
        elif rel in HALF:
            parts.append(f"on its {rel[5:].replace('back', 'far').replace('front', 'near')} half")
        elif rel == "upside_down":
            parts.append("upside down")
        elif rel == "middle":
            parts.append("in its middle")
        elif rel == "straight":
            parts.append("lying straight (along the robot's x)")
        elif rel.startswith("points:"):
            _, end, direction = rel.split(":")
            end = "front end" if end == "front" else end
            parts.append(f"its {end} pointing {DIRECTION_WORDS[direction]}")
        elif rel == "at_initial":  # its own start, or another object's ("where the lime is")
            parts.append(
                "where it started"
                if refs == (g.obj,)
                else f"where the {_w(refs[0])} was at the start"
            )
        else:
            parts.append(f"{V.RELATION_WORDS[rel]} the {' and the '.join(map(_w, refs))}")
    if g.upright:
        parts.append("standing upright, opening up")
    return (", " + ", ".join(parts)) if parts else ""


def _meaning(g: Goal) -> str:
    if g.how == "pour" and g.upright:
        return f"the {' and '.join(map(_w, g.contents)) or 'contents'} poured out of the {_w(g.obj)}, which stands upright"
    if g.how == "pour":
        return f"the {' and '.join(map(_w, g.contents)) or 'contents'} poured from the {_w(g.obj)} into the {_w(g.support)}"
    if g.how == "held":
        return f"the {_w(g.obj)} is held in the gripper"
    rel = "in" if g.how == "inside" else "on"
    text = f"the {_w(g.obj)} is {'only ' if g.only else ''}{rel} the {_w(g.support)}{_where(g)}"
    return text


def code(plan: Plan, wanted: list[tuple[int, str, str]]) -> str:
    """The python block: the prelude, goal_check<i> per goal, action_check<i> per (index, op, description)."""
    calls = " ".join(plan.goal_checks + [c for s in plan.steps for c in s.check])
    body = [PRELUDE] + [text for name, text in EXTRA.items() if f"{name}(" in calls]
    for i, expr in enumerate(plan.goal_checks):
        said = (
            f"    # {plan.goal_texts[i]}\n"
            if i < len(plan.goal_texts) and len(plan.goal_checks) > 1
            else ""
        )
        body.append(f"def goal_check{i}():\n{said}    return {expr}\n")
    used: set[int] = set()
    for idx, op, desc in wanted:
        k = next(
            (
                j
                for j, s in enumerate(plan.steps)
                if j not in used and f"{s.op}({', '.join(s.args)})" == op and s.text == desc
            ),
            None,
        )
        if k is None:
            k = next(
                (
                    j
                    for j, s in enumerate(plan.steps)
                    if j not in used and f"{s.op}({', '.join(s.args)})" == op
                ),
                None,
            )
        checks = plan.steps[k].check if k is not None else []
        if k is not None:
            used.add(k)
        expr = (
            ("all([" + ", ".join(checks) + "])")
            if len(checks) > 1
            else (checks[0] if checks else "True")
        )
        body.append(f"def action_check{idx}():\n    return {expr}\n")
    return "```python\n" + "\n".join(body) + "```\n"


__all__ = ["Plan", "Step", "code", "make_plan", "predicates", "math"]
