"""Operator schemas (the skills' symbolic side) and the registry the planner and prompts read.

A schema names its typed parameters, preconditions, add and delete lists over the predicates of
docs/architecture.md (continuous values abstracted away: `AtGrasp(o)` stands for ∃g AtGrasp(o, g)), the
static type predicates its parameters need, and a one-paragraph description shown to the VLM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# Static "type" predicates derived from an object's category; never changed by an action.
SURFACE_CATEGORIES = frozenset(
    {"table", "region", "plate", "mat", "tray", "skillet", "line", "scale", "cutting_board"}
)
CONTAINER_CATEGORIES = frozenset(
    {
        "bowl",
        "mug",
        "cup",
        "bin",
        "basket",
        "box_container",
        "skillet",
        "saucepan",
        "utensil_holder",
    }
)
# Movable things with a flat, stable top: place_ontop may stack onto them when the plan sketch asks (an
# inserted step never does: Stackable); whether a stack stands is judged by physics in the planning model.
STACKABLE_CATEGORIES = frozenset(
    {"block", "box", "cylinder", "book", "potted_meat_can", "sugar_box", "sponge", "scale"}
)
LIQUID_CATEGORIES = frozenset(
    {"soup"}
)  # moved only by pouring what holds them: never picked (spilt, it stays spilt)

Atom = tuple[str, tuple[str, ...]]  # (predicate, parameter names)


@dataclass(frozen=True)
class OperatorSchema:
    """name; params: ((param, type predicate), …) where type is Movable | Surface | Container | Receptacle;
    pre/add/delete: atoms over the params; open_world: carries a description and a VLM checker."""

    name: str
    params: tuple[tuple[str, str], ...]
    pre: tuple[Atom, ...]
    add: tuple[Atom, ...]
    delete: tuple[Atom, ...]
    description: str
    open_world: bool = False


@dataclass(frozen=True)
class GroundOp:
    """A ground operator: schema name and object arguments, e.g. place_ontop(strawberry, plate)."""

    name: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"


class Refinable(Protocol):
    """What the refiner needs of a skill (implemented in `skills/`); `step` is the refinement's
    `owl_bt.tamp.step_context.StepContext`."""

    schema: OperatorSchema

    def sample(
        self, model: object, args: tuple[str, ...], rng: object, step: object = None
    ) -> dict: ...

    def simulate(
        self, model: object, args: tuple[str, ...], params: dict, step: object = None
    ) -> object: ...


def static_types(category: str, fixed: bool) -> set[str]:
    """The static type predicates an object of this category has: Movable (not fixed, not a liquid),
    Surface, Stackable (a movable thing with a flat top: also a Surface, but only a plan sketch stacks
    onto it), Container, and Receptacle (a surface or a container: something that can be poured into
    or onto)."""
    types = set()
    if not fixed and category not in LIQUID_CATEGORIES:
        types.add("Movable")
    if category in SURFACE_CATEGORIES or fixed:
        types.add("Surface")
    elif category in STACKABLE_CATEGORIES:
        types |= {"Surface", "Stackable"}
    if category in CONTAINER_CATEGORIES:
        types.add("Container")
    if types & {"Surface", "Container"} and "Stackable" not in types:
        types.add("Receptacle")
    return types
