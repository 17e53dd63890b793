"""The perceive subtree: observe the scene → /owl/world and /owl/scene_image.

A look is confirmed (`trees.observe`): the first look of a run takes a second frame, and a look
that misses an object the previous look saw looks again, so one missed detection does not make an
object vanish from the plan. With the camera source, each round's labelled image goes to the run
folder as `perception-<round>.png` (one file per round: perception-1.png, perception-2.png …); objects
kept unseen or missing are logged; the missing ones (name → why, e.g. "its place … is seen empty")
also go on the blackboard (`missing`), for the replan's constraints to refuse a goal that needs one.
"""

from __future__ import annotations

from pathlib import Path

import py_trees

from owl_bt.failures import Stage
from trees.observe import confirmed_observation
from trees.worker import WorkerBehaviour


class Perceive(WorkerBehaviour):
    stage = Stage.PERCEIVE
    writes = ("world", "scene_image", "missing")

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.rounds = 0
        self._known: tuple[str, ...] = ()
        self._first = True
        self._frames = 1

    def before(self) -> None:
        previous = self.bb.get("world") if self.bb.exists("world") else None
        self._first = previous is None
        self._known = tuple(previous.objects) if previous is not None else ()

    def work(self):
        self.rounds += 1
        try:
            obs, self._frames = confirmed_observation(
                self.services.perception, self._known, self._first
            )
            return obs
        finally:
            self._save_image(getattr(self.services.perception, "last_annotated", None))

    def _save_image(self, png: bytes | None) -> None:
        out = getattr(self.services.perception, "out_dir", None)
        if png is None or out is None:
            return
        name = f"perception-{self.rounds}.png"
        tmp = Path(out) / (name + ".tmp")
        tmp.write_bytes(png)
        tmp.replace(Path(out) / name)

    def finish(self, obs) -> py_trees.common.Status:
        self.bb.world = obs.world
        self.bb.scene_image = obs.image_png
        flags = getattr(obs, "flags", {}) or {}
        self.bb.missing = {
            n: "; ".join(flags.get(n, [])) for n in getattr(obs, "missing", []) or []
        }
        self.feedback_message = (
            f"{len(obs.world.objects)} objects from {self.services.perception.name}"
        )
        if getattr(obs, "kept", None) or getattr(obs, "missing", None):
            self.feedback_message += f" ({len(obs.kept)} kept unseen, {len(obs.missing)} missing)"
        self.services.log(
            "perceived",
            source=obs.world.source,
            objects={n: o.pose.rounded() for n, o in obs.world.objects.items()},
            flags=getattr(obs, "flags", {}),
            kept=getattr(obs, "kept", []),
            missing=getattr(obs, "missing", []),
            frames=self._frames,
            timings={k: round(v, 3) for k, v in getattr(obs, "timings", {}).items()},
        )
        return py_trees.common.Status.SUCCESS


def create_perceive_subtree() -> py_trees.behaviour.Behaviour:
    return Perceive("perceive")
