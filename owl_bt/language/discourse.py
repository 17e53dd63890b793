"""The state of reading one instruction, in two lifetimes: what the clauses read so far established
(`Discourse`: the goals, the objects last moved and where, what was mentioned, the words not
understood) and what the clause being read holds (`ClauseFrame`: its mentions, its distance
superlatives, the destination it shares with a partner clause, whether another clause follows).

The Reader (`owl_bt.language.reading`) owns one of each; its parts — the references
(`owl_bt.language.references.Resolver`), the relations (`owl_bt.language.relations.RelationReader`),
the goal book (`owl_bt.language.goal_book.GoalBook`) and the clauses that are not placements
(`owl_bt.language.clause_kinds.SpecialClauses`) — are given them when built, and read or extend only
the fields their docstrings name. A frame is reset (`ClauseFrame.start`) at each clause, so nothing
of one clause's reading leaks into the next but what `Discourse` keeps on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from owl_bt.language.goals import Goal
from owl_bt.language.mentions import Mention

# (how, support, spatial, upright) of a unit's destination: how is 'inside' | 'ontop' | None,
# support an object name or None, spatial [(relation, (reference names…))]
Destination4 = tuple


@dataclass
class Discourse:
    """What the clauses of one instruction read so far established.

    goals: the goals made so far, in the order they are to happen (`Goal`s; a later goal of the same
      object makes the earlier one a step on the way).
    upright_needed: containers that must stand upright at the end (one a person will pour into).
    unknown / absent: words not understood / nouns of objects not in the scene (refused at the end,
      all named in one line).
    last: the objects the last clause moved or picked (the antecedent of 'it'/'them').
    last_dest: (how, support, spatial, upright) of the last unit that said a destination, or None.
    last_about: (the list `last` was set to, its mass-noun phrase, its destination) — whether 'it'
      could be the destination rather than several objects.
    mentioned: objects named by the clauses read so far, in order.
    chosen: object → a note on why it was chosen ("two fruits": the two nearest the base).
    provisional: objects taken out with no place said yet ("take the ball out"); the next placement
      of one replaces that goal.
    part_said: the instruction names a part ("the front half of the pan").
    """

    goals: list[Goal] = field(default_factory=list)
    upright_needed: set[str] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    last: list[str] = field(default_factory=list)
    last_dest: Destination4 | None = None
    last_about: tuple = ([], "", None)
    mentioned: list[str] = field(default_factory=list)
    chosen: dict[str, str] = field(default_factory=dict)
    provisional: set[str] = field(default_factory=set)
    part_said: bool = False


@dataclass
class ClauseFrame:
    """The clause being read.

    more / next: another clause follows, and its tokens.
    goals_before: how many goals existed before this clause (its own are `goals[goals_before:]`).
    gap: the destination a bare object phrase of this clause shares ("… after the pear": the pear's).
    borrow: the clause ends in 'and' before 'then': it takes the next one's destination.
    oriented: the clause says how its objects lie ("straight", "bowl facing away").
    named: the objects this clause names (joined to `Discourse.mentioned` when it is read).
    ments: its object mentions (after distance superlatives are taken out).
    nearest: mention start → (distance superlative word, the mention it is said of or None).
    centred: starts of support relations meant centred ("in the middle of the plate").
    of_table: starts of absolute relations said of the table ("the far right of the table").
    fitting_in: (subject mention starts, the container they must fit in) or None.
    located: (subject mention starts, the place they are described at) or None.
    """

    more: bool = False
    next: list[str] = field(default_factory=list)
    goals_before: int = 0
    gap: Destination4 | None = None
    borrow: bool = False
    oriented: bool = False
    named: list[str] = field(default_factory=list)
    ments: list[Mention] = field(default_factory=list)
    nearest: dict[int, tuple[str, Mention | None]] = field(default_factory=dict)
    centred: set[int] = field(default_factory=set)
    of_table: set[int] = field(default_factory=set)
    fitting_in: tuple | None = None
    located: tuple | None = None

    def start(
        self,
        more: bool,
        next_toks: list[str],
        goals_before: int,
        gap: Destination4 | None,
        borrow: bool,
    ) -> None:
        """Begin a new clause: every field back to its default but those given."""
        fresh = ClauseFrame(more, list(next_toks), goals_before, gap, borrow)
        self.__dict__.update(fresh.__dict__)
