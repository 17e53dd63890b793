"""What the offline grounder reads an instruction as: goals over the scene's objects."""

from __future__ import annotations

from dataclasses import dataclass, field

from owl_bt.errors import GroundingError

# how a refusal of the offline grounder ends: what the person can do instead
ADVICE = "rephrase it with simpler words (e.g. 'put the X onto the Y') or configure a VLM endpoint (--vlm openai)"


class ImpossibleGoal(GroundingError):
    """The instruction is understood and no plan can meet it in this scene (the hammer "in" the
    drill, a verb's landmark the scene lacks, "where the bowl was" with the bowl left there): the
    offline grounder answers a sketch prompt `impossible(<reason>)` with this one-line reason."""


class MovesFixed(ImpossibleGoal):
    """The instruction asks to move a thing fixed in place (the table, a region, a mat); `obj` names
    it. Heard by the speech front end as speech meant for another scene, or misheard."""

    def __init__(self, obj: str) -> None:
        self.obj = obj
        super().__init__(
            f"the {obj.replace('_', ' ')} is fixed where it is: the robot cannot move it"
        )


@dataclass
class Goal:
    """`obj` ends `how` ('ontop' | 'inside' | 'pour') `support`, or 'held' in the gripper (support
    ''); spatial: (relation, reference objects);
    final: must hold at the end (False: a step on the way); only: in no other container at the end."""

    obj: str
    how: str
    support: str
    spatial: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    upright: bool = False
    final: bool = True
    only: bool = False
    contents: tuple[str, ...] = ()  # pour: what falls out of obj into support
    note: str = (
        ""  # which of a counted group this is and why ("2 of the 4 asked for by 'two fruits': …")
    )


@dataclass
class Reading:
    goals: list[Goal]
    upright_needed: set[str] = field(default_factory=set)  # containers someone will pour into


# spatial relation → the literal's name (a relation with no reference object takes only the object)
LITERAL_NAMES = {
    "near": "Near",
    "left_of": "LeftOf",
    "right_of": "RightOf",
    "behind": "Behind",
    "in_front_of": "InFrontOf",
    "between": "Between",
    "aligned": "AlignedWith",
    "off": "ClearOf",
    "apart": "FarFrom",
    "at_initial": "WhereWas",
    "far_left": "FarLeft",
    "far_right": "FarRight",
    "back": "AtBack",
    "front": "AtFront",
    "half_left": "LeftHalfOf",
    "half_right": "RightHalfOf",
    "half_back": "BackHalfOf",
    "half_front": "FrontHalfOf",
    "middle": "CentreOf",
    "upside_down": "UpsideDown",
    "straight": "Straight",
    "parallel": "Parallel",
    "perpendicular": "Perpendicular",
}


def literals(goal: Goal) -> list[str]:
    """The goal as literals: 'On(a, b)' / 'In(a, b)' / 'Poured(a, b)', then its spatial relations
    ('LeftOf(a, r)', 'Between(a, r1, r2)', 'LeftHalfOf(a, support)', 'UpsideDown(a)', 'Straight(a)',
    'Points(a, end, direction)', 'Parallel(a, r)'), 'Upright(a)'
    and 'Only(a, b)'; a goal that is only a step on the way has each literal prefixed 'step '."""
    if goal.how == "held":  # "pick up the apple": in the hand at the end
        return [f"Held({goal.obj})"] if goal.final else [f"step Held({goal.obj})"]
    head = {"ontop": "On", "inside": "In", "pour": "Poured"}[goal.how]
    out = [f"{head}({goal.obj}, {goal.support})"]
    for rel, refs in goal.spatial:
        if rel.startswith("points:"):  # 'points:<end>:<direction>': Points(spoon, bowl, away)
            out.append(f"Points({', '.join((goal.obj, *rel.split(':')[1:]))})")
            continue
        name = LITERAL_NAMES.get(rel, rel)
        if rel.startswith("half_") or rel == "middle":
            refs = (goal.support,)
        out.append(f"{name}({', '.join((goal.obj, *refs))})")
    if goal.upright:
        out.append(f"Upright({goal.obj})")
    if goal.only:
        out.append(f"Only({goal.obj}, {goal.support})")
    return out if goal.final else [f"step {x}" for x in out]


def reading_literals(reading: Reading) -> list[str]:
    """Every goal's literals in the goals' order, then 'Upright(c)' for a container someone will pour into."""
    out = [x for g in reading.goals for x in literals(g)]
    return out + [f"Upright({c})" for c in sorted(reading.upright_needed)]
