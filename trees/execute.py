"""The execute subtree: run each grounded step's skill on the arm backend and monitor its effects.

While a step runs, the hand is watched between the skill's commands (as a gripper's object detection
would be read): an object that should be in the hand and is not has slipped, and the step stops there
(an EXECUTION failure naming where the object came to rest). After every step a fresh observation is
compared with what the step should have produced: the object held after a pick; after a place, the
object released and the constraints the planner accepted for that step (its generated checkers, and
the goal checkers after the last step) still holding on the observed state — where it came to rest
may differ from the plan by a few centimetres (a round object rolls) as long as the constraints hold
(POSTCONDITION failures); an object a later step acts on that is no longer where the plan expects it,
or an object lying where a later step sets something down (trees.blocked), is a PRECONDITION failure
of the rest of the plan. A backend error is an EXECUTION failure. After a failure the arm goes home
(trees.recover) before the replan looks again — except in a fault: the safety guard clears it first.
"""

from __future__ import annotations

import math
import re
import time

import py_trees

from owl_bt.failures import Evidence, Failure, FailureKind, Stage
from owl_bt.language.checker_names import name_checkers
from owl_bt.tamp.operators import GroundOp
from owl_bt.tamp.sanity import Placement, insane
from perception.detector import HIDDEN_FLAG, ROBOT
from skills.backend import ArmFault, hold_still
from trees.blocked import blocked_later
from trees.observe import confirmed_observation
from trees.pose_diff import angle_between, far_shift, turned_phrase
from trees.recover import caught_on_hand, hanging, leaning_on_hand, retreat_home
from trees.safety import arm_fault
from trees.worker import WorkerBehaviour

POSE_TOLERANCE_MAX = 0.10  # metres: beyond this the object went somewhere else entirely
SETTLE_S = 0.5  # seconds at most the arm holds still after a step before the scene is observed (sim: till all lies still)
LOOK_AGAIN_S = 1.0  # seconds more before a second look, when the first finds the step's effects off
GRASP_TOLERANCE = (
    0.05  # metres (xy): a held object farther than this from its planned pose slipped in the grasp
)
GRASP_TURN_TOLERANCE = (
    0.01  # metres: a long held object turned in the fingers so that its far ends moved this
)
# much sits in another grasp (`far_shift`; the camera sees a held fork's turn to 2-3°, 3-5 mm at its ends) …
GRASP_ANGLE_TOLERANCE = (
    25.0  # … and degrees: any (not a ball) turned more than this, seen by a source
)
# trusted for the orientation of a held object: not the camera pipeline's (the fingers hide much of it, and a
# symmetric shape's fit can turn freely about its axis)
ORIENTATION_SOURCES = frozenset({"sim-state"})
# (the camera places an object the fingers hide between them until it sees it: allow for that)
MOVED_TOLERANCE = (
    0.04  # metres: an object not yet acted on seen this far from where the attempt saw it was moved
)
# (two looks at a still object differ by much less; a knock moves it 5 cm or more)
FAULT_WAIT_S = (
    5.0  # seconds a step cut short by an arm fault waits for the safety guard to take over
)
PLAN_TOLERANCE = 0.03  # metres: a later step that acts on an object this far from its planned pose needs a new plan
# … and one that puts something into or onto it: a mug 2.7 cm off plan took the fork planned for its
# 3.2 cm opening onto its rim
TARGET_TOLERANCE = 0.012
# (above the camera pipeline's worst centroid error, 1.7 cm, so that its noise alone does not trigger one)


class GraspLost(ArmFault):
    """The object that should be in the hand is not (it slipped): the step stops before its next command."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} slipped from the gripper")
        self.name = name


class HeldWatch:
    """The arm as a skill sees it during one step: before and after every motion, what the hand should
    hold (what it held when the step began, then what each grip left in it) is compared with what it
    holds; an object that is gone raises GraspLost. Everything else is the backend's."""

    def __init__(self, backend) -> None:
        self.inner = backend
        self.expect = backend.state().held
        self.lost: str | None = None

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def _check(self) -> None:
        if self.expect is not None and self.inner.state().held is None:
            self.lost, self.expect = self.expect, None
            raise GraspLost(self.lost)

    def execute_trajectory(self, waypoints, times=None, guarded: bool = False) -> None:
        self._check()
        self.inner.execute_trajectory(waypoints, times, guarded=guarded)
        self._check()

    def gripper(self, command: str, width: float | None = None):
        if command != "open":
            self._check()
        res = (
            self.inner.gripper(command)
            if width is None
            else self.inner.gripper(command, width=width)
        )
        self.expect = res.holding if command == "close" else None
        return res

    def state(self):
        return self.inner.state()

    def stop(self) -> None:
        self.inner.stop()


