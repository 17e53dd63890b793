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
from owl_bt.language.clause_kinds import SpecialClauses
from owl_bt.language.complements import resolve_complements
from owl_bt.language.discourse import ClauseFrame, Discourse
from owl_bt.language.ellipsis import resolve_ellipsis
from owl_bt.language.feasibility import refuse_infeasible
from owl_bt.language.goal_book import GoalBook, flat
from owl_bt.language.goals import ADVICE, Reading
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
from owl_bt.language.references import Resolver
from owl_bt.language.relations import RelationReader
from owl_bt.language.scene_view import Thing, container, fits_in, measure
from owl_bt.language.sequencing import Clause, split_clauses, unit_ranks
from owl_bt.language.stages import normalise, refuse_early
from owl_bt.language.suggest import did_you_mean
from owl_bt.language.suggest import phrase as suggestion
from owl_bt.language.superlatives import DISTANCE

PART_WORDS = re.compile(r"\b(half|corner|part)\b")


class Reader:
    """Reads an instruction against the scene: `read()` → Reading, or GroundingError /
    UnknownObjectError / ImpossibleGoal with a one-line reason.

    One Reader reads one instruction. Its state is `said` (what the clauses read so far
    established) and `frame` (the clause being read; `owl_bt.language.discourse`); its parts — the
    references (`refs`), the relations (`rels`), the goal book (`book`) and the clauses that are not
    placements (`kinds`) — share these two and nothing else.
    """

    def __init__(self, things: list[Thing]) -> None:
        self.scene = SceneAliases(things)
        self.said = Discourse()
        self.frame = ClauseFrame()
        self.refs = Resolver(self.scene, self.said, self.frame)
        self.rels = RelationReader(self.scene, self.said, self.frame)
        self.book = GoalBook(self.scene, self.said, self.frame)
        self.kinds = SpecialClauses(self.scene, self.said, self.refs, self.rels, self.book)

    def read(self, instruction: str) -> Reading:
        """The goals `instruction` asks for over this Reader's scene (call once per Reader)."""
        said = self.said
        toks = resolve_complements(normalise(instruction), self.scene)  # "… that isn't dairy"
        # "the front half of the pan": a part said in full (normalise reads it "in the pan, to the
        # front"), not a bare "to the left", which could be where the pan is
        said.part_said = bool(PART_WORDS.search(instruction.lower()))
        refuse_early(toks)
        toks = resolve_ellipsis(toks, self.scene)  # "the other two", "the yellow and green ones"
        stack = said_stack(toks, self.scene)  # "stack the blocks: red at the bottom, then …"
        if stack is not None:
            for p in stack:
                self.book.add(p.obj, p.how, p.support, list(p.spatial), False, False, False)
            return Reading(said.goals, said.upright_needed)
        clauses = split_clauses(toks)
        dests: dict[int, tuple] = {}  # clause index → the destination it set
        for n, clause in enumerate(c.toks for c in clauses):
            more = n + 1 < len(clauses)
            if not said.last and more and set(clause) & {"it", "them"}:
                said.last = self._forward(clause, clauses[n + 1].toks)
            gap = self._partner_dest(clauses, n, dests)
            self.frame.start(
                more,
                clauses[n + 1].toks if more else [],
                len(said.goals),
                gap,
                clauses[n].dangling and gap is not None,
            )
            dest_before = said.last_dest
            clause, how_lying = take_orientation(clause)  # "straight", "bowl facing away"
            self.frame.oriented = bool(how_lying)
            try:
                self._read_clause([t for t in clause if t != ","], clauses)
                if how_lying:
                    orient_goals(
                        said.goals[self.frame.goals_before :], how_lying, self.scene.things
                    )
                said.mentioned += self.frame.named
                if said.last_dest is not dest_before:
                    dests[n] = said.last_dest
            except GroundingError:
                if not (said.absent or said.unknown):
                    raise
                break  # a word it did not know is the better reason
        if said.absent:
            raise UnknownObjectError(said.absent[0], sorted(self.scene.things))
        if said.unknown:
            scene_words = {w for alias in self.scene.aliases for w in alias}
            words = ", ".join(
                repr(u) + suggestion(did_you_mean(u, scene_words))
                for u in dict.fromkeys(said.unknown)
            )
            raise GroundingError(f"the offline grounder did not understand: {words}; {ADVICE}")
        if not said.goals and not said.upright_needed:
            raise GroundingError(
                f"the instruction asks for no placement the offline grounder can see; {ADVICE}"
            )
        self.book.settle()
        self.book.refuse_taken_places()
        refuse_infeasible(said.goals, self.scene.things)  # the bin cannot be picked up
        return Reading(said.goals, said.upright_needed)

    def _read_clause(self, toks: list[str], clauses: list[Clause]) -> None:
        """Read one clause (the frame started); when it names nothing to move and the next clause
        does ("…, first on the plate", read first), read it again as about what the next one moves."""
        try:
            self._clause(toks)
        except GroundingError as exc:
            if (
                self.said.last
                or not self.frame.more
                or not str(exc).startswith("cannot tell what to move")
            ):
                raise
            self.said.last = self._forward([], self.frame.next)
            del self.said.goals[self.frame.goals_before :]
            self.frame.named = []
            self._clause(toks)

    def _partner_dest(self, clauses: list[Clause], n: int, dests: dict[int, tuple]) -> tuple | None:
        """The destination (how, support, spatial, upright) of the clause that clause n is attached to by
        'after'/'before' ("put the apple in the bowl after the pear": the bowl), read ahead when that
        clause comes later; None when there is none."""
        p = clauses[n].partner
        if p is None or p < n:
            return dests.get(p) if p is not None else None
        ahead = Reader(list(self.scene.things.values()))
        ahead.said.last, ahead.frame.more = list(self.said.last), True
        try:
            ahead._clause([t for t in clauses[p].toks if t != ","])
        except GroundingError:
            return None
        return ahead.said.last_dest

    def _forward(self, clause: list[str], nxt: list[str]) -> list[str]:
        """What 'it' names in a clause with nothing before it ("after standing it upright" read first): an object
        of the next clause — for standing up or turning, one that can be stood up (a container)."""
        names = [
            n
            for m in find_mentions(nxt, self.scene, set())
            for n in m.names
            if not self.scene.things[n].fixed
        ]
        if set(clause) & (V.SETUP | V.TURN | set(V.ORIENTATION)) or "standing" in clause:
            return ([n for n in names if container(self.scene.things[n])] or names)[-1:]
        return names[
            :1
        ]  # "after putting it in the pan, put the strawberry …": what the next clause moves

    def _clause(self, toks: list[str]) -> None:
        text = " ".join(toks)
        for o in V.INTENT_OPENERS:
            if text.startswith(o):
                return self.kinds.intention(toks)
            if (
                f" {o} " in f" {text} "
            ):  # "set up the cup so I can pour": the request, then the intention
                k = len(text[: text.index(f" {o} " if f" {o} " in text else o)].split())
                self._clause(toks[:k])
                return self.kinds.intention(toks[k:])
        toks = line_up(toks)
        if self._arrangement(toks):  # matching, orderings, swaps: one rule over several objects
            return None
        k = verb_at(toks)
        if k is not None and "by" not in toks:  # "sauté the mushroom": in the cookware
            if not any(r[2] != "source" for r in self.rels.relations(toks)[1]):
                implied = implied_placement(toks, k, self.scene)
                if implied.tool:
                    self.said.chosen[implied.tool] = implied.note
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
                    self.said.last = [n for m in head for n in m.names]
                self.refs.check_words(
                    toks[:k], {i for m in head for i in range(m.start, m.end)}, allowed=V.BY_FORMS
                )
                toks = toks[k + 1 :]
        pour = next((i for i, t in enumerate(toks) if t in V.POUR_FORMS), None)
        if pour is not None:
            return self.kinds.pour(toks, pour)
        if (
            toks
            and (toks[0] in V.DISCARD or " ".join(toks[:2]) == "throw away")
            or "throw away" in " ".join(toks)
        ):
            return self.kinds.discard(toks)
        if toks and toks[0] in {"remove", "clear"}:
            return self.kinds.remove(toks)
        self._placement(toks)

    def _arrangement(self, toks: list[str]) -> bool:
        """Read the clause as a swap, a match by attribute or an ordering when it is one (goals made);
        False when it is none of them."""
        pair = swap(toks, self.scene)
        if pair is not None:
            table = self.scene.table()
            # first out of the way (far from the other's place), then each where the other was, on or
            # in what held it
            self.book.add(pair[0], "ontop", table, [("apart", (pair[1],))], False, False, False)
            for a, b in (pair[::-1], pair):
                was = self.scene.holder(b)
                how = "inside" if was and container(self.scene.things[was[0]]) else "ontop"
                spatial = [("at_initial", (b,))]
                self.book.add(a, how, was[0] if was else table, spatial, False, False, False)
            self.said.last = list(pair)
            self.frame.named += self.said.last
            return True
        placements = (
            respectively(toks, self.scene)
            or matching(toks, self.scene)
            or ordering(toks, self.scene)
        )
        if placements is None:
            return False
        for p in placements:
            self.book.add(p.obj, p.how, p.support, list(p.spatial), False, False, False)
        self.said.last = [p.obj for p in placements]
        self.frame.named += self.said.last
        return True

    def _placement(self, toks: list[str]) -> None:
        """An action or state clause: one or more units 'objects + relations' ("put the apple into
        the bowl, the lemon onto the plate"); a unit with no relation of its own reuses the one
        before it ("… on the plate, then the lime"); a pick verb with no destination only says what
        the next clause moves ("pick up the apple and put it in the bowl")."""
        ments, rels, covered = self.rels.relations(toks)
        excluded = self.rels.excluded(toks, ments)
        least = self.rels.excepted_superlative(toks, excluded)  # "… except the biggest one"
        left_out = {x for m in excluded for x in m.names}
        ments = [m for m in ments if m not in excluded]
        units = self.rels.units(ments, rels, toks)
        clause = parse_placement(toks, ments, rels)
        state, only, verb = clause.state, clause.only, clause.verb
        first_rel, generic = clause.first_rel, clause.generic
        self.rels.ruled_out_places(
            toks, excluded, {x for m in ments if m.start < first_rel for x in m.names}
        )
        self.refs.check_words(toks, covered, allowed=placement_words(rels))
        if verb in V.TURN and not any(r[2] == "orient" for r in rels) and not self.frame.oriented:
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
            dest, self.frame.located = self.refs.described_place(
                subject, dest, rels, toks
            )  # "the fruit on the plate"
            gap, there = self.frame.gap or self.said.last_dest, "there" in toks and n == 0
            moved = self._gapped(clause, toks, n, subject, dest, gap, there)
            if moved:  # gapping: "… on the plate, then the lime", "… in the bowl after the pear", "put it there"
                how, ref, spatial, upright = gap
                for name in moved:  # "leave it there": where the last clause put it
                    self.book.add(
                        name,
                        how,
                        ref,
                        spatial,
                        upright,
                        only,
                        state or verb in {"leave", "keep"},
                    )
                self.said.last = moved
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
                and not self.said.last
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
            self.frame.fitting_in = (
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
            if (clause.verb in V.KEEP_VERBS and n == 0) or _kept(toks, subject):
                for name in moved:  # "… but keep the lime on the table": it never goes
                    self.book.withdraw(name)
            how = self._place(clause, toks, moved, dest, place, source, upright, table)
            support_ref, spatial = place.support, place.spatial
            if out:
                self.said.provisional |= set(moved)
            if dest or support_ref:
                self.said.last_dest = (how, support_ref, spatial, upright)
            self.said.last = moved
            self.said.last_about = (
                moved,
                mass_phrase(toks, subject),
                support_ref if dest or support_ref else None,
            )
        # "put the apple on the plate last and the lemon first": the lemon first
        rank = object_ranks([subject for subject, _ in units], unit_ranks(toks, starts))
        self.said.goals[self.frame.goals_before :] = sorted(
            self.said.goals[self.frame.goals_before :], key=lambda g: rank.get(g.obj, 1)
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
        source = [x for refs in sources for m in refs for x in self.refs.resolve(m, toks)]
        # "pick the apple up off the board" (nothing after it): it ends in the hand, not put down
        kept = clause.verb in V.HOLD_VERBS and not self.frame.more
        out = (
            not dest
            and clause.verb in V.PICK_VERBS
            and not kept
            and bool(source or set(toks) & {"out", "off"} and self._holder_now(moved[0]))
        )
        if (
            out and not source
        ):  # "take the ball out (, then …)": out of what it is in now, unless a later clause
            source = self._holder_now(moved[0])  # says where ("… and put it next to the mustard")
        return source, out

    def _holder_now(self, name: str) -> list[str]:
        """What `name` is in or on by now: the support of its last goal so far ("put the apple in
        the bowl, then take it out": the bowl), else what holds it in the scene; [] for the table
        or nothing."""
        goal = next(
            (
                g
                for g in reversed(self.said.goals)
                if g.obj == name and g.how in ("inside", "ontop")
            ),
            None,
        )
        if goal is None:
            return self.scene.holder(name)
        return [] if goal.support == self.scene.table() else [goal.support]

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
            self.frame.more
            and clause.verb in V.ACTION_FORMS
            and bool(set(self.frame.next) & {"it", "them"})
        )  # "move X, then put it …"
        if (
            not dest
            and (clause.verb in V.PICK_VERBS or then_it)
            and not clause.upright_verb
            and not out
        ):
            if self.frame.more:
                # "pick up the apple (from the plate) and put it …": the next clause says where
                if not self._said_again(moved):
                    raise GroundingError(
                        f"the robot has one hand: it would still hold the "
                        f"{' and the '.join(_w(x) for x in moved)} for what follows; say where "
                        f"{'it goes' if len(moved) == 1 else 'they go'} first"
                    )
                self.said.last = moved
                return True
            # "pick up the apple", "hold the lemon", "lift the apple off the board": in the hand
            if not source or clause.verb in V.HOLD_VERBS:
                self.book.hold(moved)
                self.said.last = moved
                self.frame.named += [x for x in moved if x not in self.frame.named]
                return True
        return False

    def _said_again(self, moved: list[str]) -> bool:
        """Does the next clause speak of `moved` again ('it', 'them', or one of them by name)?"""
        nxt = self.frame.next
        if set(nxt) & {"it", "them", "they", "both", "each"}:
            return True
        return any(x in moved for m in find_mentions(nxt, self.scene, set()) for x in m.names)

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
            self.rels.ask_where(
                toks,
                moved,
                dest,
                support_ref,
                spatial,
                upright or clause.upright_verb or self.frame.oriented,
                state,
            )
        if how == "inside" and support_ref and flat(self.scene.things[support_ref]):
            how = "ontop"  # "in the middle of the plate", "in the region": on it
        for name in moved:
            if implied == "back":  # on or in what held it at the start, where it was
                self._put_back(name, upright, only, state, table)
                continue
            self.book.add(name, how, support_ref, spatial, upright, only, state)
        return how

    def _put_back(
        self, name: str, upright: bool, only: bool, state: bool, table: str | None
    ) -> None:
        """The goal of `name` back where it was, on or in what held it at the start (the table
        when nothing did)."""
        was = self.scene.holder(name) or [table or self.book.default_support(name, [])]
        how = (
            "inside"
            if container(self.scene.things[was[0]]) and self.scene.holder(name)
            else "ontop"
        )
        self.book.add(name, how, was[0], [("at_initial", (name,))], upright, only, state)

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
            and (n > 0 or clause.verb is None or there or self.frame.borrow)
            and gap
        ):
            return [x for m in subject for x in self.refs.resolve(m, toks)] or (
                self.refs.pronoun(toks, subject) if there else []
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
        held = [x for refs in sources for m in refs for x in self.refs.resolve(m, toks)][:1]
        if (
            held and len(moved) > 1
        ):  # "take everything off the plate", "the fruit out of the bowl": what is there
            moved = [x for x in moved if self.scene.at(x, held[0])] or moved
        if least and n == 0 and len(moved) > 1:
            what, pick = V.SUPERLATIVES[least]
            moved.remove(pick(moved, key=lambda x: measure(self.scene.things[x], what)))
        if not moved:
            raise GroundingError(f"cannot tell what to move in {' '.join(toks)!r}; {ADVICE}")
        return moved

    def _support(self, toks: list[str], rels: list, dest: list) -> tuple[tuple | None, str | None]:
        """The support relation among a unit's destinations `dest` ((relation index, reference
        mentions)), not a bare "to": the first with a reference, else the first (("inside" |
        "ontop", its mentions) or None), and the object its reference means (None without one).
        Raises GroundingError for a reference that means several places ("in the cups")."""
        sup = [
            (rels[k][3], refs) for k, refs in dest if rels[k][2] == "support" and rels[k][3] != "to"
        ]
        support_rel = next((x for x in sup if x[1]), sup[0] if sup else None)
        if not support_rel or not support_rel[1]:
            return support_rel, None
        m = support_rel[1][0]
        places = self.refs.resolve(m, toks)
        if len(places) > 1:  # "put the balls in the cups": which in which is not said
            which = " or ".join(f"the {_w(x)}" for x in places)
            raise GroundingError(
                f"{' '.join(toks[m.start : m.end])!r} are {len(places)} places ({which}); say which "
                f"goes where, or e.g. 'each ball into the cup of its own colour'"
            )
        return support_rel, places[0]

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
            pool = self.refs.items(self.scene.movable(), named)
            # "put the biggest thing on the board": of the things not on the board already
            away = [x for x in pool if not (support_ref and self.scene.at(x, support_ref))]
            moved = [pick(away or pool, key=lambda x: measure(self.scene.things[x], what))]
        elif (
            generic and (not subject or everything) and n == 0 and not set(toks) & V.FITS
        ):  # "all the things"
            if not set(toks[:first_rel]) & (V.QUANT_ALL | {"everything"}):  # not "the thing"
                raise GroundingError(
                    f"which objects? {' '.join(toks)!r}; name them or their kind; {ADVICE}"
                )
            own = {
                x for m in subject for x in self.refs.resolve(m, toks)
            }  # "everything and the bowl"
            items = set(
                self.refs.items(self.scene.movable(), {x for m in ments for x in m.names} - own)
            )
            moved = [x for x in self.scene.movable() if x in own | items]
        elif generic and not subject and n == 0:  # "whatever object that fits inside of it"
            target = support_ref or (self.said.last[0] if self.said.last else None)
            moved = self._fitting(toks, target)
            if support_ref is None and target is not None:
                support_rel, support_ref = ("inside", []), target
        else:
            moved = [x for m in subject for x in self.refs.resolve(m, toks)] or (
                self.refs.pronoun(toks[:first_rel], subject) if n == 0 else []
            )
        if (
            not moved
            and self.said.last
            and n == 0
            and (support_rel is not None or set(toks) & {"it", "itself", "them"})
        ):
            moved = list(self.said.last)  # "… and then in the bowl": the same object(s)
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
            and self.said.last
            and set(toks[first_rel:]) & {"it", "them", "itself"}
        ):
            at = next(i for i in range(first_rel, len(toks)) if toks[i] in {"it", "them", "itself"})
            support_ref = self.refs.antecedent(support_rel[0], moved, at)  # "inside of it"
        elif support_rel and not support_rel[1] and self.said.mentioned and toks[-1] in V.SUPPORT:
            support_ref = self.refs.antecedent(
                support_rel[0], moved, len(toks)
            )  # "…, then put the fork in"
        elif (
            support_rel
            and not support_rel[1]
            and set(toks[first_rel:]) & {"it", "itself"}
            and any(r is not None for _w2, r in self.frame.nearest.values())
        ):
            # "put the fruit nearest the plate onto it": the object the superlative was said of
            ref = next(r for _w2, r in self.frame.nearest.values() if r is not None)
            support_ref = self.refs.resolve(ref, toks)[0]
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
        names = [x for m in refs for x in self.refs.resolve(m, toks)]
        names = [
            x for x in names if x not in moved
        ] or names  # "the lemon behind all the fruit": not itself
        if (
            r == "at_initial" and not names
        ):  # "where it was": the last object's place; "(put it) back
            own = set(toks) & V.OWN_PLACE  # / leave it where it is": its own
            names = moved if own else [x for x in self.said.last if x not in moved] or moved
        said = [x for kk, rr in dest if kk < k for m in rr for x in m.names if x not in moved]
        if not names and set(toks[e : e + 2]) & {"it", "them"} and said:
            names = said[
                -1:
            ]  # "the fork right of the spoon and aligned with it": this unit's last reference
        elif (
            not names
            and set(toks[e : e + 2]) & {"it"}
            and n > 0
            and (side := opposite_landmark(r, self.said.last_dest))
        ):
            names = [side]  # "the fork left of the plate and the knife right of it": the plate
        elif (
            not names
            and (set(toks[e : e + 2]) & {"it", "them"} or "its" in toks[s:e])
            and self.said.last
        ):
            names = [x for x in self.said.last if x not in moved]  # "… (then) the plate next to it"
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
                t = self.scene.things[self.refs.resolve(refs[0], toks)[0]]
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
                    ends = next((g for g in reversed(self.said.goals) if g.obj == names[0]), None)
                    if ends is not None and support_rel is None and how is None:
                        how, support_ref = ends.how, ends.support
                if r == "near" and not now and support_rel is None and how is None:
                    # "put the blue block on the tray, then the green block next to it": on the
                    # tray too, where the block it goes beside was just put (not on a plate: "the
                    # spoon next to the egg" on a plate lies beside the plate)
                    ends = next((g for g in reversed(self.said.goals) if g.obj == names[0]), None)
                    table = self.scene.table()
                    if (
                        ends is not None
                        and ends.how == "ontop"
                        and ends.support != table
                        and flat(self.scene.things[ends.support])
                        and self.scene.things[ends.support].category not in V.ONTOLOGY["dish"]
                    ):
                        how, support_ref = "ontop", ends.support
                if r in ("at_initial", "near") and support_rel is None and how is None:
                    held = self.scene.holder(
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
                        names = self.refs.near_most(
                            names, moved, named=not any(m.many for m in refs)
                        )
                    if r == "aligned" and len(names) > 1:  # one line through two things: rarely one
                        raise GroundingError(
                            f"in line with {' and '.join(f'the {_w(x)}' for x in names)}: the "
                            f"offline grounder lines a thing up with one other; name one"
                        )
                    spatial += [(r, (x,)) for x in names]
            elif kind == "absolute":
                spatial.append(self._side(self.rels.absolute(r, s, spatial)))
            if (
                kind == "support"
                and s in self.frame.centred
                and refs
                and self.refs.resolve(refs[0], toks)[0] == support_ref
            ):
                spatial.append(
                    ("middle", ())
                )  # centred on the support (not on "the region in the middle of …")
        if how is None and support_rel:
            how = support_rel[0]
        return Destination(how, support_ref, spatial)

    def _side(self, entry: tuple[str, tuple[str, ...]]) -> tuple[str, tuple[str, ...]]:
        """A bare direction ("bare:far_right") right after a unit put its object on the opposite
        side of a landmark is that landmark's other side ("the fork left of the plate and the knife
        to the right": right of the plate, not the table's right edge); any other entry as it is."""
        if not entry[0].startswith("bare:"):
            return entry
        side = V.DIRECTION[entry[0][5:]]
        landmark = opposite_landmark(side, self.said.last_dest)
        return (side, (landmark,)) if landmark is not None else entry

    def _fitting(self, toks: list[str], target: str | None) -> list[str]:
        if target is None:
            raise GroundingError(f"'fits' needs a container to fit into; {ADVICE}")
        if not (
            c := self.scene.things[target]
        ).size:  # names only (the direct method's prompt): no sizes to judge a fit by
            raise GroundingError(
                f"what fits inside the {_w(target)} needs the objects' sizes; this prompt gives none; {ADVICE}"
            )
        involved = {g.obj for g in self.said.goals} | {target}
        cands = [
            n
            for n in self.scene.movable()
            if n not in involved and fits_in(self.scene.things[n], c)
        ]
        if not cands:
            raise GroundingError(f"nothing in the scene fits inside the {target.replace('_', ' ')}")
        cands.sort(key=lambda n: self.scene.things[n].volume)
        return cands if set(toks) & V.QUANT_ALL else cands[:1]


def _kept(toks: list[str], subject: list[Mention]) -> bool:
    """Is a unit's subject said after a keep verb ("…, but keep the lime on the table")?"""
    if not subject:
        return False
    i = subject[0].start - 1
    while i >= 0 and toks[i] in {"the", "a", "an", "this", "that"}:
        i -= 1
    return i >= 0 and toks[i] in V.KEEP_VERBS


def _w(name: str) -> str:
    return name.replace("_", " ")
