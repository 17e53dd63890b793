"""Clauses of an instruction that are not plain placements, for the offline grounder's Reader:
throwing away, removing, pouring and emptying, and the person's own intention ("I want to pour
coffee into the cup": the cup must stand upright)."""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.discourse import Discourse
from owl_bt.language.goal_book import GoalBook
from owl_bt.language.goals import ADVICE, Goal
from owl_bt.language.mentions import SceneAliases
from owl_bt.language.references import Resolver
from owl_bt.language.relations import RelationReader
from owl_bt.language.scene_view import container, held_in, resting_on


class SpecialClauses:
    """Clauses that are not plain placements: discarding, removing, pouring and emptying, and the
    person's own intention. Each adds its goals to the goal book (or `said.upright_needed`) and sets
    `said.last` to the objects it moved."""

    def __init__(
        self,
        scene: SceneAliases,
        said: Discourse,
        refs: Resolver,
        rels: RelationReader,
        book: GoalBook,
    ) -> None:
        self.scene = scene
        self.said = said
        self.refs = refs
        self.rels = rels
        self.book = book

    def discard(self, toks: list[str]) -> None:
        """'throw away X' / 'discard X': into a bin-like container of the scene."""
        ments, rels, covered = self.rels.relations(toks)
        excluded = self.rels.excluded(toks, ments)  # "throw away the fruit except the apple"
        self.refs.check_words(
            toks,
            covered,
            allowed=V.DISCARD
            | {"away"}
            | V.EXCEPT
            | V.GENERIC
            | {w for p in V.EXCEPT_PHRASES for w in p.split()},
        )
        bins = [
            n
            for n, t in self.scene.things.items()
            if t.category in {"bin", "basket", "trash", "trash_can"}
        ]
        if not bins:
            raise GroundingError(
                "there is no bin in the scene to throw things away into; say where to put them instead"
            )
        said = [n for m in ments if m not in excluded for n in m.names if n in bins]
        if len(bins) > 1 and len(said) != 1:  # "throw away the ball" with two bins: which one
            raise GroundingError(
                f"into which bin, the {' or the '.join(b.replace('_', ' ') for b in bins)}? name one"
            )
        bins = said or bins
        left_out = {n for m in excluded for n in m.names} | set(bins)
        moved = [n for m in ments if m not in excluded for n in self.refs.resolve(m, toks)]
        if (
            not moved and set(toks) & {"everything", "all", "every"} and set(toks) & V.GENERIC
        ):  # "throw everything away"
            moved = self.refs.items(self.scene.movable(), left_out)
        moved = [n for n in moved if n not in left_out]
        for name in moved:
            self.book.add(name, "inside", bins[0], [], False, False, False)
        self.said.last = moved

    def remove(self, toks: list[str]) -> None:
        """'remove X from Y': X onto the table, clear of Y."""
        ments, rels, covered = self.rels.relations(toks)
        self.refs.check_words(
            toks,
            covered | {i for i, t in enumerate(toks) if t == "from"},
            allowed={"remove", "clear"},
        )
        k = next((r[0] for r in rels if r[2] == "source"), len(toks))
        moved = [n for m in ments if m.start < k for n in self.refs.resolve(m, toks)]
        source = [n for m in ments if m.start > k for n in self.refs.resolve(m, toks)]
        if (
            toks[0] == "clear" and len(moved) == 1 and not source
        ):  # "clear the plate": what rests on it or in it
            source = moved
            s = self.scene.things[source[0]]
            moved = [
                n
                for n in self.scene.movable()
                if n != s.name
                and (resting_on(self.scene.things[n], s) or held_in(self.scene.things[n], s))
            ]
            if not moved:
                raise GroundingError(f"there is nothing on the {s.name.replace('_', ' ')} to clear")
        if not moved:
            raise GroundingError(f"remove what? {' '.join(toks)!r}; {ADVICE}")
        if source[:1] == [
            self.scene.table()
        ]:  # off the table: there is nowhere else to put it down
            raise GroundingError(
                f"remove the {' and the '.join(n.replace('_', ' ') for n in moved)} from the table to "
                f"where? say where to put it (e.g. 'put it in the bin'); {ADVICE}"
            )
        for name in moved:
            self.book.add(
                name,
                "ontop",
                self.book.default_support(name, []),
                [("off", (s,)) for s in source[:1]],
                False,
                False,
                False,
            )
        self.said.last = moved

    def pour(self, toks: list[str], at: int) -> None:
        ments, rels, covered = self.rels.relations(toks)
        into = [
            m
            for m in ments
            if m.start > at and any(r[2] == "support" and r[1] <= m.start for r in rels)
        ]
        out_of = [
            m
            for m in ments
            if m.start > at
            and any(r[2] == "source" and r[1] <= m.start for r in rels)
            and m not in into
        ]  # "pour the soup from the can …": where it is poured from
        what = [m for m in ments if at < m.start and m not in into and m not in out_of]
        # "… by tipping it over", "tip over the mug"
        out = (
            toks[at].startswith("empt")
            or "out" in toks[at:]
            or toks[-1] == "over"
            or toks[at + 1 : at + 2] == ["over"]
        )
        pronoun = (
            not what
            and not out_of
            and bool(set(toks[at:]) & {"it", "them"})
            and bool(self.said.last)
        )  # "empty it"
        self.refs.check_words(
            toks, covered, allowed=V.POUR_FORMS | V.LIQUIDS | {"out"} | ({"over"} if out else set())
        )
        if not into and (out or out_of):
            placed = [
                m
                for m in what
                if any(r[2] in ("spatial", "absolute") and r[1] <= m.start for r in rels)
            ]
            if placed:  # "empty the mug near the bowl": where it is poured is the planner's to find
                rel = max(
                    (
                        r
                        for r in rels
                        if r[2] in ("spatial", "absolute") and r[1] <= placed[0].start
                    ),
                    key=lambda r: r[1],
                )
                said = " ".join(toks[rel[0] : placed[0].end])
                raise GroundingError(
                    f"'{said}': the offline grounder empties a container onto a free part of the "
                    f"table, nowhere in particular; leave the place out, or {ADVICE}"
                )
            if out_of:  # "pour the ball out of the mug and the plum out of the bowl": each out of the next one said
                pairs = {}
                for c in out_of:
                    prev = max((d.start for d in out_of if d.start < c.start), default=-1)
                    pairs[self.refs.resolve(c, toks)[0]] = [
                        n
                        for m in what
                        if prev < m.start < c.start
                        for n in self.refs.resolve(m, toks)
                    ]
                return self.empty(toks, pairs)
            named = (
                [n for m in what for n in self.refs.resolve(m, toks)]
                if what
                else list(self.said.last)
                if pronoun
                else []
            )
            into_last = [g.support for g in self.said.goals if g.obj in named and g.how == "inside"]
            if pronoun and into_last and not any(container(self.scene.things[n]) for n in named):
                named = list(
                    dict.fromkeys(into_last)
                )  # "put the fork in the mug, then empty it": the mug
            if not named and set(toks) & (
                V.QUANT_ALL | V.GENERIC
            ):  # "empty everything": each container holding something
                named = [n for n in self.scene.things if self.holds_something(n)]
                if not named:
                    raise GroundingError("no container in the scene holds anything to pour out")
            if named:
                return self.empty(toks, {n: [] for n in named})
        if not into:
            raise GroundingError(f"pour into what? {' '.join(toks)!r}; {ADVICE}")
        target = self.refs.resolve(into[0], toks)[0]
        names = [n for m in what for n in self.refs.resolve(m, toks)]
        if not names:
            raise GroundingError(f"pour what into the {target.replace('_', ' ')}? {ADVICE}")
        x = self.scene.things[names[0]]
        holder = next(
            (
                t.name
                for t in self.scene.things.values()  # the can the soup is in (not the soup "around" its can)
                if held_in(x, t) and not t.fixed and t.volume > x.volume
            ),
            None,
        )
        if out_of and holder not in out_of[0].names and x.name not in out_of[0].names:
            said = " ".join(toks[out_of[0].start : out_of[0].end])
            raise GroundingError(f"the {x.name.replace('_', ' ')} is not in the {said}; {ADVICE}")
        if (
            holder == target
        ):  # already poured (a replan after the pour): the goal is that it stays there
            self.said.goals.append(Goal(x.name, "inside", target))
            self.said.last = [x.name]
            return
        src, contents = (
            (holder, (x.name,))
            if holder
            else (x.name, tuple(n for n, t in self.scene.things.items() if held_in(t, x)))
        )
        self.said.goals.append(Goal(src, "pour", target, contents=contents))
        if container(
            self.scene.things[target]
        ):  # a container poured into stands upright; a plate is flat
            self.said.upright_needed.add(target)
        self.said.last = [src]

    def contents(self, c: str) -> tuple[str, ...]:
        """What lies in c (smaller than c: not the mug "in" the ball it holds)."""
        things = self.scene.things
        return tuple(
            n for n, t in things.items() if held_in(t, things[c]) and t.volume < things[c].volume
        )

    def holds_something(self, c: str) -> bool:
        return not self.scene.things[c].fixed and bool(self.contents(c))

    def empty(self, toks: list[str], said: dict[str, list[str]]) -> None:
        """'empty the mug', 'pour out the mug', 'pour the golf ball out of the mug', 'empty both containers',
        'empty it': tip each container's contents out onto the table, then stand it back up (the goal's
        `upright`). `said`: each object said → what was said to come out of it ('out of'); an object said
        with nothing after it is a container, or what lies in one (the innermost: the mug, not the bowl round
        it). What is out already (a replan after the pour) leaves the container standing upright."""
        things, table = self.scene.things, self.scene.table() or "table"

        def holder(n: str) -> str | None:
            around = [
                t
                for t in things.values()
                if held_in(things[n], t) and not t.fixed and t.volume > things[n].volume
            ]
            return min(around, key=lambda t: t.volume).name if around else None

        plan: dict[str, tuple[str, ...]] = {}
        for n, out in said.items():
            if (
                not out
                and not self.contents(n)
                and not holder(n)
                and not things[n].fixed
                and not container(things[n])
                and not any(resting_on(t, things[n]) for t in things.values() if not t.fixed)
            ):  # (a plate: below)
                raise GroundingError(
                    f"the {n.replace('_', ' ')} lies in no container: there is nothing to pour it out of"
                )
            c = holder(n) if not out and not self.contents(n) and holder(n) else n
            plan[c] = plan.get(c, ()) + tuple(out) + ((n,) if c != n else ())
        for src, named in plan.items():
            inside = self.contents(src)
            if things[src].fixed or not (
                container(things[src]) or inside
            ):  # "empty the table", "empty the plate"
                w = src.replace("_", " ")
                on_it = [
                    n
                    for n, t in things.items()
                    if n != src and not t.fixed and resting_on(t, things[src])
                ]
                how = (
                    "say where what is on it goes (e.g. 'put everything in the bin')"
                    if things[src].fixed
                    else f"to take what is on it off, say 'clear the {w}'"
                    if on_it
                    else ""
                )
                raise GroundingError(
                    f"the {w} is not a container to pour out" + (f"; {how}" if how else "")
                )
            left = tuple(n for n in named if n in inside) if named else inside
            if named and not left and inside:  # the wrong thing named: say what is in it
                raise GroundingError(
                    f"the {named[0].replace('_', ' ')} is not in the {src.replace('_', ' ')} (the "
                    f"{' and the '.join(c.replace('_', ' ') for c in inside)} is); {ADVICE}"
                )
            # Out already (poured out before a replan, or never in): what is left of the goal is the container
            # standing upright, so that a replan after the pour does not ask for a pour of nothing
            support = next(
                (n for n, t in things.items() if n != src and resting_on(things[src], t)), table
            )
            self.said.goals.append(
                Goal(src, "pour", table, contents=left, upright=True)
                if left
                else Goal(src, "ontop", support, upright=True)
            )
        self.said.last = list(plan)  # "empty the mug and put the fork in it"

    def intention(self, toks: list[str]) -> None:
        """The person's own plan: a container they will pour into must stand upright."""
        ments, rels, covered = self.rels.relations(toks)
        self.refs.check_words(
            toks, covered, allowed=V.POUR_FORMS | V.LIQUIDS | V.ACTION_FORMS, liquids_ok=True
        )
        if set(toks) & V.POUR_FORMS:
            for _k, (_s, e, kind, _r) in enumerate(rels):
                if kind == "support":
                    target = next((m for m in ments if m.start >= e), None)
                    if target is not None:
                        self.said.upright_needed.update(self.refs.resolve(target, toks))
