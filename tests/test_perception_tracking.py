"""Perception between the steps of a plan (`Pipeline._tracked`): an object that has not moved is
tracked from its last fit, found where a full search finds it; one that moved or turned is searched
for afresh and found where it now is. Real simulated scenes, the head camera with its depth noise."""

from __future__ import annotations

import math

import pybullet as p

from owl_bt.episode import EpisodeConfig, run_episode, sim_camera_pipeline
from owl_bt.state import rotation_matrix
from sim import tasks
from sim.world import SimWorld


def _turn_deg(a, b) -> float:
    """Angle (degrees) between the orientations of poses a and b."""
    ra, rb = rotation_matrix(*a.euler), rotation_matrix(*b.euler)
    c = (sum(ra[i][j] * rb[i][j] for i in range(3) for j in range(3)) - 1) / 2
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def test_unmoved_objects_are_tracked_and_a_moved_one_is_found_afresh_where_it_now_is():
    world = SimWorld()
    try:
        tasks.get("mug2").build(world, 0)  # a mug with an orange on it, a fork, a knife, a sponge ...
        camera, pipeline = sim_camera_pipeline(world, 0)
        first = pipeline.perceive(camera.capture())
        fitted = dict(pipeline._fits)
        assert {"mug", "sponge", "knife"} <= set(fitted)
        again = pipeline.perceive(camera.capture())  # nothing moved; a new frame (new depth noise)
        assert {n: f[1] for n, f in pipeline._fits.items()} == {n: f[1] for n, f in fitted.items()}  # no new search
        for name in fitted:
            a, b = first.objects[name].state.pose, again.objects[name].state.pose
            turn = 0.0 if first.objects[name].state.shape == "sphere" else _turn_deg(a, b)  # (a ball's turn is not seen)
            assert math.dist(a.position, b.position) < 0.003 and turn < 3, (name, a.rounded(), b.rounded())

        # the sponge pushed 8 cm towards the middle of the table and turned by a radian
        sponge = world.body_id("sponge")
        was = world.pose("sponge")
        p.resetBasePositionAndOrientation(sponge, (was.x, was.y - math.copysign(0.08, was.y), was.z),
                                          p.getQuaternionFromEuler((0, 0, was.yaw + 1.0)), physicsClientId=world.cid)
        world.settle()
        truth = world.object_states()["sponge"].pose
        moved = pipeline.perceive(camera.capture())
    finally:
        world.close()
    assert pipeline._fits["sponge"][1] is not fitted["sponge"][1]  # searched afresh ...
    got = moved.objects["sponge"].state.pose
    assert math.dist(got.position, truth.position) < 0.01, (got.rounded(), truth.rounded())
    assert abs(math.remainder(got.yaw - truth.yaw, math.pi)) < math.radians(10)  # ... and found turned (a box: mod 180°)
    still = [n for n in fitted if n != "sponge" and pipeline._fits[n][1] is fitted[n][1]]
    assert len(still) >= len(fitted) - 2, still  # the rest still tracked (but what the sponge now hides or uncovers)


def test_a_placed_strawberry_is_seen_where_it_came_to_rest(tmp_path):
    # Berry1 seed 4: tracked from its last fit (in the hand), the just-placed strawberry's pose slid 1.2 m off, under
    # the table, where the point-to-plane residuals of its points happened to be small; the monitor took it to have
    # fallen off the table and the run failed. A tracked pose must keep its points near its surface, within 2 cm.
    task = tasks.get("berry1")
    res = run_episode(EpisodeConfig(task.instruction, task="berry1", seed=4, out=tmp_path / "run", vlm="oracle",
                                    perception="camera", max_attempts=1))
    assert res.success and res.declared_success, res.failure
