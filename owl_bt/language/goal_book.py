"""The goal book of one reading: how a goal said by a clause joins the goals said before it.

A goal (`owl_bt.language.goals.Goal`) says where one object must end: on or in a support, with
spatial relations, upright, only there. A clause can add a new goal, a constraint to one already
there ("… on the mat, the peach right of the apple"), the same placement said again, or a later
placement of the same object, which makes the earlier one a step on the way (`final=False`). The
book also resolves a bare direction ("to the right": of the table, or that half of a surface),
picks the default support (the table, or the surface two "between" references end on), refuses
what cannot be a goal (an object on itself, "in" something that is no container, two things held)
and, when every clause is read, settles which goals are final.
"""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.discourse import ClauseFrame, Discourse
from owl_bt.language.goals import ADVICE, Goal, ImpossibleGoal
from owl_bt.language.mentions import SceneAliases
from owl_bt.language.scene_view import Thing, container


def flat(t: Thing) -> bool:
    """A surface one puts things on, not into (a plate, a mat, a region, the table): no container."""
    return not container(t) and (t.fixed or t.category in V.ONTOLOGY["surface"])


class GoalBook:
    """The goals of one reading (`said.goals`), grown clause by clause.

    Reads `said.part_said`, `said.chosen` (notes on why an object was chosen) and `said.provisional`
    (objects taken out with no place yet, whose next placement replaces that goal), and
    `frame.goals_before` (the first goal of the clause being read).
    """

    def __init__(self, scene: SceneAliases, said: Discourse, frame: ClauseFrame) -> None:
        self.scene = scene
        self.said = said
        self.frame = frame

    def add(
        self,
        name: str,
        how: str | None,
        support: str | None,
        spatial: list,
        upright: bool,
        only: bool,
        state: bool,
    ) -> None:
        """Say that object `name` ends `how` ('inside' | 'ontop' | None: as already said, or on)
        `support` (None: as already said, or the default support) with `spatial` relations
        [(relation, (reference names…))] — a bare direction ("bare:far_right") is of the table or
        that half of the support. `state`: a constraint on its goal already there when there is one
        ("make sure …"). Raises GroundingError for the object on, in or beside itself, or for a
        direction inside a container (not representable), ImpossibleGoal for "in" what is no
        container."""
        if support == name:
            raise GroundingError(
                f"cannot put the {name.replace('_', ' ')} {'in' if how == 'inside' else 'on'} itself"
            )
        # ("near the lemon" of the lemon itself means nothing; "far from" it cannot be planned;
        # "leave it where it is" is its own place)
        for rel, refs in spatial:
            if name in refs and rel != "at_initial":
                raise GroundingError(
                    f"cannot put the {_w(name)} {V.RELATION_WORDS.get(rel, rel.replace('_', ' '))} itself; "
                    "name another object"
                )
        goals = self.said.goals
        existing = [g for g in goals if g.obj == name and g.how != "pour"]
        here = [g for g in goals[self.frame.goals_before :] if g.obj == name and g.how != "pour"]
        if here and how is None and support is None:
            state, existing = True, here  # "… on the mat, (with) the peach right of the apple"
        bare = any(x[0].startswith("bare:") for x in spatial)
        if bare and existing and how is None and support is None:
            state = True  # "the fruit on the mat (the peach to the right)"
        if bare:
            spatial = self._sided(name, how, support, spatial, existing if state else [])
        if state and existing and (support is None or existing[-1].support == support):
            g = existing[-1]  # a constraint on a goal already there
            g.spatial += [s for s in spatial if s not in g.spatial]
            g.upright |= upright
            g.only |= only
            return
        if support is None:
            support = self.default_support(name, spatial)
        target = self.scene.things[support]
        if how == "inside" and not container(target) and not flat(target):
            raise ImpossibleGoal(  # "put the hammer in the drill": nothing goes in a drill
                f"the {_w(support)} is not a container: nothing can be put in it; say 'on' or "
                f"'next to' the {_w(support)}"
            )
        if existing and (existing[-1].how, existing[-1].support, existing[-1].spatial) == (
            how or "ontop",
            support,
            list(spatial),
        ):
            existing[
                -1
            ].upright |= upright  # the same placement said again ("…, then put it there")
            return
        if name in self.said.provisional:
            # "take the ball out and put it next to the mustard": one placement
            self.said.provisional.discard(name)
            for g in existing:
                self.frame.goals_before -= goals.index(g) < self.frame.goals_before
                goals.remove(g)
            existing = []
        for g in existing:
            g.final = (
                False  # a later placement of the same object: the earlier one is a step on the way
            )
        note = self.said.chosen.get(name, "")
        goals.append(
            Goal(name, how or "ontop", support, list(spatial), upright, True, only, note=note)
        )

    def withdraw(self, name: str) -> None:
        """Take back the goals said so far of `name` ("put the fruit in the bowl but keep the lime
        on the table": the lime, swept up by "the fruit", is to stay)."""
        goals = self.said.goals
        for g in [g for g in goals if g.obj == name and g.how != "pour"]:
            self.frame.goals_before -= goals.index(g) < self.frame.goals_before
            goals.remove(g)

    def _sided(
        self, name: str, how: str | None, support: str | None, spatial: list, existing: list[Goal]
    ) -> list:
        """`spatial` with its bare directions ("bare:far_right") read: of the table when the object
        goes on the table (or nowhere said), else that half of the support it goes on (V.HALF).
        Raises GroundingError for a side inside a container the object does not fit half of."""
        on = existing[-1].support if existing and support is None else support
        table = self.scene.table()
        if (
            on not in (None, table)
            and container(self.scene.things[on])
            and (how or "inside") == "inside"
            and not (self.said.part_said and self._half_holds(name, on))
        ):
            side = next(r[5:] for r, _ in spatial if r.startswith("bare:")).replace("far_", "")
            raise GroundingError(
                f"the {side} inside the {_w(on)}: the offline grounder puts things in a container, not "
                f"in one part of it; say 'in the {_w(on)}' alone, or a place on the table; {ADVICE}"
            )
        return [
            (r[5:] if on in (None, table) else V.HALF[r[5:]], ())
            if r.startswith("bare:")
            else (r, refs)
            for r, refs in spatial
        ]

    def _half_holds(self, name: str, box: str) -> bool:
        """Does half of the container's opening (its smaller horizontal extent, halved) take the
        thing's width (its second-smallest extent)? A lime in the front half of a pan, not a lemon
        in the left half of a mug. True when the prompt gives no sizes."""
        t, c = self.scene.things[name], self.scene.things[box]
        if not t.size or not c.size:
            return True
        return sorted(t.size)[1] <= min(c.size[0], c.size[1]) / 2

    def hold(self, moved: list[str]) -> None:
        """Say that `moved` (one object) ends in the gripper; raises GroundingError for more than
        one thing (one hand), or when another thing is already to be held."""
        if len(moved) > 1 or any(g.how == "held" for g in self.said.goals):
            said = " and ".join(f"the {_w(x)}" for x in dict.fromkeys(moved))
            raise GroundingError(
                f"the robot has one hand: it can hold one thing at the end, not {said}; say "
                f"where to put the others"
            )
        for g in self.said.goals:
            if g.obj == moved[0]:
                g.final = False
        note = self.said.chosen.get(moved[0], "")
        self.said.goals.append(Goal(moved[0], "held", "", note=note))

    def default_support(self, name: str, spatial: list) -> str:
        """The table; or, for "between" two things that both end on the same other surface (a
        plate, a mat — not a container), that surface: the stretch between them is on it (a plum
        "between" a lemon and an orange on the plate goes on the plate, not on the table). Raises
        GroundingError in a scene with no table."""
        table = self.scene.table()
        if table is None:
            raise GroundingError(f"no surface to put the {_w(name)} on; say where")
        for rel, refs in spatial:
            if rel == "between":
                ends = {self.ends_on(r) for r in refs}
                if (
                    len(ends) == 1
                    and (on := ends.pop()) not in (None, table)
                    and not container(self.scene.things[on])
                ):
                    return on
        return table

    def ends_on(self, name: str) -> str | None:
        """What `name` rests on at the end: its last 'ontop' goal's support so far, else (with no
        goal) what holds it now; None for the table or nothing."""
        goals = self.said.goals
        goal = next((g for g in reversed(goals) if g.obj == name and g.how == "ontop"), None)
        if goal is not None:
            return goal.support
        if any(g.obj == name for g in goals):
            return None
        return next(iter(self.scene.holder(name)), None)

    def settle(self) -> None:
        """When every clause is read: a pour followed by a placement of what it poured out is a step
        on the way ("empty the mug and put the ball back in it"); a thing put in a container that a
        later clause empties comes out with the rest ("put the fork in the mug, then empty the mug")."""
        goals = self.said.goals
        for i, g in enumerate(goals):
            if g.how == "pour" and any(later.obj in g.contents for later in goals[i + 1 :]):
                g.final = False
            pour = next(
                (
                    later
                    for later in goals[i + 1 :]
                    if later.how == "pour" and later.obj == g.support
                ),
                None,
            )
            if g.how == "inside" and pour is not None:
                g.final = False
                pour.contents = pour.contents + (g.obj,) * (g.obj not in pour.contents)

    def refuse_taken_places(self) -> None:
        """Raise ImpossibleGoal for "put the apple where the bowl was" when nothing moves the bowl,
        which rests on the table: its place stays taken (on a plate or in a bowl, "where the lemon
        is" means on or in that, beside it)."""
        moved = {g.obj for g in self.said.goals}
        for g in self.said.goals:
            for rel, refs in g.spatial:
                r = refs[0] if refs else None
                if rel != "at_initial" or r is None or r == g.obj or r in moved:
                    continue
                if self.scene.things[r].fixed or self.scene.holder(r):
                    continue
                raise ImpossibleGoal(
                    f"the {_w(r)} stays where it is (nothing asks to move it), so the {_w(g.obj)} "
                    f"cannot go where the {_w(r)} was; say where the {_w(r)} goes first"
                )


def _w(name: str) -> str:
    return name.replace("_", " ")
