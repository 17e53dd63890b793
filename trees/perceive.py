"""The perceive subtree: observe the scene → /owl/world and /owl/scene_image."""

from __future__ import annotations

import py_trees

from trees.worker import WorkerBehaviour


class Perceive(WorkerBehaviour):
    stage = "perceive"
    writes = ("world", "scene_image")

    def work(self):
        return self.services.perception.observe()

    def finish(self, obs) -> py_trees.common.Status:
        self.bb.world = obs.world
        self.bb.scene_image = obs.image_png
        self.feedback_message = f"{len(obs.world.objects)} objects from {self.services.perception.name}"
        self.services.log("perceived", source=obs.world.source,
                          objects={n: o.pose.rounded() for n, o in obs.world.objects.items()})
        return py_trees.common.Status.SUCCESS


def create_perceive_subtree() -> py_trees.behaviour.Behaviour:
    return Perceive("perceive")
