"""The offline grounder's reading of an instruction: clauses → goals over the scene's objects.

The instruction is cut into clauses at sentence marks, parentheses and sequencing words (then,
finally, before, after …) and put in the order they are to happen (owl_bt.language.sequencing). A
clause is an action ("put all the fruit left of the line"), a state ("make sure the peach is to the
right of the apple", "the strawberry should only be in the bowl at the end") or the person's own
intention ("I want to pour coffee into the cup": the cup must stand upright). Object phrases resolve
through the scene's names, categories and colours, an ontology (fruit, citrus, cutlery, condiment,
container …), quantifiers, superlatives and "whatever … fits" (owl_bt.language.references). Every
word must be understood; the ones that are not are named, never guessed at, and a singular phrase
that fits several objects is asked about.
"""

from __future__ import annotations

import re

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language import vocabulary as V
from owl_bt.language.abilities import line_up
from owl_bt.language.arrangements import matching, ordering, respectively, said_stack, swap
from owl_bt.language.clause_kinds import ADVICE, SpecialClauses
from owl_bt.language.complements import resolve_complements
from owl_bt.language.ellipsis import resolve_ellipsis
from owl_bt.language.feasibility import refuse_infeasible
from owl_bt.language.goals import Goal, ImpossibleGoal, Reading
from owl_bt.language.implied import implied_placement, verb_at
from owl_bt.language.mentions import Mention, SceneAliases, find_mentions
from owl_bt.language.orientation import orient_goals, take_orientation
from owl_bt.language.placement import (
    Destination,
    PlacementClause,
    implied_place,
    mass_phrase,
    object_ranks,
    opposite_landmark,
    parse_placement,
    placement_words,
    said_in_present,
    unit_modifiers,
)
from owl_bt.language.references import References
from owl_bt.language.relations import ClauseRelations
from owl_bt.language.scene_view import Thing, container, fits_in, measure
from owl_bt.language.sequencing import split_clauses, unit_ranks
from owl_bt.language.stages import normalise, refuse_early
from owl_bt.language.suggest import did_you_mean
from owl_bt.language.suggest import phrase as suggestion
from owl_bt.language.superlatives import DISTANCE

PART_WORDS = re.compile(r"\b(half|corner|part)\b")


