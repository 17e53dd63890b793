"""The execute subtree: run each grounded step's skill on the arm backend and monitor its effects.

After every step a fresh observation is compared with what the step should have produced: the
object held after a pick; after a place, the object released and the constraints the planner
accepted for that step (its generated checkers, and the goal checkers after the last step) still
holding on the observed state — where it came to rest may differ from the plan by a few centimetres
(a round object rolls) as long as the constraints hold. A mismatch is a typed failure of stage
'monitor'; a backend error one of stage 'execute'.
"""

from __future__ import annotations

import math

import py_trees

from owl_bt.failures import Failure
from skills.backend import ArmFault
from trees.recover import retreat_home
from trees.worker import WorkerBehaviour

POSE_TOLERANCE_MAX = 0.10  # metres: beyond this the object went somewhere else entirely
SETTLE_S = 0.5  # seconds the arm holds still after a step before the scene is observed
GRASP_TOLERANCE = 0.05  # metres (xy): a held object farther than this from its planned pose slipped in the grasp
# (the camera places an object the fingers hide between them until it sees it: allow for that)
PLAN_TOLERANCE = 0.03  # metres: a later step that acts on an object this far from its planned pose needs a new plan
# (above the camera pipeline's worst centroid error, 1.7 cm, so that its noise alone does not trigger one)


class Execute(WorkerBehaviour):
    stage = "execute"
    writes = ("executed",)
    reads = ("plan",)

    def before(self) -> None:
        self._plan = self.bb.plan
        self._done: list[str] = list(self.bb.get("executed")) if self.bb.exists("executed") else []

    def work(self):
        s = self.services
        steps = self._plan.refinement.steps
        for k, step in enumerate(steps):
            if self.cancelled():
                return Failure("execute", "cancelled", str(step.op))
            skill = s.skills[step.op.name]
            s.log("step_start", action=str(step.op))
            reason = skill.execute(s.backend, step.commands)
            s.on_step(str(step.op))
            failure = None
            if reason is not None:
                fatal = getattr(s.backend, "fatal", None)  # a hardware fault: stop, do not replan
                if fatal is not None:
                    return Failure("execute", reason, str(step.op), step.op.args,
                                   {"retryable": False, "fault": type(fatal).__name__})
                failure = Failure("execute", reason, str(step.op), step.op.args)
            if failure is None:
                failure = self.monitor(step, {a for st in steps[k + 1:] for a in st.op.args})
            if failure is not None:
                if not self.cancelled():
                    retreat_home(s)  # clear of the scene before the replan looks again
                return failure
            self._done.append(str(step.op))
            s.log("step_done", action=str(step.op))
        return None

    def monitor(self, step, later: set[str] = frozenset()) -> Failure | None:
        """The step's expected effects against a fresh observation; `later`: objects the rest of the
        plan acts on (their planned poses must still be good enough to act on)."""
        backend = self.services.backend
        try:  # hold still a moment so that what was let go has come to rest before we look
            backend.execute_trajectory([backend.state().joints], times=[SETTLE_S])
        except ArmFault as exc:
            return Failure("execute", str(exc), str(step.op), step.op.args)
        obs = self.services.perception.observe().world
        held = self.services.backend.state().held
        should_hold = held_after(self.services.skills[step.op.name].schema, step.op.args)
        if should_hold is not None:
            if held != should_hold:
                return Failure("monitor", f"{should_hold} is not in the gripper after {step.op}", str(step.op),
                               step.op.args, {"held": held})
        elif held is not None:
            return Failure("monitor", f"{held} is still in the gripper after {step.op}", str(step.op), (held,))
        failed = [name for name, check in step.checks if not check(obs)]
        if failed and not step.expected:
            return Failure("monitor", f"after {step.op}, {', '.join(failed)} no longer holds", str(step.op),
                           step.op.args, {"failed": failed, "poses": {a: obs.get(a).pose.rounded() for a in step.op.args
                                                                      if a in obs.objects}})
        for name, pose in step.expected.items():
            got = obs.get(name).pose
            err = math.dist(got.position, pose.position)
            # Held but not as planned: replan with the real grasp. A held object sagging in the fingers
            # is absorbed by the guarded descent; one off sideways is not.
            drift = math.dist(got.position[:2], pose.position[:2])
            if name == should_hold and drift > GRASP_TOLERANCE:
                return Failure("monitor", f"{name} sits {drift * 100:.0f} cm off the planned grasp", str(step.op), (name,),
                               {"pose": got.rounded(), "planned": pose.rounded()})
            if name == should_hold:
                continue
            if failed or err > POSE_TOLERANCE_MAX:
                return Failure(
                    "monitor",
                    f"{name} came to rest at ({got.x:.2f}, {got.y:.2f}), {err * 100:.0f} cm from where it was planned"
                    + _turned(got, pose) + (f"; {', '.join(failed)} no longer holds" if failed else ""),
                    str(step.op), (name,), {"pose": got.rounded(), "planned": pose.rounded(), "failed": failed},
                )
            if name in later and err > PLAN_TOLERANCE:
                return Failure("monitor", f"{name} came to rest at ({got.x:.2f}, {got.y:.2f}), {err * 100:.0f} cm from where "
                               "the rest of the plan expects it", str(step.op), (name,),
                               {"pose": got.rounded(), "planned": pose.rounded()})
        return None

    def finish(self, result) -> py_trees.common.Status:
        self.bb.executed = list(self._done)
        if isinstance(result, Failure):
            return self.fail(result)
        self.feedback_message = f"{len(self._plan.refinement.steps)} steps done"
        return py_trees.common.Status.SUCCESS


def _turned(got, planned) -> str:
    """', turned N° from the planned orientation' when the object is seen turned by over 20°, else ''."""
    import pybullet as p

    qa, qb = p.getQuaternionFromEuler(got.euler), p.getQuaternionFromEuler(planned.euler)
    angle = math.degrees(2.0 * math.acos(min(1.0, abs(sum(a * b for a, b in zip(qa, qb, strict=True))))))
    return f", turned {angle:.0f}° from the planned orientation" if angle > 20 else ""


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
