"""The skill template: every skill leaf looks alike (Nav2's one-template leaves).

A skill is one module with a `Skill` subclass that fills in four hooks:
- `schema`: its operator schema and description (symbolic side, shown to the VLM);
- `sample(model, args, rng, step)`: draw continuous parameters (grasp, placement pose, …);
- `simulate(model, args, params, step)`: its controller run in the planning model → `Outcome`
  with the backend commands it would send, or the reason it failed;
- `execute(backend, commands)`: its controller on an `ArmBackend` (the default runs the commands).

`step` is the refinement's `owl_bt.tamp.step_context.StepContext` (the checkers the step's result
must satisfy, the skeleton's next step, a place hint left by a look-ahead), or None when the skill
is called outside refinement (read it through `step_context.context(step)`). Optional hooks the
refiner uses when present: `never(model, args)`, `orient(model, args, params, rng, step)` and
`grasp_fits(model, args, checks, step=)`; see docs/architecture.md.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from owl_bt.state import Pose
from owl_bt.tamp.operators import OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import StepContext
from skills.backend import ArmBackend, ArmBlocked, ArmFault


@dataclass(frozen=True)
class Move:
    """Follow these joint waypoints (radians); `times` (seconds from the start, one per waypoint)
    slows the motion down where given (a pour tilts slowly, then dwells); `guarded`: a move that
    may end early where the arm meets resistance (setting an object down), not an error."""

    waypoints: tuple[tuple[float, ...], ...]
    times: tuple[float, ...] | None = None
    guarded: bool = False  # a descent onto something: stopping early at contact is success


@dataclass(frozen=True)
class Grip:
    """'open' or 'close' the gripper; `expect` is the object that should end up held (or None);
    `width`: open only this far (metres between the pads; a pre-shaped approach), None = fully."""

    command: str
    expect: str | None = None
    width: float | None = None


Command = Move | Grip


@dataclass
class Outcome:
    """Result of running a controller in the planning model.

    ok: success; commands: what to send to the backend; reason: why not (one line); offending:
    objects that blocked it; expected: object poses the step should produce (for monitoring);
    hopeless: no other sample of the step, grasp or skeleton edit can do better (an apple wider
    than the mug's opening), so the planning round ends at once; regrasp: the grasp the step was
    given is what failed (the hand kept a pour's contents in), so after a few such failures
    refinement tries another grasp rather than spend the step's samples on this one.
    """

    ok: bool
    commands: list[Command] = field(default_factory=list)
    reason: str = ""
    offending: tuple[str, ...] = ()
    expected: dict[str, Pose] = field(default_factory=dict)
    hopeless: bool = False
    regrasp: bool = False

    @classmethod
    def fail(cls, reason: str, *offending: str, regrasp: bool = False) -> Outcome:
        return cls(
            ok=False, reason=reason, offending=tuple(o for o in offending if o), regrasp=regrasp
        )

    @classmethod
    def hopeless_fail(cls, reason: str) -> Outcome:
        """A failure no other sample, grasp or edit avoids (see `hopeless`)."""
        return cls(ok=False, reason=reason, hopeless=True)


class Skill(abc.ABC):
    """Base class of skill leaves; subclasses set `schema` and implement sample and simulate."""

    schema: OperatorSchema

    @property
    def name(self) -> str:
        return self.schema.name

    @abc.abstractmethod
    def sample(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        rng: np.random.Generator,
        step: StepContext | None = None,
    ) -> dict:
        """Continuous parameters for args, drawn by this skill's sampler (`step`: see the module)."""

    @abc.abstractmethod
    def simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        step: StepContext | None = None,
    ) -> Outcome:
        """Run the controller in the planning model; leave the model in the resulting state."""

    def execute(self, backend: ArmBackend, commands: Sequence[Command]) -> str | None:
        """Send the commands; returns None on success or a one-line reason (never raises)."""
        last_move: Move | None = None
        try:
            for cmd in commands:
                if isinstance(cmd, Move):
                    last_move = cmd
                    try:
                        backend.execute_trajectory(cmd.waypoints, cmd.times, guarded=cmd.guarded)
                    except ArmBlocked:
                        back_out(backend, cmd.waypoints)
                        raise
                else:
                    res = (
                        backend.gripper(cmd.command)
                        if cmd.width is None
                        else backend.gripper(cmd.command, width=cmd.width)
                    )
                    if cmd.command == "close" and res.holding != cmd.expect:
                        let_go(backend, last_move)
                        return (
                            f"gripper closed on {res.holding or 'nothing'} instead of {cmd.expect}"
                        )
        except ArmFault as exc:
            return str(exc)
        return None


def let_go(backend: ArmBackend, approach: Move | None) -> None:
    """After the gripper closed on the wrong object (or on nothing), open it where it is, so what it
    took stays where it lay, and retrace the approach; the replan then starts from a free hand and an
    undisturbed scene (carrying the wrong object off left the arm holding a mug it had no plan for).
    Failures here are left to the replan (never raises)."""
    try:
        backend.gripper("open")
    except ArmFault:
        return
    if approach is not None:
        back_out(backend, approach.waypoints)


def back_out(backend: ArmBackend, waypoints: Sequence[Sequence[float]]) -> bool:
    """After a blocked motion, retrace the waypoints already passed back to the first one (which the
    planner found free), so the hand is clear of whatever stopped it before the scene is observed
    and replanned. True when the arm got back; a failure here is left to the replan (never raises)."""
    q = backend.state().joints
    passed = min(
        range(len(waypoints)),
        key=lambda i: max(abs(a - b) for a, b in zip(waypoints[i], q, strict=True)),
    )
    try:
        backend.execute_trajectory([q, *reversed(waypoints[: passed + 1])])
    except ArmFault:
        return False
    return True