class Reader(ClauseRelations, SpecialClauses, References):
    """Reads an instruction against the scene; `read()` → Reading or GroundingError/UnknownObjectError."""

    def __init__(self, things: list[Thing]) -> None:
        self.scene = SceneAliases(things)
        self.last: list[str] = []
        self.goals: list[Goal] = []
        self.upright_needed: set[str] = set()
        self.unknown: list[str] = []
        self.absent: list[str] = []
        self.more = False  # another clause follows the one being read
        self._part_said = False  # the instruction names a part ("the front half of …")
        self._oriented = False  # the clause being read says how its objects lie ("straight")
        self._next: list[str] = []  # …and its tokens
        self.last_dest: tuple | None = (
            None  # (how, support, spatial, upright) of the last unit with a destination
        )
        self.mentioned: list[str] = []  # objects named by the clauses read so far, in order
        self._named: list[str] = []  # …and by the clause being read
        self._ments: list[Mention] = []  # the mentions of the clause being read
        self._clause_goals = 0  # goals made before the clause being read
        self._nearest: dict[
            int, tuple[str, Mention | None]
        ] = {}  # distance superlatives of the clause being read
        self._gap: tuple | None = (
            None  # the destination a bare object phrase of the clause being read shares
        )
        self._chosen: dict[str, str] = {}  # object → which of a counted group it is ("two fruits")
        self._provisional: set[str] = (
            set()
        )  # objects taken out with no place said yet ("take the ball out")
        self._fitting_in: tuple | None = (
            None  # (subject mention starts, the container they must fit in)
        )
        self._borrow = False  # the clause being read ends in 'and' before 'then': it takes the next one's destination
        self._located: tuple | None = (
            None  # (subject mention starts, the place a unit's subject is described at)
        )
        self._last_about: tuple = (
            [],
            "",
            None,
        )  # (the list `last` was set to, its mass-noun phrase, its destination)

    def read(self, instruction: str) -> Reading:
        toks = resolve_complements(normalise(instruction), self.scene)  # "… that isn't dairy"
        # "the front half of the pan": a part said in full (normalise reads it "in the pan, to the
        # front"), not a bare "to the left", which could be where the pan is
        self._part_said = bool(PART_WORDS.search(instruction.lower()))
        refuse_early(toks)
        toks = resolve_ellipsis(toks, self.scene)  # "the other two", "the yellow and green ones"
        stack = said_stack(toks, self.scene)  # "stack the blocks: red at the bottom, then …"
        if stack is not None:
            for p in stack:
                self._goal(p.obj, p.how, p.support, list(p.spatial), False, False, False)
            return Reading(self.goals, self.upright_needed)
        clauses = split_clauses(toks)
        dests: dict[int, tuple] = {}  # clause index → the destination it set
        for n, clause in enumerate(c.toks for c in clauses):
            self.more = n + 1 < len(clauses)
            self._next = clauses[n + 1].toks if self.more else []
            if not self.last and self.more and set(clause) & {"it", "them"}:
                self.last = self._forward(clause, clauses[n + 1].toks)
            self._clause_goals = len(self.goals)
            self._gap = self._partner_dest(clauses, n, dests)
            self._borrow = clauses[n].dangling and self._gap is not None
            dest_before = self.last_dest
            clause, said = take_orientation(clause)  # "straight", "bowl facing away"
            self._oriented = bool(said)
            try:
                try:
                    self._clause([t for t in clause if t != ","])
                except (
                    GroundingError
                ) as exc:  # "…, first on the plate" (read first): what the next clause moves
                    if (
                        self.last
                        or not self.more
                        or not str(exc).startswith("cannot tell what to move")
                    ):
                        raise
                    self.last = self._forward([], clauses[n + 1].toks)
                    del self.goals[self._clause_goals :]
                    self._named = []
                    self._clause([t for t in clause if t != ","])
                if said:
                    orient_goals(self.goals[self._clause_goals :], said, self.scene.things)
                self.mentioned += self._named
                self._named = []
                if self.last_dest is not dest_before:
                    dests[n] = self.last_dest
            except GroundingError:
                if not (self.absent or self.unknown):
                    raise
                break  # a word it did not know is the better reason
        if self.absent:
            raise UnknownObjectError(self.absent[0], sorted(self.scene.things))
        if self.unknown:
            scene_words = {w for alias in self.scene.aliases for w in alias}
            words = ", ".join(
                repr(u) + suggestion(did_you_mean(u, scene_words))
                for u in dict.fromkeys(self.unknown)
            )
            raise GroundingError(f"the offline grounder did not understand: {words}; {ADVICE}")
        if not self.goals and not self.upright_needed:
            raise GroundingError(
                f"the instruction asks for no placement the offline grounder can see; {ADVICE}"
            )
        for i, g in enumerate(
            self.goals
        ):  # "empty the mug and put the ball back in it": the pour is a step on the way
            if g.how == "pour" and any(later.obj in g.contents for later in self.goals[i + 1 :]):
                g.final = False
            # "put the fork in the mug, then empty the mug": the fork comes out with the rest (was emptied first)
            pour = next(
                (
                    later
                    for later in self.goals[i + 1 :]
                    if later.how == "pour" and later.obj == g.support
                ),
                None,
            )
            if g.how == "inside" and pour is not None:
                g.final = False
                pour.contents = pour.contents + (g.obj,) * (g.obj not in pour.contents)
        self._occupied_places()
        refuse_infeasible(self.goals, self.scene.things)  # the bin cannot be picked up
        return Reading(self.goals, self.upright_needed)

    def _occupied_places(self) -> None:
        """Refuse "put the apple where the bowl was" when nothing moves the bowl, which rests on the
        table: its place stays taken (on a plate or in a bowl, "where the lemon is" means on or in
        that, beside it)."""
        moved = {g.obj for g in self.goals}
        for g in self.goals:
            for rel, refs in g.spatial:
                r = refs[0] if refs else None
                if rel != "at_initial" or r is None or r == g.obj or r in moved:
                    continue
                if self.scene.things[r].fixed or self._holder(r):
                    continue
                raise ImpossibleGoal(
                    f"the {_w(r)} stays where it is (nothing asks to move it), so the {_w(g.obj)} "
                    f"cannot go where the {_w(r)} was; say where the {_w(r)} goes first"
                )

    def _clause(self, toks: list[str]) -> None:
        text = " ".join(toks)
        for o in V.INTENT_OPENERS:
            if text.startswith(o):
                return self._intention(toks)
            if (
                f" {o} " in f" {text} "
            ):  # "set up the cup so I can pour": the request, then the intention
                k = len(text[: text.index(f" {o} " if f" {o} " in text else o)].split())
                self._clause(toks[:k])
                return self._intention(toks[k:])
        toks = line_up(toks)
        if self._arrangement(toks):  # matching, orderings, swaps: one rule over several objects
            return None
        k = verb_at(toks)
        if k is not None and "by" not in toks:  # "sauté the mushroom": in the cookware
            if not any(r[2] != "source" for r in self._relations(toks)[1]):
                implied = implied_placement(toks, k, self.scene)
                if implied.tool:
                    self._chosen[implied.tool] = implied.note
                return self._clause(implied.toks)
        if (
            "by" in toks
        ):  # "cook the strawberry by putting it in the pan": the objects, then the how
            k = toks.index("by")
            if (
                0 < k + 1 < len(toks)
                and toks[k + 1] in V.POUR_FORMS
                and toks[0] in V.ACTION_FORMS | {"remove", "clear"}
            ):
                # "take the ball out of the mug by pouring (it out)": the pour, said of the objects
                return self._clause(
                    [
                        toks[k + 1],
                        *toks[1:k],
                        *(t for t in toks[k + 2 :] if t not in {"it", "them"}),
                    ]
                )
            if k + 1 < len(toks) and toks[k + 1] in V.ACTION_FORMS | V.POUR_FORMS:
                head = find_mentions(toks[:k], self.scene, set())
                if head:
                    self.last = [n for m in head for n in m.names]
                self._check_words(
                    toks[:k], {i for m in head for i in range(m.start, m.end)}, allowed=V.BY_FORMS
                )
                toks = toks[k + 1 :]
        pour = next((i for i, t in enumerate(toks) if t in V.POUR_FORMS), None)
        if pour is not None:
            return self._pour(toks, pour)
        if (
            toks
            and (toks[0] in V.DISCARD or " ".join(toks[:2]) == "throw away")
            or "throw away" in " ".join(toks)
        ):
            return self._discard(toks)
        if toks and toks[0] in {"remove", "clear"}:
            return self._remove(toks)
        self._placement(toks)

    def _arrangement(self, toks: list[str]) -> bool:
        """Read the clause as a swap, a match by attribute or an ordering when it is one (goals made);
        False when it is none of them."""
        pair = swap(toks, self.scene)
        if pair is not None:
            table = self.scene.table()
            # first out of the way (far from the other's place), then each where the other was, on or
            # in what held it
            self._goal(pair[0], "ontop", table, [("apart", (pair[1],))], False, False, False)
            for a, b in (pair[::-1], pair):
                was = self._holder(b)
                how = "inside" if was and container(self.scene.things[was[0]]) else "ontop"
                spatial = [("at_initial", (b,))]
                self._goal(a, how, was[0] if was else table, spatial, False, False, False)
            self.last = list(pair)
            self._named += self.last
            return True
        placements = (
            respectively(toks, self.scene)
            or matching(toks, self.scene)
            or ordering(toks, self.scene)
        )
        if placements is None:
            return False
        for p in placements:
            self._goal(p.obj, p.how, p.support, list(p.spatial), False, False, False)
        self.last = [p.obj for p in placements]
        self._named += self.last
        return True

    def _placement(self, toks: list[str]) -> None:
        """An action or state clause: one or more units 'objects + relations' ("put the apple into
        the bowl, the lemon onto the plate"); a unit with no relation of its own reuses the one
        before it ("… on the plate, then the lime"); a pick verb with no destination only says what
        the next clause moves ("pick up the apple and put it in the bowl")."""
        ments, rels, covered = self._relations(toks)
        excluded = self._excluded(toks, ments)
        least = self._excepted_superlative(toks, excluded)  # "… except the biggest one"
        left_out = {x for m in excluded for x in m.names}
        ments = [m for m in ments if m not in excluded]
        units = self._units(ments, rels)
        clause = parse_placement(toks, ments, rels)
        state, only, verb = clause.state, clause.only, clause.verb
        first_rel, generic = clause.first_rel, clause.generic
        self._ruled_out_places(
            toks, excluded, {x for m in ments if m.start < first_rel for x in m.names}
        )
        self._check_words(toks, covered, allowed=placement_words(rels))
        if verb in V.TURN and not any(r[2] == "orient" for r in rels) and not self._oriented:
            raise GroundingError(
                f"{verb} it which way? {' '.join(toks)!r}; say e.g. 'upright'; {ADVICE}"
            )
        starts, table = (
            [],
            self.scene.table() or next(iter(self.scene.things)),
        )  # where each unit begins
        for n, (subject, urels) in enumerate(units):
            starts.append(
                min([m.start for m in subject] + [rels[k][0] for k, _ in urels] or [len(toks)])
            )
            sources = [refs for k, refs in urels if rels[k][2] == "source"]
            dest = [(k, refs) for k, refs in urels if rels[k][2] != "source"]
            dest, self._located = self._described_place(
                subject, dest, rels, toks
            )  # "the fruit on the plate"
            gap, there = self._gap or self.last_dest, "there" in toks and n == 0
            moved = self._gapped(clause, toks, n, subject, dest, gap, there)
            if moved:  # gapping: "… on the plate, then the lime", "… in the bowl after the pear", "put it there"
                how, ref, spatial, upright = gap
                for name in moved:  # "leave it there": where the last clause put it
                    self._goal(
                        name,
                        how,
                        ref,
                        spatial,
                        upright,
                        only,
                        state or verb in {"leave", "keep"},
                    )
                self.last = moved
                continue
            if there and not dest and not gap:
                raise GroundingError(
                    f"'there' is where? {' '.join(toks)!r} says no place before it; {ADVICE}"
                )
            if (
                verb is None
                and not rels
                and not state
                and not generic
                and n == 0
                and subject
                and not self.last
            ):
                raise GroundingError(
                    f"what should happen to {' '.join(toks)!r}? say what to do with it; {ADVICE}"
                )
            support_rel, support_ref = self._support(toks, rels, dest)
            fit_in = (
                support_ref
                if set(toks) & V.FITS and container(self.scene.things[support_ref or table])
                else None
            )
            self._fitting_in = (
                ({m.start for m in subject}, fit_in) if fit_in and subject else None
            )  # "the fruit that fits"
            moved, support_rel, support_ref = self._theme(
                clause, toks, n, subject, ments, least, support_rel, support_ref
            )
            support_ref = self._support_antecedent(toks, first_rel, support_rel, support_ref, moved)
            moved = self._narrowed(toks, n, moved, left_out, sources, least)
            source, out = self._taken_from(clause, toks, dest, moved, sources)
            if self._only_picked(clause, toks, dest, moved, source, out):
                continue
            upright, spatial = unit_modifiers(clause, rels, urels, source, dest)
            place = self._destination(toks, n, rels, dest, moved, support_rel, support_ref, spatial)
            if any(rels[k][2] == "spatial" for k, _ in dest):
                table = self.scene.table()  # the scene's table from here on, even when it has none
            how = self._place(clause, toks, moved, dest, place, source, upright, table)
            support_ref, spatial = place.support, place.spatial
            if out:
                self._provisional |= set(moved)
            if dest or support_ref:
                self.last_dest = (how, support_ref, spatial, upright)
            self.last = moved
            self._last_about = (
                moved,
                mass_phrase(toks, subject),
                support_ref if dest or support_ref else None,
            )
        # "put the apple on the plate last and the lemon first": the lemon first
        rank = object_ranks([subject for subject, _ in units], unit_ranks(toks, starts))
        self.goals[self._clause_goals :] = sorted(
            self.goals[self._clause_goals :], key=lambda g: rank.get(g.obj, 1)
        )

    def _taken_from(
        self,
        clause: PlacementClause,
        toks: list[str],
        dest: list,
        moved: list[str],
        sources: list,
    ) -> tuple[list[str], bool]:
        """Where a unit takes its objects `moved` from: its source relations' objects ("off the
        plate"), or, for a pick verb with no destination that takes them out ("take the ball out"),
        what holds them now. Returns (those places, whether the unit takes them out)."""
        source = [x for refs in sources for m in refs for x in self._resolve(m, toks)]
        out = (
            not dest
            and clause.verb in V.PICK_VERBS
            and bool(source or set(toks) & {"out", "off"} and self._holder(moved[0]))
        )
        if (
            out and not source
        ):  # "take the ball out (, then …)": out of what it is in now, unless a later clause
            source = self._holder(moved[0])  # says where ("… and put it next to the mustard")
        return source, out

    def _only_picked(
        self,
        clause: PlacementClause,
        toks: list[str],
        dest: list,
        moved: list[str],
        source: list[str],
        out: bool,
    ) -> bool:
        """Does a unit with no destination only pick its objects up? When the next clause says
        where ("pick up the apple and put it …"), they are what it moves; when none follows and
        they are taken from nowhere ("hold the lemon"), they end in the hand. False otherwise."""
        then_it = (
            self.more and clause.verb in V.ACTION_FORMS and bool(set(self._next) & {"it", "them"})
        )  # "move X, then put it …"
        if (
            not dest
            and (clause.verb in V.PICK_VERBS or then_it)
            and not clause.upright_verb
            and not out
        ):
            if (
                self.more
            ):  # "pick up the apple (from the plate) and put it …": the next clause says where
                self.last = moved
                return True
            if not source:  # "pick up the apple", "hold the lemon": it ends in the hand
                self._hold(moved, toks)
                return True
        return False

    def _place(
        self,
        clause: PlacementClause,
        toks: list[str],
        moved: list[str],
        dest: list,
        place: Destination,
        source: list[str],
        upright: bool,
        table: str | None,
    ) -> str | None:
        """Make the goals of a unit's objects `moved`: at `place`, or where the clause implies
        ("put it back": each where it was, on or in what held it). Returns how they go ('inside' |
        'ontop' | None). Raises GroundingError for a unit both on and off one place, or one that
        says no place."""
        how, support_ref, spatial = place.how, place.support, place.spatial
        only, state = clause.only, clause.state
        if (
            source and dest and support_ref in source
        ):  # "onto the region and off the region": refused, never one half dropped
            raise GroundingError(
                f"{' '.join(toks)!r} asks for the {' and '.join(_w(x) for x in moved)} both on and off "
                f"the {_w(support_ref)}; say one"
            )
        implied = implied_place(clause, bool(dest or support_ref or spatial))
        if implied is None:
            self._ask_where(
                toks,
                moved,
                dest,
                support_ref,
                spatial,
                upright or clause.upright_verb or self._oriented,
                state,
            )
        if how == "inside" and support_ref and self._flat(support_ref):
            how = "ontop"  # "in the middle of the plate", "in the region": on it
        for name in moved:
            if implied == "back":  # on or in what held it at the start, where it was
                self._put_back(name, upright, only, state, table)
                continue
            self._goal(name, how, support_ref, spatial, upright, only, state)
        return how

    def _put_back(
        self, name: str, upright: bool, only: bool, state: bool, table: str | None
    ) -> None:
        """The goal of `name` back where it was, on or in what held it at the start (the table
        when nothing did)."""
        was = self._holder(name) or [table]
        how = "inside" if container(self.scene.things[was[0]]) and self._holder(name) else "ontop"
        self._goal(name, how, was[0], [("at_initial", (name,))], upright, only, state)

    def _gapped(
        self,
        clause: PlacementClause,
        toks: list[str],
        n: int,
        subject: list[Mention],
        dest: list,
        gap: tuple | None,
        there: bool,
    ) -> list[str]:
        """The objects of unit n when it takes the place `gap` said before it ("… on the plate, then
        the lime", "put it there"): a unit with no destination and no upright verb that follows
        another, has no verb, says "there" or borrows the next clause's place; else []."""
        if (
            not dest
            and not clause.upright_verb
            and (n > 0 or clause.verb is None or there or self._borrow)
            and gap
        ):
            return [x for m in subject for x in self._resolve(m, toks)] or (
                self._pronoun(toks, subject) if there else []
            )
        return []

    def _narrowed(
        self,
        toks: list[str],
        n: int,
        moved: list[str],
        left_out: set[str],
        sources: list,
        least: str | None,
    ) -> list[str]:
        """The objects a unit moves, less those left out ("except the apple"), only those at the
        place they are taken from when several ("everything off the plate"), and less the one the
        excepted superlative `least` picks ("… except the biggest one"). Raises GroundingError when
        none is left."""
        moved = [x for x in moved if x not in left_out]
        held = [x for refs in sources for m in refs for x in self._resolve(m, toks)][:1]
        if (
            held and len(moved) > 1
        ):  # "take everything off the plate", "the fruit out of the bowl": what is there
            moved = [x for x in moved if self._at(x, held[0])] or moved
        if least and n == 0 and len(moved) > 1:
            what, pick = V.SUPERLATIVES[least]
            moved.remove(pick(moved, key=lambda x: measure(self.scene.things[x], what)))
        if not moved:
            raise GroundingError(f"cannot tell what to move in {' '.join(toks)!r}; {ADVICE}")
        return moved

    def _support(self, toks: list[str], rels: list, dest: list) -> tuple[tuple | None, str | None]:
        """The support relation among a unit's destinations `dest` ((relation index, reference
        mentions)), not a bare "to": the first with a reference, else the first (("inside" |
        "ontop", its mentions) or None), and the object its reference means (None without one)."""
        sup = [
            (rels[k][3], refs) for k, refs in dest if rels[k][2] == "support" and rels[k][3] != "to"
        ]
        support_rel = next((x for x in sup if x[1]), sup[0] if sup else None)
        support_ref = (
            self._resolve(support_rel[1][0], toks)[0] if support_rel and support_rel[1] else None
        )
        return support_rel, support_ref

    def _theme(
        self,
        clause: PlacementClause,
        toks: list[str],
        n: int,
        subject: list[Mention],
        ments: list[Mention],
        least: str | None,
        support_rel: tuple | None,
        support_ref: str | None,
    ) -> tuple[list[str], tuple | None, str | None]:
        """The objects unit n of `clause` moves, from its `subject` mentions: a superlative's one
        ("the tallest thing"), everything movable ("all the things", less the other mentions
        `ments`), what fits the support ("whatever fits inside it", which then is the support),
        the mentions' objects, a pronoun's or the last clause's. Returns (the objects, the support
        relation, the support), the support as given unless the fitting said it. Raises
        GroundingError for a generic phrase with no quantifier ("the thing")."""
        first_rel, generic, everything = clause.first_rel, clause.generic, clause.everything
        sup = next(
            (
                w
                for w in toks[:first_rel]
                if w in V.SUPERLATIVES and w not in DISTANCE and w != least
            ),
            None,
        )
        if (
            generic and not subject and n == 0 and sup and not set(toks) & V.FITS
        ):  # "the tallest thing"
            named = {x for m in ments for x in m.names}
            what, pick = V.SUPERLATIVES[sup]
            moved = [
                pick(
                    self._items(self.scene.movable(), named),
                    key=lambda x: measure(self.scene.things[x], what),
                )
            ]
        elif (
            generic and (not subject or everything) and n == 0 and not set(toks) & V.FITS
        ):  # "all the things"
            if not set(toks[:first_rel]) & (V.QUANT_ALL | {"everything"}):  # not "the thing"
                raise GroundingError(
                    f"which objects? {' '.join(toks)!r}; name them or their kind; {ADVICE}"
                )
            own = {x for m in subject for x in self._resolve(m, toks)}  # "everything and the bowl"
            items = set(
                self._items(self.scene.movable(), {x for m in ments for x in m.names} - own)
            )
            moved = [x for x in self.scene.movable() if x in own | items]
        elif generic and not subject and n == 0:  # "whatever object that fits inside of it"
            target = support_ref or (self.last[0] if self.last else None)
            moved = self._fitting(toks, target)
            if support_ref is None and target is not None:
                support_rel, support_ref = ("inside", []), target
        else:
            moved = [x for m in subject for x in self._resolve(m, toks)] or (
                self._pronoun(toks[:first_rel], subject) if n == 0 else []
            )
        if (
            not moved
            and self.last
            and n == 0
            and (support_rel is not None or set(toks) & {"it", "itself", "them"})
        ):
            moved = list(self.last)  # "… and then in the bowl": the same object(s)
        return moved, support_rel, support_ref

    def _support_antecedent(
        self,
        toks: list[str],
        first_rel: int,
        support_rel: tuple | None,
        support_ref: str | None,
        moved: list[str],
    ) -> str | None:
        """The support of a unit whose support relation names no object: the antecedent of "it"
        ("inside of it"), of a bare relation word at the end ("…, then put the fork in"), or the
        object a distance superlative was said of ("the fruit nearest the plate onto it"); else
        `support_ref`. Raises GroundingError when a support relation is left with no object."""
        if (
            support_rel
            and not support_rel[1]
            and self.last
            and set(toks[first_rel:]) & {"it", "them", "itself"}
        ):
            at = next(i for i in range(first_rel, len(toks)) if toks[i] in {"it", "them", "itself"})
            support_ref = self._antecedent(support_rel[0], moved, at)  # "inside of it"
        elif support_rel and not support_rel[1] and self.mentioned and toks[-1] in V.SUPPORT:
            support_ref = self._antecedent(
                support_rel[0], moved, len(toks)
            )  # "…, then put the fork in"
        elif (
            support_rel
            and not support_rel[1]
            and set(toks[first_rel:]) & {"it", "itself"}
            and any(r is not None for _w2, r in self._nearest.values())
        ):
            # "put the fruit nearest the plate onto it": the object the superlative was said of
            ref = next(r for _w2, r in self._nearest.values() if r is not None)
            support_ref = self._resolve(ref, toks)[0]
        if support_rel and not support_ref:
            raise GroundingError(
                f"{'in' if support_rel[0] == 'inside' else 'on'} what? {' '.join(toks)!r}; {ADVICE}"
            )
        return support_ref

    def _landmarks(
        self,
        toks: list[str],
        n: int,
        rels: list,
        dest: list,
        k: int,
        refs: list[Mention],
        moved: list[str],
    ) -> list[str]:
        """The objects spatial relation k of unit n is said of, not those it moves ("the lemon
        behind all the fruit"): its references `refs`, or for one left unsaid, the object itself or
        the last clause's ("where it was", "back"), this unit's last reference ("right of the spoon
        and aligned with it"), the landmark of the unit before on the opposite side ("left of the
        plate and the knife right of it") or the last clause's objects ("next to it", "near them").
        [] when none is said."""
        s, e, _kind, r = rels[k]
        names = [x for m in refs for x in self._resolve(m, toks)]
        names = [
            x for x in names if x not in moved
        ] or names  # "the lemon behind all the fruit": not itself
        if (
            r == "at_initial" and not names
        ):  # "where it was": the last object's place; "(put it) back
            own = set(toks) & V.OWN_PLACE  # / leave it where it is": its own
            names = moved if own else [x for x in self.last if x not in moved] or moved
        said = [x for kk, rr in dest if kk < k for m in rr for x in m.names if x not in moved]
        if not names and set(toks[e : e + 2]) & {"it", "them"} and said:
            names = said[
                -1:
            ]  # "the fork right of the spoon and aligned with it": this unit's last reference
        elif (
            not names
            and set(toks[e : e + 2]) & {"it"}
            and n > 0
            and (side := opposite_landmark(r, self.last_dest))
        ):
            names = [side]  # "the fork left of the plate and the knife right of it": the plate
        elif (
            not names
            and (set(toks[e : e + 2]) & {"it", "them"} or "its" in toks[s:e])
            and self.last
        ):
            names = [x for x in self.last if x not in moved]  # "… (then) the plate next to it"
            names = (
                names if "them" in toks[e : e + 2] else names[:1]
            )  # ("near them": all of them, not the first)
        return names

    def _destination(
        self,
        toks: list[str],
        n: int,
        rels: list,
        dest: list,
        moved: list[str],
        support_rel: tuple | None,
        support_ref: str | None,
        spatial: list,
    ) -> Destination:
        """Where unit n of the placement clause `toks` puts `moved`: its destination relations `dest`
        ((relation index, reference mentions)) read against the scene, from the support said so far
        (`support_rel`, resolved to `support_ref`) and the modifiers already in `spatial`, which grows.
        A reference left unsaid ("next to it", "where it was", "between them") is taken from the
        clauses before. Raises GroundingError for a relation with no object, or with the object
        itself."""
        how = None
        for k, refs in dest:
            s, e, kind, r = rels[k]
            if (
                kind == "support" and r == "to" and refs
            ):  # into a container, onto a surface, else beside it
                t = self.scene.things[self._resolve(refs[0], toks)[0]]
                if container(t):
                    how, support_ref = "inside", t.name
                elif t.fixed or t.category in V.ONTOLOGY["surface"]:
                    how, support_ref = "ontop", t.name
                else:
                    spatial.append(("near", (t.name,)))
            elif kind == "spatial":
                names = self._landmarks(toks, n, rels, dest, k, refs, moved)
                table = self.scene.table()
                if r in ("left_of", "right_of") and (
                    names == [table] or not names and "table" in toks[e : e + 3]
                ):
                    spatial.append(
                        ("far_left" if r == "left_of" else "far_right", ())
                    )  # "… left side of the table"
                    continue
                if not names and "itself" in toks[e : e + 2] and r != "at_initial" and moved:
                    raise GroundingError(
                        f"cannot put the {_w(moved[0])} {V.RELATION_WORDS.get(r, r.replace('_', ' '))} "
                        "itself; name another object"
                    )  # (not "needs an object after it")
                if not names:
                    raise GroundingError(
                        f"{' '.join(toks[s:e])!r} needs an object after it; {ADVICE}"
                    )
                now = r == "at_initial" and refs and said_in_present(toks, refs[-1].end)
                if now and names != moved:
                    # "where the strawberry is": beside it, where it is now (or will have been put
                    # by then), on or in what holds it — not its place, which it still takes
                    r = "near"
                    ends = next((g for g in reversed(self.goals) if g.obj == names[0]), None)
                    if ends is not None and support_rel is None and how is None:
                        how, support_ref = ends.how, ends.support
                if r in ("at_initial", "near") and support_rel is None and how is None:
                    held = self._holder(
                        names[0]
                    )  # "where the lime is", the lime on the plate: on the plate
                    if held and (r == "at_initial" or now):
                        how = "inside" if container(self.scene.things[held[0]]) else "ontop"
                        support_ref = held[0]
                if r == "between":
                    two = list(
                        dict.fromkeys(names)
                    )  # "between them", "between the plates": two things, not one
                    if len(two) != 2:
                        raise GroundingError(
                            f"'between' needs two things, and {' '.join(toks[s:])!r} names "
                            f"{len(two) or 'none'}{': ' + ', '.join(_w(x) for x in two) if two else ''}"
                            f"; name the two; {ADVICE}"
                        )
                    spatial.append((r, tuple(two)))
                else:
                    if r == "near" and len(names) > 1:
                        names = self._near_most(names, moved, named=not any(m.many for m in refs))
                    spatial += [(r, (x,)) for x in names]
            elif kind == "absolute":
                spatial.append(self._absolute(r, s, spatial))
            if (
                kind == "support"
                and s in self._centred
                and refs
                and self._resolve(refs[0], toks)[0] == support_ref
            ):
                spatial.append(
                    ("middle", ())
                )  # centred on the support (not on "the region in the middle of …")
        if how is None and support_rel:
            how = support_rel[0]
        return Destination(how, support_ref, spatial)

    def _hold(self, moved: list[str], toks: list[str]) -> None:
        """A goal that `moved` (one object) ends in the gripper; raises GroundingError for more than
        one thing (one hand) or for something the instruction also places later."""
        if len(moved) > 1 or any(g.how == "held" for g in self.goals):
            said = " and ".join(f"the {_w(x)}" for x in dict.fromkeys(moved))
            raise GroundingError(
                f"the robot has one hand: it can hold one thing at the end, not {said}; say "
                f"where to put the others"
            )
        for g in self.goals:
            if g.obj == moved[0]:
                g.final = False
        self.goals.append(Goal(moved[0], "held", "", note=self._chosen.get(moved[0], "")))
        self.last = moved
        self._named += [x for x in moved if x not in self._named]

    def _half_holds(self, name: str, box: str) -> bool:
        """Does half of the container's opening (its smaller horizontal extent, halved) take the
        thing's width (its second-smallest extent)? A lime in the front half of a pan, not a lemon
        in the left half of a mug. True when the prompt gives no sizes."""
        t, c = self.scene.things[name], self.scene.things[box]
        if not t.size or not c.size:
            return True
        return sorted(t.size)[1] <= min(c.size[0], c.size[1]) / 2

    def _flat(self, name: str) -> bool:
        """A surface one puts things on, not into (a plate, a mat, a region, the table): not a container."""
        t = self.scene.things[name]
        return not container(t) and (t.fixed or t.category in V.ONTOLOGY["surface"])

    def _goal(
        self,
        name: str,
        how: str | None,
        support: str | None,
        spatial,
        upright: bool,
        only: bool,
        state: bool,
    ) -> None:
        if support == name:
            raise GroundingError(
                f"cannot put the {name.replace('_', ' ')} {'in' if how == 'inside' else 'on'} itself"
            )
        for (
            rel,
            refs,
        ) in (
            spatial
        ):  # ("near the lemon" of the lemon itself means nothing; "far from" it cannot be planned)
            if name in refs and rel != "at_initial":  # ("leave it where it is" is its own place)
                raise GroundingError(
                    f"cannot put the {_w(name)} {V.RELATION_WORDS.get(rel, rel.replace('_', ' '))} itself; "
                    "name another object"
                )
        existing = [g for g in self.goals if g.obj == name and g.how != "pour"]
        here = [g for g in self.goals[self._clause_goals :] if g.obj == name and g.how != "pour"]
        if (
            here and how is None and support is None
        ):  # "… on the mat, (with) the peach right of the apple"
            state, existing = True, here
        bare = any(x[0].startswith("bare:") for x in spatial)
        if (
            bare and existing and how is None and support is None
        ):  # "the fruit on the mat (the peach to the right)"
            state = True
        if bare:  # "to the right": of the table, or of the support it goes on
            on = existing[-1].support if state and existing and support is None else support
            table = self.scene.table()
            if (
                on not in (None, table)
                and container(self.scene.things[on])
                and (how or "inside") == "inside"
                and not (self._part_said and self._half_holds(name, on))
            ):
                side = next(r[5:] for r, _ in spatial if r.startswith("bare:")).replace("far_", "")
                raise GroundingError(
                    f"the {side} inside the {_w(on)}: the offline grounder puts things in a container, not "
                    f"in one part of it; say 'in the {_w(on)}' alone, or a place on the table; {ADVICE}"
                )
            spatial = [
                (r[5:] if on in (None, table) else V.HALF[r[5:]], ())
                if r.startswith("bare:")
                else (r, refs)
                for r, refs in spatial
            ]
        if state and existing and (support is None or existing[-1].support == support):
            g = existing[-1]  # a constraint on a goal already there
            g.spatial += [s for s in spatial if s not in g.spatial]
            g.upright |= upright
            g.only |= only
            return
        if support is None:
            support = self._default_support(name, spatial)
        if (
            how == "inside"
            and not container(self.scene.things[support])
            and not self._flat(support)
        ):
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
        if (
            name in self._provisional
        ):  # "take the ball out and put it next to the mustard": one placement
            self._provisional.discard(name)
            for g in existing:
                self._clause_goals -= self.goals.index(g) < self._clause_goals
                self.goals.remove(g)
            existing = []
        for g in existing:
            g.final = (
                False  # a later placement of the same object: the earlier one is a step on the way
            )
        self.goals.append(
            Goal(
                name,
                how or "ontop",
                support,
                list(spatial),
                upright,
                True,
                only,
                note=self._chosen.get(name, ""),
            )
        )

    def _fitting(self, toks: list[str], target: str | None) -> list[str]:
        if target is None:
            raise GroundingError(f"'fits' needs a container to fit into; {ADVICE}")
        if not (
            c := self.scene.things[target]
        ).size:  # names only (the direct method's prompt): no sizes to judge a fit by
            raise GroundingError(
                f"what fits inside the {_w(target)} needs the objects' sizes; this prompt gives none; {ADVICE}"
            )
        involved = {g.obj for g in self.goals} | {target}
        cands = [
            n
            for n in self.scene.movable()
            if n not in involved and fits_in(self.scene.things[n], c)
        ]
        if not cands:
            raise GroundingError(f"nothing in the scene fits inside the {target.replace('_', ' ')}")
        cands.sort(key=lambda n: self.scene.things[n].volume)
        return cands if set(toks) & V.QUANT_ALL else cands[:1]


def _w(name: str) -> str:
    return name.replace("_", " ")
