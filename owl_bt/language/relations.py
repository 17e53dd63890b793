"""The relations of one clause for the offline grounder's reader: the relation phrases (support,
spatial, orientation, absolute, source, "to"), the words describing an object rather than a place
("the region at the center of the table"), the object mentions and distance superlatives, what is
left out ("every fruit except the apple"), and the cut into units 'objects + relations'."""

from __future__ import annotations

from owl_bt.errors import GroundingError
from owl_bt.language import vocabulary as V
from owl_bt.language.discourse import ClauseFrame, Discourse
from owl_bt.language.goals import ADVICE
from owl_bt.language.mentions import Mention, SceneAliases, find_mentions, phrases
from owl_bt.language.scene_view import container
from owl_bt.language.superlatives import DISTANCE, distance_superlatives


class RelationReader:
    """The relations, mentions and units of the clause being read.

    `relations` sets the frame's `ments`, `nearest`, `centred` and `of_table` and adds the clause's
    objects to `frame.named`; `ask_where` reads `said.last_dest` and `said.goals`.
    """

    def __init__(self, scene: SceneAliases, said: Discourse, frame: ClauseFrame) -> None:
        self.scene = scene
        self.said = said
        self.frame = frame

    def relations(self, toks: list[str]):
        """(mentions, relations [(start, end, kind, relation)], covered token indices)."""
        taken: set[int] = set()
        rels = []
        # support relations meant centred ("in the middle of the plate"); absolute relations said
        # of the table ("the far right of the table")
        self.frame.centred, self.frame.of_table = set(), set()
        far = {
            p: r for p, r in V.ABSOLUTE.items() if p.startswith("far ") or p in V.ROBOT_FRAME
        }  # not "left of"
        for table, kind in (
            (far, "absolute"),
            (V.SPATIAL, "spatial"),
            (V.ORIENTATION, "orient"),
            (V.ABSOLUTE, "absolute"),
            (V.SOURCE, "source"),
            (V.SUPPORT, "support"),
        ):
            for s, e, r in phrases(table, toks, taken):
                if (
                    kind == "spatial"
                    and r == "near"
                    and toks[s] == "by"
                    and (
                        s + 1 < len(toks)
                        and toks[s + 1] in V.ACTION_FORMS
                        or toks[s - 1 : s + 2] == ["one", "by", "one"]
                    )
                ):
                    continue  # "by putting it …", "one by one"
                if (
                    kind == "orient"
                    and toks[s] == "standing"
                    and toks[e : e + 1]
                    and toks[e] in {"the", "a", "it", "them"}
                ):
                    continue  # "standing the mug upright": the verb

                if " ".join(toks[s:e]) in V.ROBOT_FRAME:
                    self.frame.of_table.add(
                        s
                    )  # the robot's nearness: a part of the table, whatever the support
                rels.append((s, e, kind, r))
                taken |= set(range(s, e))
        _robot_place(toks, taken)
        # words describing an object ("the line bisecting the table", "the region at the center of the table")
        skip: set[int] = set()
        for i, t in enumerate(toks):
            if (
                i in taken
                or t == "standing"
                and toks[i + 1 : i + 2]
                and toks[i + 1] in {"the", "a", "it", "them"}
            ):
                continue  # "on top of": a relation's own words; "standing the mug up": the verb; not a description
            a = i
            while a > 0 and toks[a - 1] in {"the", "a"}:
                a -= 1
            lead = next((r for r in rels if r[1] == a and r[2] == "support"), None)
            if t == "edge" and lead:  # "on the edge of the plate": no literal says an edge
                raise GroundingError(
                    f"'{' '.join(toks[lead[0] :])}': the offline grounder puts things on a "
                    f"surface or a part of it (a half, a corner, the middle), not on its edge; {ADVICE}"
                )
            if (
                t in V.LOCATION_WORDS - {"side"} and lead
            ):  # "on the top of the plate", "in the middle of the bowl"
                self.frame.centred |= {lead[0]} if t in V.CENTRE else set()  # …centred on it
                continue
            if (
                t in V.CENTRE
                and toks[i + 1 : i + 2] == ["of"]
                and toks[a - 1 : a] == ["at"]
                and not any(r[0] < a and r[2] in ("support", "spatial", "absolute") for r in rels)
            ):
                rels.append(
                    (a - 1, a, "support", "ontop")
                )  # "put the strawberry at the centre of the table"
                self.frame.centred.add(a - 1)
                continue
            if t in V.DESCRIBING or (
                t in V.LOCATION_WORDS and i + 1 < len(toks) and toks[i + 1] == "of"
            ):
                for j in range(i + 1, min(i + 6, len(toks))):
                    if toks[j] in {"the", "a", "of"}:
                        continue
                    skip.add(j)
                    if (
                        j + 1 < len(toks)
                        and toks[j + 1] not in V.FILLER
                        and toks[j + 1] not in V.SUPPORT
                    ):
                        continue
                    break
        rels = [r for r in rels if not skip & set(range(r[0], r[1]))]
        for a, b, _kind, _r in [
            r for r in rels if r[2] == "absolute"
        ]:  # "on the far left of the table": one place
            j = a
            while j > 0 and toks[j - 1] in {"the", "a"}:
                j -= 1
            lead = [r for r in rels if r[2] == "support" and r[1] == j]
            skip |= {i for r in lead for i in range(r[0], r[1])}
            rels = [r for r in rels if r not in lead]
            table = self.scene.table()
            if table and toks[b : b + 1] == ["of"]:
                k = b + 1 + (toks[b + 1 : b + 2] == ["the"])
                if (
                    toks[k : k + 1] == ["table"]
                    or tuple(toks[k : k + len(self.scene.things[table].words)])
                    == self.scene.things[table].words
                ):
                    skip |= set(range(b, k + 1))
                    self.frame.of_table.add(a)
        ments = find_mentions(toks, self.scene, skip | taken)
        self.frame.named += [n for m in ments for n in m.names]
        self.frame.nearest, near, ments = distance_superlatives(
            toks, ments
        )  # "the fruit closest to the mug"
        skip |= near
        rels = [r for r in rels if not near & set(range(r[0], r[1]))]
        self.frame.ments = ments
        for _a, b, _kind, _r in [
            r for r in rels if r[2] == "absolute" and r[0] not in self.frame.of_table
        ]:
            k = (
                b + 1 + (toks[b + 1 : b + 2] == ["the"])
            )  # "at the front of the plate": on the plate, its front half
            m = (
                next((m for m in ments if m.start == k), None)
                if toks[b : b + 1] == ["of"]
                else None
            )
            if m is not None and len(m.names) == 1:
                rels.append(
                    (
                        b,
                        b + 1,
                        "support",
                        "inside" if container(self.scene.things[m.names[0]]) else "ontop",
                    )
                )
        for i, t in enumerate(
            toks
        ):  # "to the plate": a destination (not "next to", "want to", "to be")
            if t in V.TOWARDS and i not in taken | skip:
                j = i + 1
                while j < len(toks) and toks[j] in {"the", "a", "an", "that", "this"}:
                    j += 1
                if any(m.start == j for m in ments):
                    rels.append((i, i + 1, "support", "to"))
        covered = (
            {i for m in ments for i in range(m.start, m.end)}
            | {i for r in rels for i in range(r[0], r[1])}
            | skip
        )
        rels.sort()
        return ments, rels, covered

    def excluded(self, toks: list[str], ments: list[Mention]) -> list[Mention]:
        """Mentions right after 'except', 'not', 'other than' … (articles skipped), or after 'but' in a clause
        with a quantifier ("everything but the apple"), and those joined to one by 'and'/'or'/','
        ("except the apple and the lemon"): left out."""
        out: list[Mention] = []
        but = bool(set(toks) & (V.QUANT_ALL | V.GENERIC))
        for m in ments:
            j = m.start - 1
            while j >= 0 and toks[j] in {"the", "a", "an", "for"}:
                j -= 1
            if j >= 0 and (
                toks[j] in V.EXCEPT
                or " ".join(toks[max(0, j - 1) : j + 1]) in V.EXCEPT_PHRASES
                or toks[j] == "but"
                and but
            ):
                out.append(m)
            elif out and (
                out[-1].end == j + 1 or toks[j] in {"and", "or", "nor", ","} and out[-1].end == j
            ):
                out.append(m)  # "except the apple, the lemon and the lime"
        return out

    def excepted_superlative(self, toks: list[str], excluded: list[Mention]) -> str | None:
        """The size superlative after 'except'/'but'/'other than' … ("all the fruit except the biggest one"):
        the one of the group to leave out; None when there is none. Raises GroundingError for such a word
        that leaves out nothing the grounder can name ("everything except the one over there")."""
        after = {m.start for m in excluded}
        for i, t in enumerate(toks):
            phrase = " ".join(toks[i : i + 2]) in V.EXCEPT_PHRASES - {"but not", "and not"}
            if not (
                t in V.EXCEPT - {"not"}
                or phrase
                or t == "but"
                and set(toks) & (V.QUANT_ALL | V.GENERIC)
            ):
                continue
            j = i + 1 + phrase
            while j < len(toks) and toks[j] in {"the", "a", "an", "for"}:
                j += 1
            if j in after or j < len(toks) and toks[j] == "non":
                continue
            if j < len(toks) and toks[j] in V.SUPERLATIVES and toks[j] not in DISTANCE:
                return toks[j]
            if t != "but":
                raise GroundingError(
                    f"{' '.join(toks[i : j + 2])!r} leaves out no object the offline grounder can "
                    f"name; {ADVICE}"
                )
        return None

    def ruled_out_places(self, toks: list[str], excluded: list[Mention], movers: set[str]) -> None:
        """Refuse a "not" that rules out a place (a region, a table, a container, a plate) rather than leaving
        out an object ("onto the plate, not the light-grey one", "into the bowl, not the mug"), or that
        rules out nothing named: raises GroundingError. ("… on the plate, not the lime" leaves the
        lime where it is: that is no negation of the goal.)"""
        for i, t in enumerate(toks):
            if t != "not":
                continue
            j = i + 1
            while j < len(toks) and toks[j] in {"the", "a", "an", "for"}:
                j += 1
            left = next((m for m in excluded if m.start == j), None)
            places = (
                left is not None
                and not set(left.names) & movers
                and any(
                    self.scene.things[n].fixed or self.scene.things[n].category in V.RECEPTACLES
                    for n in left.names
                )
            )
            if left is None or places:
                words = " ".join(toks[i : left.end if left else i + 4])
                raise GroundingError(
                    f"the offline grounder does not handle negation ('{words}'): say what the robot "
                    f"should do; {ADVICE}"
                )

    def units(
        self, ments: list[Mention], rels: list, toks: list[str]
    ) -> list[tuple[list[Mention], list[tuple[int, list[Mention]]]]]:
        """The clause cut into units [(subject mentions, [(relation index, its reference mentions)])]:
        a mention after a relation's references starts a new unit when another relation follows, or
        when the relation was a support (an object has one support); after a spatial relation it is
        one more reference ("near the mug and the plate"). A subject said with "too" or "as well"
        ("…, the tomato too, and the carrot in the pan") is a unit of its own: it takes the place
        said before it, and the next mention starts another unit."""
        need = {"support": 1, "spatial": 1, "source": 1}
        items = sorted(
            [(m.start, 0, m) for m in ments] + [(r[0], 1, k) for k, r in enumerate(rels)],
            key=lambda x: x[:2],
        )
        units: list[tuple[list[Mention], list[tuple[int, list[Mention]]]]] = [([], [])]
        for pos, is_rel, x in items:
            subject, urels = units[-1]
            if is_rel:
                urels.append((x, []))
                continue
            if not urels and not (subject and _also(toks, subject[-1].end)):
                subject.append(x)
                continue
            if not urels:
                units.append(([x], []))
                continue
            k, refs = urels[-1]
            kind, r = rels[k][2], rels[k][3]
            if len(refs) < (2 if r == "between" else need.get(kind, 0)):
                refs.append(x)
            elif kind == "spatial" and r != "between" and not any(rr[0] > pos for rr in rels):
                refs.append(x)
            else:
                units.append(([x], []))
        return units

    def absolute(self, r: str, s: int, spatial: list) -> tuple[str, tuple[str, ...]]:
        """The spatial entry of an absolute relation (far_left, far_right, back, front) starting at token s: of
        the table when said so ("… of the table", "near the robot"); a side of the object just placed near
        ("beside the mug on the right": right of the mug, the near entry is dropped from `spatial`); else a
        bare direction ("bare:far_right"), which the goal book (`GoalBook.add`) reads as that part of the table or that half of
        another support ("on the mat to the right")."""
        if s in self.frame.of_table:
            return (r, ())
        near = next((x for x in reversed(spatial) if x[0] == "near"), None)
        if near is not None:
            spatial.remove(near)
            return (V.DIRECTION[r], near[1])
        return ("bare:" + r, ())

    def ask_where(
        self,
        toks: list[str],
        moved: list[str],
        dest: list,
        support: str | None,
        spatial: list,
        upright: bool,
        state: bool,
    ) -> None:
        """Raise GroundingError when a unit says no place ("move the apple": where to?), or a bare direction
        after another support was named for something else ("the apple on the mat and the peach to the right":
        the mat's right or the table's?). Verbs that imply the place (throw away, remove from, take out)
        are read elsewhere."""
        what = " and ".join(f"the {x.replace('_', ' ')}" for x in moved)
        if not dest and support is None and not spatial and not upright and not state:
            raise GroundingError(
                f"where should {what} go? {' '.join(toks)!r} says no place; say where "
                f"(e.g. 'on the table'); {ADVICE}"
            )
        bare = next((r[5:] for r, _ in spatial if r.startswith("bare:")), None)
        landmark = self.said.last_dest[1] if self.said.last_dest else None
        if (
            bare
            and support is None
            and landmark not in (None, self.scene.table())
            and not any(g.obj in moved for g in self.said.goals)
        ):
            side = {
                "far_left": "to the left",
                "far_right": "to the right",
                "back": "at the back",
                "front": "at the front",
            }[bare]
            raise GroundingError(
                f"{what} {side} of what? the {landmark.replace('_', ' ')} or the table; say "
                f"'{side} of the {landmark.replace('_', ' ')}' or 'on the {landmark.replace('_', ' ')}, "
                f"{side}'; {ADVICE}"
            )


