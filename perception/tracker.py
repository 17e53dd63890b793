"""Object names that persist across rounds, and explicit handling of what the camera does not see.

Detector labels are stable names already. Objects the fallback named by colour are matched to the
previous round's by position and colour (Hungarian assignment, scipy), so a replanning round calls
them what the plan called them. An object seen before but not now is *kept* with its last state and
a flag (occluded, in the gripper, inside a container) — never silently dropped; an object a detector
labels but whose points are too few to measure, and that was never measured, is reported *missing*,
and so is a kept object whose place the depth image sees empty (`perception.vacancy`), until it is
seen again.

A kept object that was inside another one's box when it was last seen (the soup in its can, a ball
in a mug) moves with that container: its pose relative to the container then is carried to the
container's pose now. Left where it was last seen, a "phantom" soup would stand on the mat after
its can had been lifted off it, and every replan would plan for a soup that is not there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import linear_sum_assignment

from owl_bt.state import ObjectState, Pose, rotation_matrix
from perception.fit import euler

MATCH_DIST = (
    0.06  # m: an unlabelled object farther than this from its previous position is a new one
)
MATCH_COLOUR = 0.3  # rgb distance beyond which two observations are different things
MOUTH_DOWN = (
    0.17  # a container whose up axis points this far (cosine) below the horizon has emptied
)
FLOOR_SHARE = (
    0.1  # what rests in a container unseen is taken to stand on a floor this share of its height
)
FLOATING = (
    0.05  # m: a thing first seen this far above what is under it, held by nothing, is no object
)
SUNK = 0.04  # m: … or this far into the table (a thin thing fitted 20° off dips 3.6 cm at 21 cm)
AT_RELEASE = (
    0.03  # m: seen this near (across) where it was let go, it is taken to be as the hand set it
)
SLIDE_STEP = (
    0.01  # m: the grid across a container's opening on which what stands in it is looked for
)
TOP_SEEN = 0.03  # m: what slid is seen up to this near its own top above the rim
SLIDE_REACH = 0.08  # m: the farthest across a container's opening that a slid thing is looked for
DOWN_IN = 0.3  # share of a holder's height below its top that what stands in it reaches down
PLUMB = 0.008  # m: what slid upright is seen as far across low down as high up (a fork leaning 17°: 1.2 cm)
PLUMB_POINTS = 3  # readings each half of what slid must have
LOW_SEEN = 0.025  # m: what slid is seen down to this near the rim (a fork leaning on it from outside: 3.5 cm up)
PIECES = 0.08  # m: the farthest from the adopted thing that another new thing is a piece of it
ADOPT_REACH = 0.15  # m: a thing first seen this far (across the table) from where the hand let go is what it let go


@dataclass
class Tracked:
    """What the tracker hands back for a round: states by name; flags by name (plain words);
    kept: names carried over from an earlier round; missing: labelled but never measured, or gone
    from where they were kept (their place seen empty)."""

    states: dict[str, ObjectState] = field(default_factory=dict)
    flags: dict[str, list[str]] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


class Tracker:
    def __init__(self) -> None:
        self.round = 0
        self.known: dict[str, ObjectState] = {}
        self.last_seen: dict[str, int] = {}
        # unseen object → (its container, its pose in the container's frame when last seen together)
        self.inside: dict[str, tuple[str, np.ndarray]] = {}
        self.gone: dict[str, str] = {}  # kept object whose place was seen empty → why it is missing
        self.fell: dict[
            str, tuple[str, np.ndarray]
        ] = {}  # taken to have fallen out (unseen since): what `inside` had
        self.stuck: set[str] = (
            set()
        )  # seen not to have fallen out: inside until seen again, however it is turned
        self.found: set[str] = set()  # names last seen found without labels
        self.looks: dict[str, int] = {}  # rounds each object was seen in
        self.first_seen: dict[str, int] = {}  # the round each object was first seen in

    def update(
        self,
        seen: dict[str, ObjectState],
        unlabelled: set[str],
        unmeasured: list[str],
        held: str | None,
        flags: dict[str, list[str]],
        found: set[str] = frozenset(),
    ) -> Tracked:
        """Merge this round's objects (`seen`; `unlabelled` names came from the colour fallback) with
        what is known; `unmeasured`: labelled objects with too few points; `held`: the object in the
        gripper, if any (from the arm); `found`: names perception found without labels (from
        geometry and colour). A thing found without labels that appeared after the first round,
        was seen in one round only and is not seen now is forgotten, not kept: a piece of
        something else split off by the hand over it (a mug's rim seen between the fingers as a
        'water_bottle', then kept inside the mug for ever), not an object."""
        self.round += 1
        seen = self._rename(dict(seen), unlabelled)
        seen, found = self._same_kind_back(seen, set(found), held)
        for name in [n for n in self.known if n not in seen and self._one_off(n, held)]:
            self._forget(name)
        for name in self.known:  # gone from view now: was it inside something when last seen?
            if name not in seen and name not in self.inside:
                box = container_of(name, self.known)
                if box is not None:
                    rel = np.linalg.inv(_homogeneous(self.known[box].pose)) @ _homogeneous(
                        self.known[name].pose
                    )
                    self.inside[name] = (box, rel)
        out = Tracked(flags={n: list(flags.get(n, [])) for n in seen})
        for name, state in seen.items():
            self.inside.pop(name, None)
            self.gone.pop(name, None)
            self.fell.pop(name, None)
            self.stuck.discard(name)
            self.known[name] = state
            self.last_seen[name] = self.round
            self.looks[name] = self.looks.get(name, 0) + 1
            self.first_seen.setdefault(name, self.round)
            if name in found:
                self.found.add(name)
            else:
                self.found.discard(name)
            out.states[name] = state
        for name, state in self.known.items():
            if name in seen:
                continue
            why = (
                "in the gripper"
                if name == held
                else "seen by too few points"
                if name in unmeasured
                else "occluded"
            )
            out.states[name] = state
            out.kept.append(name)
            out.flags[name] = [f"not seen ({why}): kept from observation {self.last_seen[name]}"]
        out.missing = [n for n in unmeasured if n not in out.states]
        out.missing += [n for n in self.gone if n not in out.states and n not in out.missing]
        for name in self.gone:
            out.flags.setdefault(name, [self.gone[name]])
        self.carry(out)
        return out

    def absorb_at_hand(self, tracked: Tracked, held: str | None) -> list[str]:
        """Drop from `tracked`, and forget, each thing found without labels that was first seen in
        this round (not the first), is not held, and whose box overlaps the held object's box: part
        of the held object or the hand seen as a thing of its own (a held mug turned in the fingers,
        its points beyond where the hand's pose puts it fitted as a 'blue large object' hanging under
        it). Returns the names dropped; the held object is flagged with them."""
        if held is None or held not in tracked.states or self.round <= 1:
            return []
        dropped = []
        for name, state in list(tracked.states.items()):
            if (
                name == held
                or name not in self.found
                or self.first_seen.get(name) != self.round
                or state.fixed
            ):
                continue
            if _boxes_meet(state, tracked.states[held]):
                dropped.append(name)
                del tracked.states[name]
                tracked.flags.pop(name, None)
                self._forget(name)
        if dropped:
            tracked.flags.setdefault(held, []).append(
                f"taken as part of it, at the hand: {', '.join(dropped)}"
            )
        return dropped

    def adopt(
        self,
        name: str,
        tracked: Tracked,
        hand: tuple[float, ...],
        seen_at: dict[str, tuple[float, ...]],
    ) -> str | None:
        """`name` was let go of with the hand at `hand` ((x, y, z) m, world frame) and is not seen:
        the thing found without labels and first seen in this round (not the first) whose points'
        centre (`seen_at`, by name, world m) lies nearest the hand across the table, within
        ADOPT_REACH, is it, named otherwise (a fork standing in a mug named a 'milk_carton'). That
        thing's name is forgotten, and so is each other such new thing within half `name`'s length
        (at most PIECES) of it (more pieces of it). `name` stays where `let_go` set it when those
        points' centre lies within AT_RELEASE of it across the table, and lowered onto the same
        thing from there; else it is put over that centre and lowered until it rests
        (`rest_below`): it fell away. It stays
        kept, not seen: whether its place is seen empty is judged as for any kept object
        (`drop_vacant`; a fork leaning on a mug's rim, its points over the mug's box, is not taken
        to stand in the mug). Returns the name adopted, or None."""
        if self.round <= 1 or name not in tracked.states:
            return None
        new = [n for n in self._new_found(tracked, exclude=name) if n in seen_at]
        near = sorted((math.dist(seen_at[n][:2], hand[:2]), n) for n in new)
        if not near or not near[0][0] <= ADOPT_REACH:  # (a NaN distance is no match)
            return None
        taken = near[0][1]
        at = seen_at[taken]
        state = tracked.states[name]
        pieces = [taken] + [
            n
            for n in new
            if n != taken and math.dist(seen_at[n][:2], at[:2]) <= min(max(state.size) / 2, PIECES)
        ]
        for piece in pieces:
            del tracked.states[piece]
            tracked.flags.pop(piece, None)
            self._forget(piece)
        above = max(state.pose.z, at[2]) + max(state.size)
        pose, where = rest_below(
            replace(state, pose=replace(state.pose, x=float(at[0]), y=float(at[1]), z=above)),
            tracked.states,
            skip=(name,),
        )
        here = np.asarray(state.pose.position[:2])
        _, at_hand = rest_below(
            replace(state, pose=replace(state.pose, z=above)), tracked.states, skip=(name,)
        )
        inside = where == at_hand and where.startswith("in ")
        if not inside and math.dist(at[:2], here) > AT_RELEASE:
            state = replace(state, pose=pose)  # it fell away from where the hand let it go
        tracked.states[name] = state
        self.known[name] = state
        tracked.flags[name] = [
            f"not seen by its name: a new {'/'.join(pieces)} near where the hand let it go is "
            f"taken to be it; resting {where}"
        ]
        return taken

    def drop_impossible(self, tracked: Tracked, held: str | None = None) -> list[str]:
        """Drop from `tracked`, and forget, each thing found without labels and first seen in this
        round (not the first), not held, that cannot be where it is fitted: its bottom more than
        FLOATING above what lies under it (nothing rests in the air: a piece of the arm the robot's
        mask missed, a 'kitchen scale' at the hand's height after the hand let go), or more than
        SUNK below the top of a fixed thing under it (the table: a kind fitted to points it does
        not match, a 'kitchen scale' tilted 50° into the table top, which made the end state
        'not sound'). Returns the names dropped."""
        if self.round <= 1:
            return []
        dropped = []
        for name in self._new_found(tracked, exclude=held):
            state = tracked.states[name]
            pose, _ = rest_below(state, tracked.states)
            if state.pose.z - pose.z > FLOATING or _sunk(state, tracked.states) > SUNK:
                dropped.append(name)
                del tracked.states[name]
                tracked.flags.pop(name, None)
                self._forget(name)
        return dropped

    def absorb_in_containers(
        self, tracked: Tracked, containers: set[str], held: str | None = None
    ) -> list[str]:
        """Drop from `tracked`, and forget, each thing found without labels that was first seen in
        this round (not the first) and whose centre lies in the box of a container known before
        this round (`containers`: names of hollow kinds): a piece of the container or of what stands
        in it (a mug with a fork in it seen as a 'grey medium object' and a 'fork_2' inside it). What
        the hand let go of is adopted first (`adopt`). Returns the names dropped; each container is
        flagged with its own."""
        if self.round <= 1:
            return []
        boxes = {
            c: tracked.states[c].aabb()
            for c in containers
            if c in tracked.states and c != held and self.first_seen.get(c, self.round) < self.round
        }
        dropped = []
        for name in self._new_found(tracked, exclude=held):
            x = np.asarray(tracked.states[name].pose.position)
            for box, (lo, hi) in boxes.items():
                if not (np.all(np.asarray(lo) < x) and np.all(x < np.asarray(hi))):
                    continue
                dropped.append(name)
                del tracked.states[name]
                tracked.flags.pop(name, None)
                self._forget(name)
                tracked.flags.setdefault(box, []).append(
                    f"taken as part of it or of what is in it: {name}"
                )
                break
        return dropped

    def _new_found(self, tracked: Tracked, exclude: str | None = None) -> list[str]:
        """Things in `tracked` found without labels and first seen in this round, that stand (not
        fixed, not a flat region), but `exclude`."""
        return [
            n
            for n, s in tracked.states.items()
            if n != exclude
            and n in self.found
            and self.first_seen.get(n) == self.round
            and not s.fixed
            and s.shape != "region"
        ]

    def _one_off(self, name: str, held: str | None) -> bool:
        """Whether `name`, unseen this round, is a one-off sighting to forget (see `update`)."""
        return (
            name in self.found
            and name != held
            and self.looks.get(name, 0) == 1
            and self.first_seen.get(name, 1) > 1
        )

    def _forget(self, name: str) -> None:
        for table in (self.known, self.last_seen, self.inside, self.gone, self.fell, self.looks):
            table.pop(name, None)
        self.first_seen.pop(name, None)
        self.found.discard(name)
        self.stuck.discard(name)

    def drop_vacant(self, tracked: Tracked, frame, skip: set[str] = frozenset()) -> list[str]:
        """Drop from `tracked` each kept object whose place `frame` (an RGBDFrame) sees empty
        (`perception.vacancy.seen_empty`): it is gone (knocked off the table, say), not hidden. It is
        reported missing, with the reason, until it is seen again. What stands in a container and
        rises above its rim is judged by the part above the rim (`above_rim`): the walls hide the
        rest, so a fork taken to stand in a mug, that fell out, was kept; and seen above the rim
        elsewhere across the container's opening, it slid there (`slid_in`). Not judged: names in
        `skip` (held, just let go), objects carried unseen inside a container, fixed ones. Returns
        the names dropped."""
        from perception.vacancy import seen_empty

        dropped = []
        for name in list(tracked.kept):
            state = tracked.states[name]
            if name in skip or name in self.inside or state.fixed:
                continue
            if not seen_empty(above_rim(state, tracked.states), frame):
                continue
            shift = slid_in(state, tracked.states, frame)
            if shift is not None:  # it slid across the opening of what it stands in
                pose = replace(state.pose, x=state.pose.x + shift[0], y=state.pose.y + shift[1])
                tracked.states[name] = self.known[name] = replace(state, pose=pose)
                tracked.flags.setdefault(name, []).append(
                    f"seen {math.hypot(*shift) * 100:.1f} cm across from where it was taken to stand"
                )
                continue
            x, y = state.pose.position[:2]
            note = (
                f"not seen: its place at ({x:.2f}, {y:.2f}) is seen empty; gone since observation "
                f"{self.last_seen.get(name, 0)}"
            )
            del tracked.states[name]
            tracked.kept.remove(name)
            tracked.flags[name] = [note]
            tracked.missing.append(name)
            self.known.pop(name, None)
            self.gone[name] = note
            dropped.append(name)
        return dropped

    def carry(self, tracked: Tracked, held: str | None = None) -> None:
        """Put each kept object that was inside a container where that container's pose in
        `tracked` now takes it (call again after the container's own pose was changed, e.g. placed
        in the hand, whose name is `held`: that pose is then what is known of it), flagged so; a
        container no longer known leaves it where it was. A container now turned mouth-down holds
        nothing loose: what was in it fell out, and until it is seen again it is taken to lie
        straight below the mouth (see `_fallen`)."""
        if held is not None and held in tracked.states:
            # (unseen once let go, an apple came back as a phantom where it had been picked up)
            self.known[held] = tracked.states[held]
        for name, (box, rel) in list(self.inside.items()):
            if name not in tracked.kept or box not in tracked.states:
                continue
            state, holder = tracked.states[name], tracked.states[box]
            m = _homogeneous(holder.pose) @ rel
            if _homogeneous(holder.pose)[2, 2] < -MOUTH_DOWN and name not in self.stuck:
                pose, below = _fallen(state, holder, tracked.states)
                self.fell[name] = self.inside.pop(name)
                note = f"not seen: fell out of {box} when it was turned over; taken to lie {below} below its mouth"
            else:
                pose = Pose(*(float(v) for v in m[:3, 3]), *euler(m[:3, :3]))
                note = f"not seen (inside {box}): moved with it, kept from observation {self.last_seen[name]}"
            tracked.states[name] = replace(state, pose=pose)
            self.known[name] = tracked.states[name]
            tracked.flags[name] = [
                f for f in tracked.flags.get(name, []) if not f.startswith("not seen")
            ] + [note]

    def still_inside(self, name: str, tracked: Tracked) -> None:
        """`name`, taken to have fallen out of its container (`carry`), where the camera now sees past the
        spot it would lie at: it stayed in (soup caught in a tipped can is not in the bowl, and a
        goal must not be declared met with the bowl in plain view and empty). It moves with the
        container again, however that is turned, until it is seen."""
        box, rel = self.fell.pop(name)
        if box not in tracked.states:
            return
        self.inside[name] = (box, rel)
        self.stuck.add(name)
        m = _homogeneous(tracked.states[box].pose) @ rel
        tracked.states[name] = replace(
            tracked.states[name], pose=Pose(*(float(v) for v in m[:3, 3]), *euler(m[:3, :3]))
        )
        self.known[name] = tracked.states[name]
        tracked.flags[name] = [
            f for f in tracked.flags.get(name, []) if not f.startswith("not seen")
        ] + [f"not seen where it would have fallen out of {box}: taken to be still inside it"]

    def let_go(self, name: str, tracked: Tracked) -> None:
        """`name`, let go of since the last look and not seen now, placed in `tracked` where the
        hand would hold it now: lowered from there until it rests (`rest_below`), flagged so; a
        pose that reaches into a fixed thing under it (the table) is first raised out of it (a
        potted meat can laid on its side, its centre from the camera's view of it held, was kept
        3.8 cm into the table and the end state judged "not sound"). (The
        hand backing up from an apple it set on the mat hid it from the camera, and it was kept
        where it had been picked up, 24 cm off: the place was judged failed.)"""
        state = tracked.states[name]
        depth = _sunk(state, tracked.states)
        if depth > 0:  # (placed by the hand partly inside the table: it rests on it, not in it)
            state = replace(state, pose=replace(state.pose, z=state.pose.z + depth))
        pose, where = rest_below(state, tracked.states)
        tracked.states[name] = replace(state, pose=pose)
        self.known[name] = tracked.states[name]
        note = f"not seen: let go of since the last look; taken to rest {where} below the hand"
        tracked.flags[name] = [
            f
            for f in tracked.flags.get(name, [])
            if not f.startswith(("not seen", "in the gripper"))
        ]
        tracked.flags[name].append(note)

    def _same_kind_back(
        self, seen: dict[str, ObjectState], found: set[str], held: str | None = None
    ) -> tuple[dict[str, ObjectState], set[str]]:
        """A thing found without labels under a name not known before, of the kind of a known
        object not seen now, within MATCH_DIST of where that object was: that object, named so
        again (the held orange seen as 'mustard_bottle' took the real bottle's name, which then
        came back as 'mustard_bottle_2', and 'the condiment' became ambiguous). The nearest pairs
        first; each known object takes one; not the held object, nor one taken to have been poured
        out or carried unseen in a container (the pour's own checks judge those). Returns the
        things seen and the names found without labels, both under the names given back."""
        if self.round <= 1:
            return seen, found
        pairs = []
        for new, state in seen.items():
            if new in self.known or new not in found or not state.kind or state.fixed:
                continue
            for old, known in self.known.items():
                if old in seen or old == held or old in self.fell or old in self.inside:
                    continue  # (what is held, or poured or carried unseen, is judged otherwise)
                if known.kind != state.kind or known.fixed:
                    continue
                d = math.dist(state.pose.position, known.pose.position)
                if d < MATCH_DIST:
                    pairs.append((d, new, old))
        out = dict(seen)
        taken: set[str] = set()
        for _, new, old in sorted(pairs):
            if new in out and old not in taken and old not in out:
                out[old] = _renamed(out.pop(new), old)
                found = (found - {new}) | {old}
                taken.add(old)
        return out, found

    def _rename(self, seen: dict[str, ObjectState], unlabelled: set[str]) -> dict[str, ObjectState]:
        """Give colour-named objects the names of the previous round's unlabelled objects they match."""
        new = [n for n in seen if n in unlabelled]
        old = [
            n for n, s in self.known.items() if not s.kind and (n not in seen or n in unlabelled)
        ]
        if not new or not old:
            return seen
        cost = np.full((len(new), len(old)), 1e3)
        for i, a in enumerate(new):
            for j, b in enumerate(old):
                sa, sb = seen[a], self.known[b]
                d = math.dist(sa.pose.position, sb.pose.position)
                c = math.dist(sa.rgba[:3], sb.rgba[:3])
                if d < MATCH_DIST and c < MATCH_COLOUR:
                    cost[i, j] = d / MATCH_DIST + c / MATCH_COLOUR
        rows, cols = linear_sum_assignment(cost)
        out = {n: s for n, s in seen.items() if n not in new}
        renamed = {}
        for i, j in zip(rows, cols, strict=True):
            if cost[i, j] < 1e3:
                renamed[new[i]] = old[j]
        for n in new:
            target = renamed.get(n, n)
            if target in out:  # a fresh name that clashes with a kept one: keep it distinct
                target = n
            out[target] = seen[n] if target == n else _renamed(seen[n], target)
        return out


def _renamed(state: ObjectState, name: str) -> ObjectState:
    return replace(state, name=name)


def container_of(name: str, states: dict[str, ObjectState]) -> str | None:
    """The movable object whose box holds `name`'s centre (between its bottom and top) and is
    larger than `name` every way across (a can round its soup, a mug round a ball), the smallest
    such; None when there is none (resting on a mat or the table is not being inside)."""
    obj = states[name]
    x, y, z = obj.pose.position
    found = []
    for other, st in states.items():
        if other == name or st.fixed or st.shape == "region":
            continue
        lo, hi = st.aabb()
        if (
            lo[0] < x < hi[0]
            and lo[1] < y < hi[1]
            and lo[2] < z < hi[2]
            and min(st.size[:2]) > max(obj.size[:2])
        ):
            found.append((st.size[0] * st.size[1] * st.size[2], other))
    return min(found)[1] if found else None


def standing_in(obj: ObjectState, states: dict[str, ObjectState]) -> ObjectState | None:
    """The movable thing `obj` stands in and rises more than 1 cm above: its centre over that
    thing's box, its bottom within it and at least DOWN_IN of that thing's height (and 2 cm) below
    its top (down in a mug, not resting on a plate or sunk a little into one); the one with the
    highest top, or None."""
    lo, hi = obj.aabb()
    x, y = obj.pose.x, obj.pose.y
    best = None
    for other, st in states.items():
        if other == obj.name or st.fixed or st.shape == "region":
            continue
        slo, shi = st.aabb()
        deep = shi[2] - lo[2] >= max(0.02, DOWN_IN * (shi[2] - slo[2]))
        inside = slo[0] < x < shi[0] and slo[1] < y < shi[1] and slo[2] - 0.01 <= lo[2]
        if inside and deep and hi[2] > shi[2] + 0.01:
            if best is None or shi[2] > best.aabb()[1][2]:
                best = st
    return best


def _boxes_meet(a: ObjectState, b: ObjectState) -> bool:
    """Whether the world boxes of `a` and `b` overlap or touch."""
    alo, ahi = a.aabb()
    blo, bhi = b.aabb()
    return all(alo[i] <= bhi[i] and blo[i] <= ahi[i] for i in range(3))


def above_rim(obj: ObjectState, states: dict[str, ObjectState]) -> ObjectState:
    """`obj` when it stands in nothing; when it stands in a movable thing (`standing_in`), the part
    of its world box above that thing's top (an upright box, world frame): what a camera can see of
    a fork standing in a mug."""
    holder = standing_in(obj, states)
    if holder is None:
        return obj
    lo, hi = obj.aabb()
    rim = holder.aabb()[1][2]
    size = (hi[0] - lo[0], hi[1] - lo[1], hi[2] - rim)
    pose = Pose(obj.pose.x, obj.pose.y, (hi[2] + rim) / 2, 0.0, 0.0, 0.0)
    return replace(obj, pose=pose, size=size, shape="box")


def slid_in(obj: ObjectState, states: dict[str, ObjectState], frame) -> tuple[float, float] | None:
    """Where across the opening of the container `obj` stands in (`standing_in`) the part of it above
    the rim is seen filled (`perception.vacancy.filled_share`), when not where `obj` is: the
    (dx, dy) shift (m, world frame) to the middle of what is seen there, at the spot of a
    SLIDE_STEP grid within the opening (less half its width) seen the most filled and seen up to
    within TOP_SEEN of its own top (not the tip of a thing leaning on the rim), and plumb
    (`_plumb`: seen down to near the rim, as far across low down as high up; not a thing leaning
    on the rim from outside, whose upper part alone reaches over the opening); None when it stands
    in nothing or is seen nowhere there. (A knife let go 2 cm off a mug's middle slid towards it:
    its place, 2.7 cm off, was seen empty, and it was taken as gone.)"""
    from perception.vacancy import FILLED_SHARE, MIN_RAYS, filled_share

    holder = standing_in(obj, states)
    if holder is None:
        return None
    part = above_rim(obj, states)
    reach = min(max(min(holder.size[:2]) / 2 - max(part.size[:2]) / 2, 0.0), SLIDE_REACH)
    others = [  # what else stands in it: its spot is that thing's, not this one's
        above_rim(st, states)
        for n, st in states.items()
        if n not in (obj.name, holder.name) and standing_in(st, states) is holder
    ]
    best = None
    steps = np.arange(-reach, reach + 1e-9, SLIDE_STEP)
    for dx in steps:
        for dy in steps:
            x, y = holder.pose.x + float(dx), holder.pose.y + float(dy)
            if math.hypot(dx, dy) > reach + 1e-9:
                continue
            spot = replace(part, pose=replace(part.pose, x=x, y=y))
            if any(_boxes_meet(spot, other) for other in others):
                continue
            share, read, pts = filled_share(spot, frame)
            if read < MIN_RAYS or share < FILLED_SHARE:
                continue
            if pts[:, 2].max() < spot.aabb()[1][2] - TOP_SEEN:
                continue  # (seen filled only low down: the tip of a thing leaning on the rim)
            if not _plumb(pts, spot):
                continue  # (slanting: a thing leaning on the rim from outside)
            if best is None or share > best[0]:
                best = (share, pts.mean(axis=0))
    if best is None:
        return None
    return float(best[1][0]) - obj.pose.x, float(best[1][1]) - obj.pose.y


def _plumb(pts: np.ndarray, spot: ObjectState) -> bool:
    """Do the readings `pts` ((k, 3) world, m) in `spot`'s box stand plumb in it: seen down to
    within LOW_SEEN of its bottom, at least PLUMB_POINTS of them below and above its middle, and
    the middles of the two halves across the table within PLUMB of each other?"""
    bottom, mid = spot.aabb()[0][2], spot.pose.z
    if pts[:, 2].min() > bottom + LOW_SEEN:
        return False
    low, high = pts[pts[:, 2] < mid], pts[pts[:, 2] >= mid]
    if len(low) < PLUMB_POINTS or len(high) < PLUMB_POINTS:
        return False
    return math.dist(low[:, :2].mean(axis=0), high[:, :2].mean(axis=0)) <= PLUMB


def _sunk(obj: ObjectState, states: dict[str, ObjectState]) -> float:
    """How far (m) `obj`'s box reaches below the top of the highest fixed thing under its centre
    (the table), 0 when it does not or nothing fixed is under it."""
    lo, _ = obj.aabb()
    deepest = 0.0
    for other, st in states.items():
        if other == obj.name or not st.fixed:
            continue
        slo, shi = st.aabb()
        if slo[0] <= obj.pose.x <= shi[0] and slo[1] <= obj.pose.y <= shi[1]:
            deepest = max(deepest, shi[2] - lo[2])
    return deepest


def _homogeneous(pose: Pose) -> np.ndarray:
    """4 × 4 transform of a pose (world frame, m)."""
    m = np.eye(4)
    m[:3, :3] = np.asarray(rotation_matrix(*pose.euler))
    m[:3, 3] = pose.position
    return m


def _fallen(
    obj: ObjectState, container: ObjectState, states: dict[str, ObjectState]
) -> tuple[Pose, str]:
    """Where `obj`, poured out of `container` (turned mouth-down), is taken to be while unseen
    (the container held over a bowl hides what fell into it): straight below the middle of the
    mouth, at rest there (`rest_below`). Returns (pose, 'in <name>' | 'on <name>')."""
    m = _homogeneous(container.pose)
    mouth = m[:3, 3] + m[:3, 2] * container.size[2] / 2
    at_mouth = replace(
        obj, pose=replace(obj.pose, x=float(mouth[0]), y=float(mouth[1]), z=float(mouth[2]))
    )
    return rest_below(at_mouth, states, skip=(container.name,))


def rest_below(
    obj: ObjectState, states: dict[str, ObjectState], skip: tuple[str, ...] = ()
) -> tuple[Pose, str]:
    """`obj` lowered straight down from where it is until it rests on the highest thing under its
    centre (not in `skip`): *in* it when that thing is movable, wider than obj's box every way
    across and at least 0.4 of its height (a bowl, a mug: its bottom then FLOOR_SHARE of that
    thing's height above its base, floors being thin), else *on* its top (the table, a mat, a
    plate). Returns (pose, 'in <name>' | 'on <name>'), or (its pose, 'where it was') when nothing
    is below it."""
    lo, hi = obj.aabb()
    x, y = obj.pose.x, obj.pose.y
    height = hi[2] - lo[2]
    best: tuple[float, str, float] | None = None
    for other, st in states.items():
        if other == obj.name or other in skip:
            continue
        slo, shi = st.aabb()
        if not (slo[0] <= x <= shi[0] and slo[1] <= y <= shi[1]) or shi[2] > lo[2] + 0.02:
            continue
        holds = (
            not st.fixed
            and min(shi[0] - slo[0], shi[1] - slo[1]) > max(hi[0] - lo[0], hi[1] - lo[1])
            and shi[2] - slo[2] >= 0.4 * height
        )
        bottom, where = (
            (slo[2] + FLOOR_SHARE * (shi[2] - slo[2]), f"in {other}")
            if holds
            else (shi[2], f"on {other}")
        )
        if best is None or shi[2] > best[0]:
            best = (shi[2], where, bottom)
    if best is None:
        return obj.pose, "where it was"
    return replace(obj.pose, z=obj.pose.z - lo[2] + best[2]), best[1]
