"""perception.contents on real simulated frames with RGB-D only: a thing lying in an upright
container shows only its top over the rim; it is found there, named from the catalogue, set on
the container's floor and flagged inside it, and an empty container or one with a thing resting on
its rim gets no contents."""

from __future__ import annotations

import math

import pytest

from perception.contents import SEEN_IN_PART


@pytest.mark.parametrize(
    ("task", "thing", "container"),
    [("mug3", "golf_ball", "mug"), ("souppour", "soup", "tomato_soup_can")],
)
def test_what_lies_in_a_container_is_found_and_named(
    unlabelled_scene, task, thing, container
) -> None:
    world, camera, pipeline, _ = unlabelled_scene(task)
    truth = camera.camera.capture()
    assert (truth.seg == world.bodies[thing].id).sum() < 150  # hidden but for its top
    res = pipeline.perceive(camera.capture())
    gt = world.ground_truth().objects
    assert thing in res.objects, sorted(res.objects)
    got = res.objects[thing]
    assert got.state.kind == thing
    assert SEEN_IN_PART in got.flags and f"inside {container}" in got.flags
    assert math.dist(got.state.pose.position, gt[thing].pose.position) < 0.015
    assert got.state.size == pytest.approx(gt[thing].size, abs=1e-3)
    seen_in_part = [n for n, o in res.objects.items() if SEEN_IN_PART in o.flags]
    assert seen_in_part == [thing]  # the empty bowl beside the can holds nothing


@pytest.mark.parametrize("task", ["mug1", "mug2"])
def test_an_empty_container_or_one_with_a_thing_on_its_rim_holds_nothing(
    unlabelled_scene, task
) -> None:
    """mug1: an empty upright mug; mug2: an orange resting on the mug's rim (its own object)."""
    world, camera, pipeline, _ = unlabelled_scene(task)
    res = pipeline.perceive(camera.capture())
    assert "mug" in res.objects
    assert not [n for n, o in res.objects.items() if SEEN_IN_PART in o.flags]


def test_a_labelled_pipeline_is_not_changed(unlabelled_scene) -> None:
    """With the simulator's masks the ball is its own detection; no contents are added."""
    from owl_bt.episode import sim_camera_pipeline

    world, _, _, task = unlabelled_scene("mug3")
    camera, pipeline = sim_camera_pipeline(world, 0, instruction=task.instruction)
    res = pipeline.perceive(camera.capture())
    assert not [n for n, o in res.objects.items() if SEEN_IN_PART in o.flags]