def _op(text: str) -> GroundOp:
    """The ground operator of an executed action string, e.g. 'place_ontop(fork, table)'."""
    name, _, rest = text.partition("(")
    return GroundOp(name, tuple(a.strip() for a in rest.rstrip(")").split(",") if a.strip()))


def _placement(step) -> Placement | None:
    """A done place step as the end-state judgement reads it (the pose it was planned to rest in)."""
    op = step.op
    if op.name not in ("place_ontop", "place_inside") or len(op.args) != 2:
        return None
    return Placement(op.name, op.args[0], op.args[1], step.expected.get(op.args[0]))


class Execute(WorkerBehaviour):
    stage = Stage.EXECUTE
    writes = ("executed", "placed", "step")
    reads = ("plan", "world", "constraints", "init_world")

    def before(self) -> None:
        self._plan = self.bb.plan
        self._constraints = self.bb.constraints if self.bb.exists("constraints") else None
        self._world = self.bb.world if self.bb.exists("world") else None
        self._known = tuple(self._world.objects) if self._world is not None else ()
        self._robot_hidden: set[str] = set()  # objects the last look saw partly behind the arm
        self._done: list[str] = list(self.bb.get("executed")) if self.bb.exists("executed") else []
        # every place step of the run so far, with the pose it was planned to come to rest in
        self._placed: list[Placement] = (
            list(self.bb.get("placed")) if self.bb.exists("placed") else []
        )
        self._init_world = self.bb.get("init_world") if self.bb.exists("init_world") else None
        self._current: str | None = None
        self._index = 0
        self.bb.step = None

    def progress(self) -> None:
        if self.bb.get("step") != self._current:
            self.bb.step = self._current
        if self._current is not None:
            self.feedback_message = (
                f"step {self._index + 1}/{len(self._plan.refinement.steps)}: {self._current}"
            )

    def cancelled_by_tree(self) -> None:
        if getattr(self, "_plan", None) is not None:
            self.bb.executed = list(self._done)
            self.bb.placed = list(self._placed)
            self.bb.step = None

    def work(self):
        s = self.services
        steps = self._plan.refinement.steps
        for k, step in enumerate(steps):
            if self.cancelled():
                return Failure(Stage.EXECUTE, "cancelled", str(step.op))
            self._index, self._current = k, str(step.op)
            skill = s.skills[step.op.name]
            s.log("step_start", action=str(step.op))
            s.on_step_start(str(step.op), list(step.commands))
            watch = HeldWatch(s.backend)
            reason = skill.execute(watch, step.commands)
            s.on_step(str(step.op))
            failure = None
            if reason is not None:
                fatal = getattr(s.backend, "fatal", None)  # a hardware fault: stop, do not replan
                if fatal is not None:
                    return Failure(
                        Stage.EXECUTE,
                        reason,
                        str(step.op),
                        step.op.args,
                        Evidence(retryable=False, fault=type(fatal).__name__),
                    )
                fault = arm_fault(s.backend)
                if (
                    fault is not None
                ):  # the safety guard pre-empts this branch, clears it and records it
                    self._await_cancel(FAULT_WAIT_S)
                    return Failure(
                        Stage.EXECUTE,
                        f"the arm reported a fault ({fault})",
                        str(step.op),
                        step.op.args,
                        Evidence(fault=fault),
                        kind=FailureKind.EXECUTION,
                    )
                if watch.lost is not None:
                    failure = self.slipped(step, watch.lost)
                else:
                    failure = Failure(Stage.EXECUTE, reason, str(step.op), step.op.args)
            if failure is None:
                failure = self.monitor(
                    step, {a for st in steps[k + 1 :] for a in st.op.args}, steps[: k + 1]
                )
                if (
                    failure is not None
                ):  # the arm did the step; what it found afterwards was not as planned
                    self._did(step)
            if failure is not None:
                if not self.cancelled() and arm_fault(s.backend) is None:
                    retreat_home(s, self._known)  # clear of the scene before the replan looks again
                return failure
            self._did(step)
            s.log("step_done", action=str(step.op))
        self._current = None
        return self._sane(steps)

    def _did(self, step) -> None:
        self._done.append(str(step.op))
        placement = _placement(step)
        if placement is not None:
            self._placed.append(placement)

    def _sane(self, steps) -> Failure | None:
        """The end state's implicit physical sanity (owl_bt.tamp.sanity) after the last step: nothing
        off the table, each thing put down resting on what it was put on, none tipped over, nothing
        else knocked over since the plan's observation, nothing but what the plan ends holding still
        touching the hand. With no steps (the goal already holds) after earlier attempts acted, the
        run's whole doing is judged: each thing it put down, against the run's first observed world
        (a thing an earlier attempt knocked over stays knocked over when a replan finds the goal
        done). An end state judged unsound takes the arm home before the replan looks."""
        actions: list = []  # the sketch's, when the run's whole doing is judged
        if steps:
            placements = [pl for pl in map(_placement, steps) if pl is not None]
            before, last = self._world, steps[-1].op
        elif self._done:
            placements, before = list(self._placed), self._init_world
            # what the goal ends with: the sketch's last action (the run's last step may be a pick an
            # arm fault cut short, its place done by a later attempt); an empty sketch ("already
            # done") ends holding what the run's last step picked, if the hand still holds it
            actions = self._constraints.sketch.actions if self._constraints is not None else []
            last = actions[-1].op if actions else _op(self._done[-1])
        else:
            return None  # the goal held from the start and nothing was done
        world = self._look()
        args = tuple(last.args)
        hold = args[0] if last.name == "pick" and args else None  # "pick up the apple"
        if not steps and not actions and hold != (world.robot.held if world.robot else None):
            hold = None  # (an empty sketch: a pick the hand no longer holds is no goal)
        why = insane(world, placements, before=before or self._world, hold=hold)
        if why is None:
            leaning = leaning_on_hand(world, hold)
            if not leaning:
                return None
            verb = "lean" if len(leaning) > 1 else "leans"
            why = f"{' and '.join(leaning)} still {verb} on the hand after the last step"
        self.services.log("not_sane", reason=why)
        if not self.cancelled() and arm_fault(self.services.backend) is None:
            # the replan looks at things resting on their own, not leaning on the hand
            retreat_home(self.services, self._known)
        return Failure(
            Stage.MONITOR,
            f"the end state is not sound: {why}",
            str(last),
            tuple(a for a in args if a in world.objects),
            Evidence(sanity=why),
            kind=FailureKind.POSTCONDITION,
        )

    def _await_cancel(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.cancelled() and time.monotonic() < end:
            time.sleep(0.01)

    def _look(self):
        obs, _ = confirmed_observation(self.services.perception, self._known)
        flags = getattr(obs, "flags", None) or {}
        self._robot_hidden = {n for n, fl in flags.items() if f"{HIDDEN_FLAG}{ROBOT}" in fl}
        return obs.world

    def slipped(self, step, name: str) -> Failure:
        """The held object left the hand during the step: where it came to rest (EXECUTION)."""
        try:
            hold_still(self.services.backend, SETTLE_S)
        except ArmFault:
            pass
        world = self._look()
        if name in world.objects:
            got = world.objects[name].pose
            where = f"; it came to rest at ({got.x:.2f}, {got.y:.2f})"
            observed = Evidence(pose=got.rounded())
        else:
            where, observed = "; it is not seen", Evidence()
        return Failure(
            Stage.EXECUTE,
            f"{name} slipped from the gripper{where}",
            str(step.op),
            (name,),
            observed,
            kind=FailureKind.EXECUTION,
        )

    def monitor(
        self, step, later: set[str] = frozenset(), done: list | None = None
    ) -> Failure | None:
        """The step's expected effects against a fresh observation; `later`: objects the rest of the
        plan acts on (their planned poses must still be good enough to act on); `done`: the steps
        executed so far, this one included."""
        backend = self.services.backend
        try:  # hold still a moment so that what was let go has come to rest before we look
            hold_still(backend, SETTLE_S)
        except ArmFault as exc:
            return Failure(Stage.EXECUTE, str(exc), str(step.op), step.op.args)
        failure = self._check(step, self._look(), later, done)
        if failure is not None and failure.stage == "monitor" and not failure.observed.held_check:
            # Something let go may still be rocking (a peach on its flat spot judged mid-roll): look
            # once more after a longer stillness before calling it a failure.
            try:
                backend.execute_trajectory([backend.state().joints], times=[LOOK_AGAIN_S])
            except ArmFault as exc:
                return Failure(Stage.EXECUTE, str(exc), str(step.op), step.op.args)
            failure = self._check(step, self._look(), later, done)
        return failure

    def _check(self, step, obs, later: set[str], done: list | None) -> Failure | None:
        """monitor's judgement of one observation `obs` (WorldState)."""
        held = self.services.backend.state().held
        should_hold = held_after(self.services.skills[step.op.name].schema, step.op.args)
        if should_hold is not None:
            if held != should_hold:
                return Failure(
                    Stage.MONITOR,
                    f"{should_hold} is not in the gripper after {step.op}",
                    str(step.op),
                    step.op.args,
                    Evidence(held=held, held_check=True),
                    kind=FailureKind.POSTCONDITION,
                )
        elif held is not None:
            return Failure(
                Stage.MONITOR,
                f"{held} is still in the gripper after {step.op}",
                str(step.op),
                (held,),
                Evidence(held_check=True),
                kind=FailureKind.POSTCONDITION,
            )
        caught = caught_on_hand(obs)
        if caught:
            return Failure(
                Stage.MONITOR,
                hanging(caught, f"after {step.op}", held),
                str(step.op),
                caught,
                Evidence(caught=list(caught), held_check=True),
                kind=FailureKind.POSTCONDITION,
            )
        unseen = [
            a for a in (*step.op.args, *step.expected) if a not in obs.objects and a != "table"
        ]
        if unseen:
            return Failure(
                Stage.MONITOR,
                f"{', '.join(dict.fromkeys(unseen))} not seen after {step.op}",
                str(step.op),
                tuple(dict.fromkeys(unseen)),
                Evidence(seen=sorted(obs.objects)),
                kind=FailureKind.POSTCONDITION,
            )
        failed = [name for name, check in step.checks if not check(obs)]
        if failed and not step.expected:
            return Failure(
                Stage.MONITOR,
                f"after {step.op}, {self._broken(failed)}",
                str(step.op),
                step.op.args,
                Evidence(
                    failed=failed,
                    poses={a: obs.get(a).pose.rounded() for a in step.op.args if a in obs.objects},
                ),
                kind=FailureKind.POSTCONDITION,
            )
        for name, pose in step.expected.items():
            got = obs.get(name).pose
            err = math.dist(got.position, pose.position)
            # Held but not as planned: replan with the real grasp. A held object sagging in the fingers
            # is absorbed by the guarded descent; one off sideways is not.
            drift = math.dist(got.position[:2], pose.position[:2])
            if name == should_hold and drift > GRASP_TOLERANCE:
                return Failure(
                    Stage.MONITOR,
                    f"{name} sits {drift * 100:.0f} cm off the planned grasp",
                    str(step.op),
                    (name,),
                    Evidence(pose=got.rounded(), planned=pose.rounded()),
                    kind=FailureKind.POSTCONDITION,
                )
            if (
                name == should_hold
            ):  # turned in the fingers: the places after were planned for the grasp it was meant to have
                turned = self._turned_in_hand(name, got, pose, obs)
                if turned:
                    return Failure(
                        Stage.MONITOR,
                        f"{name} sits turned in the fingers: {turned}",
                        str(step.op),
                        (name,),
                        Evidence(pose=got.rounded(), planned=pose.rounded()),
                        kind=FailureKind.POSTCONDITION,
                    )
            if name == should_hold:
                continue
            if failed or err > POSE_TOLERANCE_MAX:
                turned = (
                    turned_phrase(got, pose) if obs.get(name).shape != "sphere" else ""
                )  # (a plum's turn says nothing)
                rest = f"{name} came to rest at ({got.x:.2f}, {got.y:.2f}), {err * 100:.0f} cm from where it was planned{turned}"
                others = [o for o in self._checked(failed) if o != name and o in obs.objects]
                # placed as planned: lead with the broken checkers, not the object alone
                reason = (
                    f"after {step.op}, {self._broken(failed)} ({rest})"
                    if failed and err <= POSE_TOLERANCE_MAX
                    else rest + (f"; {self._broken(failed)}" if failed else "")
                )
                return Failure(
                    Stage.MONITOR,
                    reason,
                    str(step.op),
                    (name, *others),
                    Evidence(
                        pose=got.rounded(),
                        planned=pose.rounded(),
                        failed=failed,
                        **(
                            {"poses": {o: obs.get(o).pose.rounded() for o in others}}
                            if others
                            else {}
                        ),
                    ),
                    kind=FailureKind.POSTCONDITION,
                )
            if name in later and err > (
                TARGET_TOLERANCE if name in self._later_targets(done) else PLAN_TOLERANCE
            ):
                return Failure(
                    Stage.MONITOR,
                    f"{name} came to rest at ({got.x:.2f}, {got.y:.2f}), {err * 100:.1f} cm from where "
                    "the rest of the plan expects it",
                    str(step.op),
                    (name,),
                    Evidence(pose=got.rounded(), planned=pose.rounded()),
                    kind=FailureKind.PRECONDITION,
                )
        return (
            self._undone(step, obs, done or [step])
            or self._moved_later(step, obs, later, done if done is not None else [step])
            or self._blocked(step, obs, held, done)
        )

    def _blocked(self, step, obs, held: str | None, done: list | None) -> Failure | None:
        if done is None or getattr(self, "_plan", None) is None:
            return None
        skills = self.services.skills
        return blocked_later(
            step,
            self._plan.refinement.steps[len(done) :],
            obs,
            held,
            lambda st: held_after(skills[st.op.name].schema, st.op.args),
        )

    def _undone(self, step, obs, done: list) -> Failure | None:
        """A lasting effect of an earlier step of this plan (a skill's `effect_seen`: the mug emptied by
        its pour) no longer seen after this one, while no step since has put anything into or onto that
        object (contents taken to have fallen out where the camera could not see, seen back inside once
        the container stands upright). POSTCONDITION of the earlier step."""
        for i, st in enumerate(done[:-1]):
            seen = getattr(self.services.skills[st.op.name], "effect_seen", None)
            if seen is None or not st.op.args:
                continue
            o = st.op.args[0]
            if any(
                o in later.op.args[1:] for later in done[i + 1 :]
            ):  # filled or covered on purpose since
                continue
            if o not in obs.objects or seen(obs, st.op.args):
                continue
            # (its box is not enough: a ball by a mug's handle lies within the mug's box, not in it)
            lo, hi = obs.get(o).aabb()
            inside = [
                n
                for n in obs.movable()
                if n != o
                and lo[2] < obs.get(n).pose.z < hi[2]
                and obs.get(o).over_footprint(*obs.get(n).pose.position[:2])
            ]
            if inside:
                return Failure(
                    Stage.MONITOR,
                    f"after {step.op}, {', '.join(inside)} is inside {o} again: {st.op} did not last",
                    str(st.op),
                    (o, *inside),
                    Evidence(undone=str(st.op)),
                    kind=FailureKind.POSTCONDITION,
                )
        return None

    def _broken(self, failed: list[str]) -> str:
        """'<the failed checkers> no longer hold(s)', each named with what it tests ('action_check1 (tip the
        mug well past horizontal … so the golf ball rolls out)'): a checker's name alone told the user (and
        the replan) nothing of what went wrong."""
        c, text = self._constraints, ", ".join(failed)
        named = name_checkers(text, c.checkers.sources, c.sketch) if c is not None else text
        return f"{named} no longer hold{'s' if len(failed) == 1 else ''}"

    def _checked(self, failed: list[str]) -> list[str]:
        """The objects failed action checkers are about: action_checkK's sketch action K's moved object (a goal
        checker's objects include the supports: the region a knocked strawberry was on is not to blame)."""
        c, out = self._constraints, []
        for name in failed if c is not None else []:
            m = re.fullmatch(r"action_check(\d+)", name)
            if m and int(m.group(1)) < len(c.sketch.actions):
                out += list(c.sketch.actions[int(m.group(1))].op.args[:1])
        return list(dict.fromkeys(out))

    def _later_targets(self, done: list | None) -> set[str]:
        """Objects a step after `done` puts something into or onto (its arguments after the first)."""
        if done is None or getattr(self, "_plan", None) is None:
            return set()
        return {a for st in self._plan.refinement.steps[len(done) :] for a in st.op.args[1:]}

    def _moved_later(self, step, obs, later: set[str], done: list) -> Failure | None:
        """An object a later step acts on, which no step so far has moved (nor a container it was in:
        a fork standing in the mug goes with the mug), that is no longer where the attempt's
        observation saw it (knocked, pushed) or no longer seen at all (its place seen empty): the rest
        of the plan was planned for where it was (PRECONDITION)."""
        world = self._world
        if world is None:
            return None
        from perception.tracker import container_of

        moved_by_plan = {a for st in done for a in (*st.expected, *st.op.args)}
        for name in sorted(later):
            if name in moved_by_plan or name not in world.objects or world.objects[name].fixed:
                continue
            if (
                container_of(name, world.objects) in moved_by_plan
            ):  # inside what the plan moved: it went along
                continue
            if (
                name not in obs.objects
            ):  # perception saw its place empty (knocked off the table, say)
                was = world.objects[name].pose
                return Failure(
                    Stage.MONITOR,
                    f"{name} is no longer seen: its place at ({was.x:.2f}, {was.y:.2f}) is empty",
                    str(step.op),
                    (name,),
                    Evidence(planned=was.rounded(), seen=sorted(obs.objects)),
                    kind=FailureKind.PRECONDITION,
                )
            was, now = world.objects[name].pose, obs.objects[name].pose
            err = math.dist(was.position, now.position)
            if err > MOVED_TOLERANCE and name in self._robot_hidden:
                # partly behind the arm, its fit is no evidence (a skillet under the lifted strawberry
                # can be fitted 6 cm and 66° off): the looks after later steps, with the arm elsewhere,
                # judge it again
                continue
            if err > MOVED_TOLERANCE:
                return Failure(
                    Stage.MONITOR,
                    f"{name} was moved during {step.op} (pushed or knocked): it is at "
                    f"({now.x:.2f}, {now.y:.2f}), {err * 100:.0f} cm from where the rest of the plan expects it",
                    str(step.op),
                    (name,),
                    Evidence(pose=now.rounded(), planned=was.rounded()),
                    kind=FailureKind.PRECONDITION,
                )
        return None

    @staticmethod
    def _turned_in_hand(name: str, got, planned, obs) -> str:
        """How the held object `name` (seen at `got`) has turned from its planned pose, or '' when not
        beyond the tolerances: a long thing's far ends (any source), or the turn itself when the source's
        orientation of a held object is trusted."""
        shift = far_shift(got, planned, obs.get(name).size)
        if shift is not None and shift > GRASP_TURN_TOLERANCE:
            return f"its far end is {shift * 100:.1f} cm off the planned grasp"
        turn = angle_between(got, planned)
        if (
            turn > GRASP_ANGLE_TOLERANCE
            and obs.get(name).shape != "sphere"
            and obs.source in ORIENTATION_SOURCES
        ):
            return f"{turn:.0f}° from the planned grasp"
        return ""

    def finish(self, result) -> py_trees.common.Status:
        self.bb.executed = list(self._done)
        self.bb.placed = list(self._placed)
        self.bb.step = None
        if isinstance(result, Failure):
            return self.fail(result)
        steps = len(self._plan.refinement.steps)
        done = f"{steps} step{'' if steps == 1 else 's'} done"
        self.feedback_message = done if steps else "nothing to do: the goal already holds"
        return py_trees.common.Status.SUCCESS


def held_after(schema, args: tuple[str, ...]) -> str | None:
    """The object the hand holds after a step of this operator, from its schema (AtGrasp added, or
    required and not deleted), else None."""
    binding = dict(zip((p for p, _ in schema.params), args, strict=True))
    for pred, params in schema.add + tuple(a for a in schema.pre if a not in schema.delete):
        if pred == "AtGrasp":
            return binding[params[0]]
    return None


def create_execute_subtree() -> py_trees.behaviour.Behaviour:
    return Execute("execute")