_PLACE_WORDS = {
    "behind",
    "beyond",
    "past",
    "in",
    "to",
    "at",
    "on",
    "by",
    "left",
    "right",
    "under",
    "over",
    "beside",
}


def _also(toks: list[str], end: int) -> bool:
    """Is the mention ending at token `end` followed by "too", "also" or "as well" (after a comma)?"""
    after = toks[end + (toks[end : end + 1] == [","]) :]
    return after[:1] in (["too"], ["also"]) or after[:2] == ["as", "well"]


def _robot_place(toks: list[str], taken: set[int]) -> None:
    """Raise GroundingError with a one-line reason for a place said of the robot that is not a part of the
    table (V.ROBOT_FRAME): its base sits at the table's near edge, so "behind the robot" is off the table
    (it was "did not understand: 'robot'" while "near the robot" was understood); "in front of"/"left of
    the robot" … name no one part of the table, and the grounder does not guess one."""
    for i, t in enumerate(toks):
        if t != "robot" or i in taken:
            continue
        j = next(
            (j for j in range(max(0, i - 4), i) if toks[j] in _PLACE_WORDS), i
        )  # "behind the robot"
        if j == i or any(
            w in DISTANCE for w in toks[max(0, i - 4) : i]
        ):  # "the fruit nearest to the robot": a choice
            continue  # "robot, put the apple …": said to it, not a place
        said = " ".join(toks[j : i + 1])
        if any(w in toks[max(0, i - 4) : i] for w in ("behind", "back", "beyond", "past")):
            raise GroundingError(
                f"{said!r} is off the table: the robot's base is at the table's near edge; "
                "say a place on the table ('near the robot', 'at the back of the table')"
            )
        raise GroundingError(
            f"{said!r}: the robot is no object in the scene, only 'near the robot' or 'far from the "
            "robot' (the table's front or back third) is said of it; say a place on the table"
        )
