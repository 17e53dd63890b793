"""The execute subtree: run each grounded step's skill on the arm backend and monitor its effects.

After every step a fresh observation is compared with what the step should have produced (the
object held after a pick; released and within 3 cm of the planned rest pose after a place). A
mismatch is a typed failure of stage 'monitor'; a backend error one of stage 'execute'.
"""

from __future__ import annotations

import math

import py_trees

from owl_bt.failures import Failure
from trees.worker import WorkerBehaviour

POSE_TOLERANCE = 0.03  # metres


class Execute(WorkerBehaviour):
    stage = "execute"
    writes = ("executed",)
    reads = ("plan",)

    def before(self) -> None:
        self._plan = self.bb.plan
        self._done: list[str] = []

    def work(self):
        s = self.services
        for step in self._plan.refinement.steps:
            if self.cancelled():
                return Failure("execute", "cancelled", str(step.op))
            skill = s.skills[step.op.name]
            s.log("step_start", action=str(step.op))
            reason = skill.execute(s.backend, step.commands)
            if reason is not None:
                return Failure("execute", reason, str(step.op), step.op.args)
            mismatch = self.monitor(step)
            if mismatch is not None:
                return mismatch
            self._done.append(str(step.op))
            s.log("step_done", action=str(step.op))
        return None

    def monitor(self, step) -> Failure | None:
        obs = self.services.perception.observe().world
        held = self.services.backend.state().held
        if step.op.name == "pick":
            if held != step.op.args[0]:
                return Failure("monitor", f"{step.op.args[0]} is not in the gripper after the pick", str(step.op),
                               step.op.args, {"held": held})
            return None
        for name, pose in step.expected.items():
            got = obs.get(name).pose
            err = math.dist(got.position, pose.position)
            if err > POSE_TOLERANCE:
                return Failure(
                    "monitor",
                    f"{name} came to rest at ({got.x:.2f}, {got.y:.2f}), {err * 100:.0f} cm from where it was planned",
                    str(step.op), (name,), {"pose": got.rounded(), "planned": pose.rounded()},
                )
        return None

    def finish(self, result) -> py_trees.common.Status:
        self.bb.executed = list(self._done)
        if isinstance(result, Failure):
            return self.fail(result)
        self.feedback_message = f"{len(self._done)} steps done"
        return py_trees.common.Status.SUCCESS


def create_execute_subtree() -> py_trees.behaviour.Behaviour:
    return Execute("execute")
