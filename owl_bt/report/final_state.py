"""Where each object ended a run, for the report's final-state table: in or on what, how far it moved,
whether it still stands upright, and flags for what a person would want pointed out (tipped over, fell
off the table, still in the gripper). Judged with the offline grounder's own scene geometry
(`owl_bt.language.scene_view`), on the simulator's state at the end of the run."""

from __future__ import annotations

import math

from owl_bt.language.object_list import describe_objects
from owl_bt.language.scene_view import Thing, inside, read_objects, resting_on
from owl_bt.state import WorldState

OFF_TABLE = 0.05  # m below the table top: an object's bottom this low has fallen off it
UPSIDE_DOWN_DEG = 150  # its own up axis this far from the vertical: upside down, not tipped over
CUBE_FACE_DEG = 10  # a cube within this of resting on one of its faces stands (90° is another face)


def final_rows(start: WorldState, end: WorldState, holding: str | None = None) -> list[dict]:
    """One row per movable object of `end`, in its order: {"object", "where" (words: "in the bowl", "on the
    white mat", "on the table", "in the gripper", "off the table"), "moved_cm" (its centre's distance from
    where it was in `start`, cm, world frame; None when it is not in `start`), "tilt_deg" (its own up axis
    from the vertical, degrees; None for a ball or a fruit, whose turn does not matter), "flags" (list of
    words), "at" and "was" (its centre at the end and in `start`, m, world frame; "was" None when it is
    not in `start`), "rpy" (its roll, pitch, yaw at the end, rad; None when not seen)}. `holding`:
    the object the gripper still holds, if any."""
    things = {t.name: t for t in read_objects(describe_objects(end))}
    before = {t.name: t for t in read_objects(describe_objects(start))}
    table = next((t for t in things.values() if t.category == "table"), None)
    rows = []
    for t in things.values():
        if t.fixed:
            continue
        flags = []
        where = _where(t, things, table)
        if t.name == holding:
            where = "in the gripper"
            flags.append("still held")
        elif where == "off the table":
            flags.append("fell off the table")
        tilt = _tilt(t)
        was = before.get(t.name)
        if (
            tilt is not None
            and was is not None
            and was.upright
            and not t.upright
            and t.name != holding
            and not where.startswith("in the ")
        ):  # (a fork stood up in a mug is put there, not tipped over)
            if tilt >= UPSIDE_DOWN_DEG:
                flags.append("upside down")
            elif not (
                _cube(t) and _off_face(tilt) <= CUBE_FACE_DEG
            ):  # a cube on another face stands
                flags.append("tipped over")
        moved = (
            round(100 * math.dist(t.pose[:3], was.pose[:3]), 1)
            if was is not None and was.pose
            else None
        )
        rows.append(
            {
                "object": t.name,
                "where": where,
                "moved_cm": moved,
                "tilt_deg": tilt,
                "flags": flags,
                "at": [round(v, 3) for v in t.pose[:3]] if t.pose else None,
                "rpy": [round(v, 4) for v in t.pose[3:6]] if len(t.pose) >= 6 else None,
                "was": [round(v, 3) for v in was.pose[:3]]
                if was is not None and was.pose
                else None,
            }
        )
    return rows


def _where(t: Thing, things: dict[str, Thing], table: Thing | None) -> str:
    holders = [b for b in things.values() if inside(t, b)]
    if holders:
        return f"in the {_w(min(holders, key=lambda b: b.volume).name)}"
    under = [b for b in things.values() if b.category != "table" and resting_on(t, b)]
    if under:
        return f"on the {_w(max(under, key=lambda b: b.hi[2]).name)}"
    if table is not None and table.hi and t.lo and t.lo[2] < table.hi[2] - OFF_TABLE:
        return "off the table"
    if table is not None and table.hi and t.lo and t.lo[2] > table.hi[2] + 0.03:
        return "above the table, on nothing listed (leaning or carried)"
    return "on the table"


def _tilt(t: Thing) -> float | None:
    if t.shape == "sphere" or len(t.pose) < 5:
        return None
    up = max(-1.0, min(1.0, math.cos(t.pose[3]) * math.cos(t.pose[4])))
    return round(math.degrees(math.acos(up)))


def _cube(t: Thing) -> bool:
    """A box whose sides are within 15 % of each other (a block): it stands on any face."""
    return t.shape == "box" and len(t.size) == 3 and min(t.size) >= 0.85 * max(t.size)


def _off_face(tilt: float) -> float:
    """Degrees from the nearest quarter turn."""
    return min(tilt % 90, 90 - tilt % 90)


def _w(name: str) -> str:
    return name.replace("_", " ")


def markdown(rows: list[dict], source: str) -> list[str]:
    """The report's lines for `rows` (see `final_rows`): a table of object, where, moved and tilt, with a
    fifth column "look at" (the row's flags: tipped over, fell off the table, still held) only when some
    row is flagged; then one "Look at:" line per flagged object."""
    if not rows:
        return []
    flagged = any(r.get("flags") for r in rows)
    md = [
        f"Where everything ended ({source}; moved: how far its centre went; tilt: its own up axis from the "
        "vertical, for things whose turn matters):",
        "",
        "| object | where | moved | tilt |" + (" look at |" if flagged else ""),
        "|---|---|---|---|" + ("---|" if flagged else ""),
    ]
    for r in rows:
        moved = "—" if r.get("moved_cm") is None else f"{r['moved_cm']} cm"
        tilt = "—" if r.get("tilt_deg") is None else f"{r['tilt_deg']}°"
        row = f"| {r.get('object')} | {r.get('where')} | {moved} | {tilt} |"
        if flagged:
            row += f" {', '.join(r.get('flags') or []) or '—'} |"
        md.append(row)
    notes = [
        f"- the {_w(str(r.get('object')))}: {', '.join(r['flags'])}" for r in rows if r.get("flags")
    ]
    return md + [""] + (["Look at:", *notes, ""] if notes else [])
