"""What the phrases of a clause refer to, for the offline grounder's Reader: an object phrase's
objects (superlatives, 'one of', 'a', what "everything" sweeps up, what fits, a place describing
where they are, an ambiguous singular), pronouns ('it' is not several objects), 'it' as a support,
"near" a spread group (as many of it as one place can be near), and the words of a clause the
grounder does not know (named, never guessed at)."""

from __future__ import annotations

import math

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.counts import WORDS, count_before, is_count, take
from owl_bt.language.discourse import ClauseFrame, Discourse
from owl_bt.language.mentions import SEPARATORS, Mention, SceneAliases, find_mentions
from owl_bt.language.scene_view import (
    Thing,
    container,
    fits_in,
    held_in,
    measure,
    near_group,
)
from owl_bt.language.superlatives import DISTANCE


class Resolver:
    """What the object phrases of the clause being read refer to, and the words it does not know.

    Reads `said.last`, `said.last_about`, `said.mentioned` (antecedents), `frame.ments`,
    `frame.nearest`, `frame.located`, `frame.fitting_in` (the clause's mentions and what narrows
    them); adds to `said.chosen` (why a counted or near object was chosen) and to `said.unknown` /
    `said.absent` (words not understood, objects not in the scene).
    """

    def __init__(self, scene: SceneAliases, said: Discourse, frame: ClauseFrame) -> None:
        self.scene = scene
        self.said = said
        self.frame = frame

    def items(self, names: list[str], named: set[str]) -> list[str]:
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

    def described_place(
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
        p0, p1 = self.resolve(refs0[0], toks)[0], self.resolve(refs1[0], toks)[0]
        if any(self.scene.at(x, p0) for m in subject for x in m.names):
            return [d for d in dest if d[0] != k0], ({m.start for m in subject}, p0)
        if (
            self.scene.at(p0, p1) or p1 == self.scene.table()
        ):  # everything is on the table (a region too)
            return [d for d in dest if d[0] != k1], None
        said = [" ".join(toks[rels[k][0] : refs[0].end]) for k, refs in places[:2]]
        raise GroundingError(
            f"two places for the same objects: {said[0]!r} and {said[1]!r}; say which one it goes to"
        )

    def resolve(self, m: Mention, toks: list[str]) -> list[str]:
        """The objects mention m of the clause `toks` means: a distance or size superlative's one, the first
        of a group after 'one of'/'any'/'a', all of a plural, category or quantified group; raises
        GroundingError for a singular phrase that matches several ("the red fruit" with two red fruits)."""
        names = list(m.names)
        if (
            self.frame.located and m.start in self.frame.located[0]
        ):  # "the red fruit on the plate": the one there
            names = [n for n in names if self.scene.at(n, self.frame.located[1])] or names
        if (
            self.frame.fitting_in and m.start in self.frame.fitting_in[0]
        ):  # "the biggest fruit that fits in the mug"
            box = self.scene.things[self.frame.fitting_in[1]]
            names = [n for n in names if fits_in(self.scene.things[n], box)]
            if not names:
                raise GroundingError(
                    f"no {' '.join(toks[m.start : m.end])} fits in the {box.name.replace('_', ' ')}"
                )
        if m.generic:  # "the red things": the red items, not the red bowl they go into
            # … unless only a place fits ("on the grey thing": the light-grey region)
            names = (
                self.items(names, {n for x in self.frame.ments if x is not m for n in x.names})
                or names
            )
        if not names:
            raise GroundingError(
                f"which object is {' '.join(toks[m.start : m.end])!r}? nothing in the scene fits it; name it"
            )
        before = toks[max(0, m.start - 3) : m.start]
        if m.start in self.frame.nearest:
            word, refm = self.frame.nearest[m.start]
            pick = V.SUPERLATIVES[word][1]
            if refm is None:  # to the robot: its base, at the world's origin
                return [pick(names, key=lambda n: _from_base(self.scene.things[n].pose))]
            r = self.scene.things[self.resolve(refm, toks)[0]]
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
            self.said.chosen.update({n: note for n in chosen if note})
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

    def pronoun(self, toks: list[str], ments: list[Mention]) -> list[str]:
        """What a pronoun subject names: the objects last moved — but 'it' is not several objects: after "put
        the fork and the knife in the mug", 'it' is the mug (after "the cutlery …", a mass noun, it could
        be either: GroundingError)."""
        if ments or not set(toks) & {"it", "them", "they", "itself", "themselves"}:
            return []
        moved, mass, dest = self.said.last_about
        if (
            set(toks) & {"it", "itself"}
            and len(self.said.last) > 1
            and moved is self.said.last
            and dest
            and dest not in moved
            and not self.scene.things[dest].fixed
        ):
            if mass:
                raise GroundingError(
                    f"'it' could be {mass} or the {dest.replace('_', ' ')}; name one"
                )
            return [dest]
        return list(self.said.last)

    def antecedent(self, how: str, moved: list[str], at: int) -> str:
        """What 'it' (token `at` of the clause) names as a support: the last object moved, unless that cannot
        hold the moved ones — then the latest object named before 'it' that can ("take the orange off the mug
        and put the knife in it": the mug; "put the orange on the plate and the apple on it": the plate,
        as nothing stays on a round fruit)."""
        first = self.said.last[0] if self.said.last else self.said.mentioned[-1]
        holds = container if how == "inside" else carries
        if first not in moved and holds(self.scene.things[first]):
            return first
        before = self.said.mentioned + [
            n for m in self.frame.ments if m.start < at for n in m.names
        ]
        return next(
            (n for n in reversed(before) if n not in moved and holds(self.scene.things[n])), first
        )

    def check_words(
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
        self.check_colours(toks, covered)
        for i, t in enumerate(toks):
            if i in covered or t in SEPARATORS or t == ",":
                continue
            w = V.singular(t)
            if liquids_ok and t in V.LIQUIDS:
                continue
            if w in V.KNOWN_NOUNS or w in V.ONTOLOGY or t in V.SYNONYMS or w in V.MARKER_NOUNS:
                self.said.absent.append(w)
            elif (
                t in WORDS or t.isdigit()
            ) and t not in vocab:  # "two fruits": a count of the phrase after it
                if not is_count(toks, i, {m.start for m in find_mentions(toks, self.scene, set())}):
                    self.said.unknown.append(t)
            elif t not in vocab and w not in vocab:
                self.said.unknown.append(t)

    def check_colours(self, toks: list[str], covered: set[int]) -> None:
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

    def near_most(self, names: list[str], moved: list[str], named: bool = False) -> list[str]:
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
                self.said.chosen[x] = "; ".join(filter(None, (self.said.chosen.get(x), why)))
        return kept


def carries(t: Thing) -> bool:
    """Can something be set on top of `t`? A surface, or a thing with a flat top (a block, a box, a
    can; any shape when the prompt gives none); not produce (fruit and vegetables are round or
    lumpy) nor a round or odd-shaped thing (a ball, a mug, a fork)."""
    if t.fixed or t.category in V.ONTOLOGY["surface"]:
        return True
    if t.category in V.ONTOLOGY["produce"]:
        return False
    return not t.shape or t.shape in ("box", "cylinder", "region")


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
