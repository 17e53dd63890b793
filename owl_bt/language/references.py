"""What the phrases of a clause refer to, for the offline grounder's Reader: an object phrase's
objects (superlatives, 'one of', 'a', what "everything" sweeps up, what fits, a place describing
where they are, an ambiguous singular), pronouns ('it' is not several objects), 'it' as a support, a
forward 'it' and the destination a bare phrase after 'after'/'before' shares; "near" a spread group (as
many of it as one place can be near) and the support "between" two things on one plate means."""

from __future__ import annotations

import math

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.counts import WORDS, count_before, is_count, take
from owl_bt.language.mentions import SEPARATORS, Mention, find_mentions
from owl_bt.language.scene_view import (
    container,
    fits_in,
    held_in,
    inside,
    measure,
    near_group,
    resting_on,
)
from owl_bt.language.sequencing import Clause
from owl_bt.language.superlatives import DISTANCE


class References:
    """Mixin of `reading.Reader`: needs its scene, last, last_dest, goals, mentioned, _ments, _nearest,
    _last_about, _located, _fitting_in, _chosen and _clause."""

    def _partner_dest(self, clauses: list[Clause], n: int, dests: dict[int, tuple]) -> tuple | None:
        """The destination (how, support, spatial, upright) of the clause that clause n is attached to by
        'after'/'before' ("put the apple in the bowl after the pear": the bowl), read ahead when that
        clause comes later; None when there is none."""
        p = clauses[n].partner
        if p is None or p < n:
            return dests.get(p) if p is not None else None
        ahead = type(self)(list(self.scene.things.values()))
        ahead.last, ahead.more = list(self.last), True
        try:
            ahead._clause([t for t in clauses[p].toks if t != ","])
        except GroundingError:
            return None
        return ahead.last_dest

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

    # -- one clause -------------------------------------------------------------------------------------------

    def _items(self, names: list[str], named: set[str]) -> list[str]:
        """What "everything", "all the things" or "the red objects" sweep up of `names`: the things, not what
        things are put in or on (containers, dishes, surfaces, markers: V.RECEPTACLES) unless nothing else
        is left, nor what is held in another object (the soup in its can goes along with it), nor an
        object `named` elsewhere in the clause (its destination)."""
        things = self.scene.things
        left = [
            n
            for n in names
            if n not in named
            and not any(
                held_in(things[n], o) and o.volume > things[n].volume
                for o in things.values()
                if o.name != n and not o.fixed
            )
        ]
        return [n for n in left if things[n].category not in V.RECEPTACLES] or left

    def _holder(self, name: str) -> list[str]:
        """What object `name` is in or on now, other than the table ([] when none)."""
        table = self.scene.table()
        return [p for p in self.scene.things if p not in (name, table) and self._at(name, p)][:1]

    def _at(self, name: str, place: str) -> bool:
        """Whether object `name` is on or in `place` now."""
        t, p = (
            self.scene.things[name],
            self.scene.things[place],
        )  # (never in what is smaller: the mug in its ball)
        return name != place and (
            resting_on(t, p) or t.volume < p.volume and (held_in(t, p) or inside(t, p))
        )

    def _described_place(
        self, subject: list[Mention], dest: list, rels: list, toks: list[str]
    ) -> tuple[list, tuple | None]:
        """Of two places after a unit's objects, the first may describe where they are ("put the fruit on the
        plate in the bowl", "move the fruit in the bowl to the plate": those there now) or the second where
        the first is ("put the lemon in the bowl on the table"): (the destinations left, (the subject
        mentions' starts, the place they are described at) or None). Raises GroundingError when neither
        reading fits."""
        places = [(k, refs) for k, refs in dest if rels[k][2] == "support" and refs]
        if len(places) < 2 or not subject:
            return dest, None
        (k0, refs0), (k1, refs1) = places[:2]
        p0, p1 = self._resolve(refs0[0], toks)[0], self._resolve(refs1[0], toks)[0]
        if any(self._at(x, p0) for m in subject for x in m.names):
            return [d for d in dest if d[0] != k0], ({m.start for m in subject}, p0)
        if (
            self._at(p0, p1) or p1 == self.scene.table()
        ):  # everything is on the table (a region too)
            return [d for d in dest if d[0] != k1], None
        said = [" ".join(toks[rels[k][0] : refs[0].end]) for k, refs in places[:2]]
        raise GroundingError(
            f"two places for the same objects: {said[0]!r} and {said[1]!r}; say which one it goes to"
        )

    def _resolve(self, m: Mention, toks: list[str]) -> list[str]:
        """The objects mention m of the clause `toks` means: a distance or size superlative's one, the first
        of a group after 'one of'/'any'/'a', all of a plural, category or quantified group; raises
        GroundingError for a singular phrase that matches several ("the red fruit" with two red fruits)."""
        names = list(m.names)
        if (
            self._located and m.start in self._located[0]
        ):  # "the red fruit on the plate": the one there
            names = [n for n in names if self._at(n, self._located[1])] or names
        if (
            self._fitting_in and m.start in self._fitting_in[0]
        ):  # "the biggest fruit that fits in the mug"
            box = self.scene.things[self._fitting_in[1]]
            names = [n for n in names if fits_in(self.scene.things[n], box)]
            if not names:
                raise GroundingError(
                    f"no {' '.join(toks[m.start : m.end])} fits in the {box.name.replace('_', ' ')}"
                )
        if m.generic:  # "the red things": the red items, not the red bowl they go into
            # … unless only a place fits ("on the grey thing": the light-grey region)
            names = (
                self._items(names, {n for x in self._ments if x is not m for n in x.names}) or names
            )
        if not names:
            raise GroundingError(
                f"which object is {' '.join(toks[m.start : m.end])!r}? nothing in the scene fits it; name it"
            )
        before = toks[max(0, m.start - 3) : m.start]
        if m.start in self._nearest:
            word, refm = self._nearest[m.start]
            pick = V.SUPERLATIVES[word][1]
            if refm is None:  # to the robot: its base, at the world's origin
                return [pick(names, key=lambda n: _from_base(self.scene.things[n].pose))]
            r = self.scene.things[self._resolve(refm, toks)[0]]
            return [
                pick(
                    (n for n in names if n != r.name),
                    key=lambda n: measure(self.scene.things[n], "distance", r),
                )
            ]
        sup_word = next((w for w in before if w in V.SUPERLATIVES and w not in DISTANCE), "")
        sup = V.SUPERLATIVES[sup_word] if sup_word else None
        counted = count_before(toks, m.start)
        if (
            counted is None
            and "both" in before
            and len(names) > 2
            and not set(before) & {"all", "every", "each"}
        ):
            raise GroundingError(
                f"'both {' '.join(toks[m.start : m.end])}' is two, but the scene has {len(names)}: "
                f"{', '.join(n.replace('_', ' ') for n in names)}; say which"
            )
        if counted is not None:  # "two fruits", "one of the cans", "the two biggest fruits"
            if sup is not None:
                names.sort(
                    key=lambda n: measure(self.scene.things[n], sup[0]), reverse=sup[1] is max
                )
            else:  # a physical rule, said in the step text: the nearest the robot's base (at the origin)
                names.sort(key=lambda n: _from_base(self.scene.things[n].pose))
            chosen, note = take(
                names,
                counted[0],
                " ".join(toks[counted[1] : m.end]),
                " ".join(toks[m.start : m.end]),
                sup_word,
            )
            self._chosen.update({n: note for n in chosen if note})
            return chosen
        if sup is not None and len(names) > 1:
            what, pick = sup
            return [pick(names, key=lambda n: measure(self.scene.things[n], what))]
        if len(names) > 1 and m.start > 0 and toks[m.start - 1] in {"a", "an"}:
            return names[:1]  # "a red fruit": any one of them
        if len(names) > 1 and not m.many and not set(before) & (V.QUANT_ALL | V.QUANT_ONE):
            raise GroundingError(_ambiguous(toks, m, names))
        if (
            len(names) > 1
            and set(before) & V.QUANT_ONE - {"a", "an"}
            and not set(before) & V.QUANT_ALL
        ):
            return names[:1]
        return names

    def _pronoun(self, toks: list[str], ments: list[Mention]) -> list[str]:
        """What a pronoun subject names: the objects last moved — but 'it' is not several objects: after "put
        the fork and the knife in the mug", 'it' is the mug (after "the cutlery …", a mass noun, it could
        be either: GroundingError)."""
        if ments or not set(toks) & {"it", "them", "they", "itself", "themselves"}:
            return []
        moved, mass, dest = self._last_about
        if (
            set(toks) & {"it", "itself"}
            and len(self.last) > 1
            and moved is self.last
            and dest
            and dest not in moved
            and not self.scene.things[dest].fixed
        ):
            if mass:
                raise GroundingError(
                    f"'it' could be {mass} or the {dest.replace('_', ' ')}; name one"
                )
            return [dest]
        return list(self.last)

    def _antecedent(self, how: str, moved: list[str], at: int) -> str:
        """What 'it' (token `at` of the clause) names as a support: the last object moved, unless that cannot
        hold the moved ones — then the latest object named before 'it' that can ("take the orange off the mug
        and put the knife in it": the mug)."""
        first = self.last[0] if self.last else self.mentioned[-1]
        fits = (lambda n: container(self.scene.things[n])) if how == "inside" else (lambda n: True)
        if first not in moved and fits(first):
            return first
        before = self.mentioned + [n for m in self._ments if m.start < at for n in m.names]
        return next((n for n in reversed(before) if n not in moved and fits(n)), first)

    def _check_words(
        self,
        toks: list[str],
        covered: set[int],
        allowed: set[str] = frozenset(),
        liquids_ok: bool = False,
    ) -> None:
        # (a manner verb — "cook", "tidy" — only as the head of "… by putting …": alone it says no placement)
        vocab = (
            V.FILLER
            | V.COLOURS
            | V.LOCATION_WORDS
            | V.DESCRIBING
            | V.QUANT_ALL
            | V.QUANT_ONE
            | V.END_WORDS
            | V.FINAL_ONLY
            | set(V.SUPERLATIVES)
            | V.SETUP
            | allowed
        )
        self._check_colours(toks, covered)
        for i, t in enumerate(toks):
            if i in covered or t in SEPARATORS or t == ",":
                continue
            w = V.singular(t)
            if liquids_ok and t in V.LIQUIDS:
                continue
            if w in V.KNOWN_NOUNS or w in V.ONTOLOGY or t in V.SYNONYMS or w in V.MARKER_NOUNS:
                self.absent.append(w)
            elif (
                t in WORDS or t.isdigit()
            ) and t not in vocab:  # "two fruits": a count of the phrase after it
                if not is_count(toks, i, {m.start for m in find_mentions(toks, self.scene, set())}):
                    self.unknown.append(t)
            elif t not in vocab and w not in vocab:
                self.unknown.append(t)

    def _check_colours(self, toks: list[str], covered: set[int]) -> None:
        """A colour word left over before an object phrase is one the object does not have ("the dark-grey
        region" for the light-grey one, "the blue bowl" for the white one): GroundingError naming the
        colour it has (passed over, the run would claim success for another object)."""
        starts = {m.start: m for m in find_mentions(toks, self.scene, set())}
        for i, t in enumerate(toks):
            if i in covered or t not in V.COLOURS:
                continue
            k = i + 1  # the phrase may start within the colours ("dark grey region": at "grey")
            while k < len(toks) and k not in starts and toks[k] in V.COLOURS:
                k += 1
            m = starts.get(k)
            colours = {n: self.scene.things[n].colour for n in m.names} if m else {}
            if (
                not colours
                or "" in colours.values()
                or any(_same_colour(t, c) for c in colours.values())
            ):
                continue
            phrase = " ".join(toks[i : m.end])
            told = {n.replace("_", " "): c.replace("_", " ") for n, c in colours.items()}
            if len(told) == 1:
                ((name, colour),) = told.items()
                raise GroundingError(
                    f"'{phrase}': none is {t} here — the {name} is {colour}; leave the colour out or name "
                    "another object"
                )
            said = ", ".join(f"the {n} is {c}" for n, c in told.items())
            raise GroundingError(
                f"'{phrase}': none is {t} here ({said}); leave the colour out or name another object"
            )

    def _near_most(self, names: list[str], moved: list[str], named: bool = False) -> list[str]:
        """Near a spread group ("near where the other fruit are"): as many of them as one place can be near,
        the others named in the moved objects' notes. `named`: each was named ("near the apple and the pear"),
        so none is dropped: GroundingError when no one place is near them all."""
        kept = near_group(
            [self.scene.things[x] for x in names],
            self.scene.things.get(moved[0]) if moved else None,
        )
        if len(kept) < len(names) and named:  # (never drop one silently and claim success)
            raise GroundingError(
                f"no one place is near {_listed(names)}: they stand too far apart; name fewer, or say "
                f"'near the {kept[0].replace('_', ' ')}'"
            )
        if len(kept) < len(names):
            far = [x for x in names if x not in kept]
            why = (
                f"{_listed(far)} {'are' if len(far) > 1 else 'is'} too far from {_listed(kept)} for one place near "
                "them all"
            )
            for x in moved:
                self._chosen[x] = "; ".join(filter(None, (self._chosen.get(x), why)))
        return kept

    def _default_support(self, name: str, spatial) -> str:
        """The table; or, for "between" two things that both end on the same other surface (a plate, a mat —
        not a container), that surface: the stretch between them is on it (a plum "between" a lemon and
        an orange on the plate goes on the plate, not on the table)."""
        table = self.scene.table()
        if table is None:
            raise GroundingError(f"no surface to put the {name.replace('_', ' ')} on; say where")
        for rel, refs in spatial:
            if rel == "between":
                ends = {self._ends_on(r) for r in refs}
                if (
                    len(ends) == 1
                    and (on := ends.pop()) not in (None, table)
                    and not container(self.scene.things[on])
                ):
                    return on
        return table

    def _ends_on(self, name: str) -> str | None:
        """What `name` rests on at the end: its last goal's support so far, else what holds it now (None: the table
        or nothing)."""
        goal = next((g for g in reversed(self.goals) if g.obj == name and g.how == "ontop"), None)
        if goal is not None:
            return goal.support
        return (
            next(iter(self._holder(name)), None)
            if not any(g.obj == name for g in self.goals)
            else None
        )


def _from_base(pose: tuple | None) -> float:
    """How far (metres, on the table's plane) a pose is from the robot's base at the origin; inf with no pose."""
    return math.hypot(pose[0], pose[1]) if pose else math.inf


def _ambiguous(toks: list[str], m: Mention, names: list[str]) -> str:
    """ "'the red fruit' could be the apple or the strawberry; name one": the one-line reason for a singular
    phrase that matches several objects (the grounder does not pick one for the person)."""
    start = m.start - (m.start > 0 and toks[m.start - 1] in {"the", "this", "that"})
    names = [f"the {n.replace('_', ' ')}" for n in names]
    which = ", ".join(names[:-1]) + " or " + names[-1]
    return f"{' '.join(toks[start : m.end])!r} could be {which}; name one"


def _listed(names: list[str]) -> str:
    """'the apple', 'the apple and the pear', 'the apple, the pear and the plum'."""
    words = [f"the {x.replace('_', ' ')}" for x in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _same_colour(word: str, colour: str) -> bool:
    """Whether a colour word fits a colour name ('red' fits 'dark_red'; 'gray' is 'grey')."""
    norm = {"gray": "grey", "gold": "golden"}
    return norm.get(word, word) in {norm.get(c, c) for c in colour.split("_")}
