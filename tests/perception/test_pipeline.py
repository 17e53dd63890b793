"""The RGB-D perception pipeline on real simulated scenes: accuracy against the simulator's ground
truth (issue 5 thresholds), orientation of mugs, contents of containers, names across rounds."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import numpy as np
import pybullet as p
import pytest

from owl_bt.bench.perception_bench import VISIBLE_PX, perceive_scene
from owl_bt.episode import sim_camera_pipeline
from owl_bt.state import RobotState, rotation_matrix
from perception.camera import SimCamera
from perception.detector import ROBOT
from perception.source import CameraSource
from sim import tasks
from sim.camera import render_head
from sim.world import SimWorld


@pytest.mark.parametrize(
    "task,seed", [("berry1", 0), ("citrus", 1), ("mug2", 0), ("souppour", 3), ("fruitsort", 2)]
)
def test_scene_meets_the_accuracy_thresholds(task, seed):
    sc = perceive_scene(task, seed)
    assert sc.failure is None and sc.spurious == []
    visible = [o for o in sc.objects if o.pixels >= VISIBLE_PX]
    assert visible and all(o.found and o.labelled for o in visible), [
        o.name for o in visible if not o.labelled
    ]
    cerr = [o.centroid_err for o in visible]
    serr = [o.size_err for o in visible]
    assert statistics.median(cerr) <= 0.01 and max(cerr) <= 0.025, cerr
    assert statistics.median(serr) <= 0.015, serr
    for o in sc.objects:  # nothing hidden is silently dropped: found (flagged) or reported missing
        assert o.found or o.flags


def _up(pose) -> np.ndarray:
    return np.asarray(rotation_matrix(*pose.euler))[:, 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_mug_on_its_side_or_upside_down_is_seen_so(seed):
    world = SimWorld()
    try:
        tasks.get("coffee").build(world, seed)
        camera, pipeline = sim_camera_pipeline(world, seed)
        res = pipeline.perceive(camera.capture())
        truth = world.object_states()["mug"]
    finally:
        world.close()
    got = res.objects["mug"].state
    cos = float(_up(got.pose) @ _up(truth.pose))
    assert cos > math.cos(math.radians(20)), (got.pose.rounded(), truth.pose.rounded())
    # a handle turned away from the camera leaves the yaw open; the box centre moves with it (< 2.5 cm)
    assert math.dist(got.pose.position, truth.pose.position) < 0.025


def test_contents_of_a_container_are_found_and_flagged():
    sc = perceive_scene("mug3", 0)
    ball = next(o for o in sc.objects if o.name == "golf_ball")
    assert ball.found and "inside mug" in ball.flags and ball.centroid_err < 0.015


def _source(world, seed=0, held=None):
    camera, pipeline = sim_camera_pipeline(world, seed)
    return CameraSource(camera, pipeline, robot=lambda: RobotState(world.robot.arm_q(), held=held))


def _hide_behind_a_block(world, name: str, size: float = 0.02) -> None:
    """Put a grey block on the head camera's line of sight to `name`, above the workspace (z ≈ 1 m)."""
    from sim.camera import HEAD_EYE

    pos, _ = p.getBasePositionAndOrientation(world.body_id(name), physicsClientId=world.cid)
    eye = np.asarray(HEAD_EYE)
    s = (eye[2] - 1.0) / (eye[2] - pos[2])
    at = eye + s * (np.asarray(pos) - eye)
    shape = p.createCollisionShape(
        p.GEOM_BOX, halfExtents=[size / 2] * 3, physicsClientId=world.cid
    )
    look = p.createVisualShape(
        p.GEOM_BOX,
        halfExtents=[size / 2] * 3,
        rgbaColor=[0.5, 0.5, 0.5, 1],
        physicsClientId=world.cid,
    )
    p.createMultiBody(0, shape, look, basePosition=at.tolist(), physicsClientId=world.cid)


def test_an_object_hidden_from_view_is_kept_with_a_flag_and_names_persist():
    world = SimWorld()
    try:
        tasks.get("citrus").build(world, 0)
        src = _source(world)
        first = src.observe()
        assert set(first.world.objects) == set(world.object_states()) and first.kept == []
        # something comes between the camera and the plum: it is kept from the first look, flagged
        _hide_behind_a_block(world, "plum")
        second = src.observe()
    finally:
        world.close()
    assert "plum" in second.kept and second.world.objects["plum"] == first.world.objects["plum"]
    assert any("kept from observation 1" in f for f in second.flags["plum"])
    assert set(second.world.objects) == set(first.world.objects) and second.missing == []


@pytest.mark.parametrize(
    "gone", ["plum", "plate"]
)  # (the plate, 1.5 cm flat, is judged by its top face)
def test_an_object_whose_place_is_seen_empty_is_missing_until_seen_again(gone):
    """A kept object the camera sees through (knocked off the table) is dropped and reported missing,
    with its reason, on every look until it is seen again."""
    world = SimWorld()
    try:
        tasks.get("citrus").build(world, 0)
        src = _source(world)
        first = src.observe()
        was = p.getBasePositionAndOrientation(world.body_id(gone), physicsClientId=world.cid)
        p.resetBasePositionAndOrientation(
            world.body_id(gone), (0.5, 0.0, -3.0), (0, 0, 0, 1), physicsClientId=world.cid
        )
        second, third = src.observe(), src.observe()
        p.resetBasePositionAndOrientation(world.body_id(gone), *was, physicsClientId=world.cid)
        back = src.observe()
    finally:
        world.close()
    for obs in (second, third):
        assert gone not in obs.world.objects and obs.missing == [gone] and obs.kept == []
        assert any("is seen empty" in f for f in obs.flags[gone])
        assert set(obs.world.objects) == set(first.world.objects) - {gone}
    assert gone in back.world.objects and back.missing == [] and back.kept == []


def test_unlabelled_objects_are_named_by_colour_and_keep_their_names():
    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 0)
        _, pipeline = sim_camera_pipeline(world)
        camera = SimCamera(
            lambda: render_head(world.cid), lambda: {world.robot.body: ("robot", ROBOT)}
        )  # no object labels
        src = CameraSource(camera, pipeline)
        a = src.observe()
        pos, quat = p.getBasePositionAndOrientation(
            world.body_id("strawberry"), physicsClientId=world.cid
        )
        p.resetBasePositionAndOrientation(
            world.body_id("strawberry"),
            (pos[0] + 0.02, pos[1], pos[2]),
            quat,
            physicsClientId=world.cid,
        )
        b = src.observe()
    finally:
        world.close()
    names = [n for n in a.world.objects if n != "table"]
    assert names == ["red_small_object"], names
    assert [n for n in b.world.objects if n != "table"] == names and b.kept == []
    assert (
        b.world.objects["red_small_object"].pose.x
        > a.world.objects["red_small_object"].pose.x + 0.01
    )


class _LookingVLM:
    """A stand-in vision model (the VLM protocol): it looks at the crop it is sent and calls a mostly red
    thing a strawberry, anything else a sponge; it records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[int, ...]]] = []

    def complete(self, messages, images=None):
        import io

        from PIL import Image

        img = np.asarray(Image.open(io.BytesIO(images[0])).convert("RGB"), dtype=float)
        self.asked.append((messages[0]["content"], img.shape))
        red = ((img[..., 0] > 120) & (img[..., 1] < 80)).mean()
        return "That is a strawberry." if red > 0.05 else "A sponge."


def test_a_vision_model_names_what_no_detector_labelled():
    from perception.detector import VLMCropNamer
    from perception.pipeline import Pipeline
    from sim import catalog

    world = SimWorld()
    try:
        tasks.get("berry1").build(world, 0)
        _, pipeline = sim_camera_pipeline(world)
        vlm = _LookingVLM()
        named = Pipeline(
            pipeline.detector,
            pipeline.shapes,
            catalog.COLOURS,
            namer=VLMCropNamer(vlm, list(catalog.KINDS)),
        )
        camera = SimCamera(
            lambda: render_head(world.cid), lambda: {world.robot.body: ("robot", ROBOT)}
        )
        res = named.perceive(camera.capture())
        truth = world.object_states()["strawberry"]
    finally:
        world.close()
    assert (
        len(vlm.asked) == 1 and "strawberry" in vlm.asked[0][0] and vlm.asked[0][1][0] < 100
    )  # a crop, not the frame
    got = res.objects["strawberry"]
    assert got.source == "vlm" and got.state.kind == "strawberry"
    assert math.dist(got.state.pose.position, truth.pose.position) < 0.01


def _hand_source(world, held: list) -> CameraSource:
    """The camera source of `world` with the arm's measured state: `held[0]` names what the hand holds."""
    camera, pipeline = sim_camera_pipeline(world)
    return CameraSource(
        camera,
        pipeline,
        robot=lambda: RobotState(world.robot.arm_q(), held=held[0]),
        tcp=world.robot.tcp_pose,
    )


def test_a_held_object_the_camera_cannot_see_follows_the_hand():
    world = SimWorld()
    held: list[str | None] = [None]
    try:
        tasks.get("berry1").build(world, 0)
        src = _hand_source(world, held)
        before = src.observe().world.objects["strawberry"]
        # "picked": out of the camera's sight, in the hand; then the wrist turns by 90°
        p.resetBasePositionAndOrientation(
            world.body_id("strawberry"), (0.5, 0.0, -3.0), (0, 0, 0, 1), physicsClientId=world.cid
        )
        held[0] = "strawberry"
        first = src.observe()
        hand1 = world.robot.tcp_pose()
        q = list(world.robot.arm_q())
        q[5] += math.pi / 2
        world.robot.reset_arm(q)
        second = src.observe()
        hand2 = world.robot.tcp_pose()
    finally:
        world.close()
    s1, s2 = first.world.objects["strawberry"], second.world.objects["strawberry"]
    assert "in the gripper: placed by the hand's pose" in first.flags["strawberry"]
    assert (
        math.dist(s1.pose.position, hand1[0]) < 1e-6
        and math.dist(s2.pose.position, hand2[0]) < 1e-6
    )
    assert s1.pose.euler == pytest.approx(
        before.pose.euler, abs=1e-6
    )  # a grasp does not turn what it lifts
    assert (
        abs(abs((s2.pose.yaw - s1.pose.yaw + math.pi) % (2 * math.pi) - math.pi) - math.pi / 2)
        < 0.05
    )


def test_a_held_object_fitted_far_from_the_fingers_is_placed_by_the_hand():
    # Mug3 seed 1, label-free: the held mug, fitted from a tilted view, came out 24 cm from the
    # hand, under the table top; the pour's check then failed on a mug "below the table". Here the
    # arm says it holds the strawberry the camera sees on the table, 30 cm under the hand.
    world = SimWorld()
    held: list[str | None] = [None]
    try:
        tasks.get("berry1").build(world, 0)
        src = _hand_source(world, held)
        src.observe()
        held[0] = "strawberry"
        obs = src.observe()
        hand = world.robot.tcp_pose()
    finally:
        world.close()
    got = obs.world.objects["strawberry"]
    assert math.dist(got.pose.position, hand[0]) < 1e-6
    assert "in the gripper: placed by the hand's pose" in obs.flags["strawberry"]


def test_what_the_hand_let_go_of_and_is_not_seen_is_looked_for_where_it_was_let_go():
    # The hand let go of the strawberry at (0.45, -0.10) and went home; the camera does not see it
    # (here: it is gone). It is judged where the hand let go of it, not under the hand at home.
    from owl_bt.state import Release

    world = SimWorld()
    released: dict = {}
    try:
        tasks.get("berry1").build(world, 0)
        camera, pipeline = sim_camera_pipeline(world)
        src = CameraSource(
            camera,
            pipeline,
            robot=lambda: RobotState(world.robot.arm_q()),
            tcp=world.robot.tcp_pose,
            released=lambda: dict(released.popitem() for _ in range(len(released))),
        )
        src.observe()
        p.resetBasePositionAndOrientation(
            world.body_id("strawberry"), (0.5, 0.0, -3.0), (0, 0, 0, 1), physicsClientId=world.cid
        )
        down = p.getQuaternionFromEuler((math.pi, 0.0, 0.0))
        released["strawberry"] = Release(None, ((0.45, -0.10, 0.15), down))
        obs = src.observe()
    finally:
        world.close()
    assert "strawberry" in obs.missing
    assert "its place at (0.45, -0.10) is seen empty" in obs.flags["strawberry"][0]


@pytest.mark.parametrize(("mug", "side"), [((0.76, 0.25, 0.61), -1.0), ((0.55, -0.15, 1.0), -1.0)])
def test_a_fork_standing_in_a_mug_is_seen_inside_it_on_its_floor(mug, side):
    """Mug1 seed 1 with the offline grounder: a fork standing up in the mug (its centre at the rim) was
    not flagged inside it and was seen 6-11 mm into the mug's floor, so 'the fork is in the mug' failed
    on a scene where it was (9 of 10 episodes failed so). Its lower end in the opening flags it; it is
    set onto the floor."""
    from owl_bt.language.offline_plan import PRELUDE
    from owl_bt.language.sandbox import CheckerSet
    from owl_bt.language.workspace import env_from_state
    from owl_bt.state import Pose
    from sim import catalog

    mx, my, yaw = mug
    world = SimWorld()
    try:
        world.add(catalog.make("mug"), Pose(mx, my, 0.045, 0.0, 0.0, yaw))
        r = 0.032 - 0.006  # against the inner wall, leaning 3°
        world.add(
            catalog.make("fork"),
            Pose(
                mx + side * r * math.cos(yaw),
                my + side * r * math.sin(yaw),
                0.102,
                0.0,
                math.pi / 2 - 0.05 * side,
                yaw,
            ),
        )
        world.settle(1.5)
        truth = world.ground_truth()
        seen = _source(world).observe()
    finally:
        world.close()
    assert (
        abs(truth.objects["fork"].aabb()[0][2] - 0.005) < 0.002
    )  # (the scene: standing on the mug's floor)
    assert "inside mug" in seen.flags["fork"]
    fork, cup = seen.world.objects["fork"], seen.world.objects["mug"]
    assert fork.aabb()[0][2] > cup.aabb()[0][2] + 0.003  # on the floor (6 mm up), not in it
    code = PRELUDE + '\ndef goal_check0():\n    return inside("fork", "mug")\n'
    assert CheckerSet.compile(code, seen.world, env_from_state(seen.world)).evaluate(
        "goal_check0", seen.world
    )


def test_a_held_round_body_keeps_the_turn_it_was_first_seen_held_with():
    """Mug3 (UR5e seed 2): the mug held tipped 142° over the table after its pour was fitted 70° tipped from
    the camera's half-hidden view, and the pour's checker ('tipped') failed on a pour that had happened. A
    round body's turn in the hand now comes from the hand once it was first seen held (a grasp does not
    turn what it holds); where it is, the camera still says. Here the mug is turned 25° in the fingers
    behind the camera's back: the camera would fit that turn, the hand keeps the first."""
    from owl_bt.state import Pose
    from sim.bullet import to_bullet

    world = SimWorld()
    held: list[str | None] = [None]
    try:
        tasks.get("mug3").build(world, 2)
        src = _hand_source(world, held)
        src.observe()
        mug, ball = world.body_id("mug"), world.body_id("golf_ball")
        p.resetBasePositionAndOrientation(
            ball, (0.3, 0.35, 0.021), (0, 0, 0, 1), physicsClientId=world.cid
        )
        (x, y, z), _ = world.robot.tcp_pose()
        p.resetBasePositionAndOrientation(
            mug, *to_bullet(Pose(x, y, z - 0.03)), physicsClientId=world.cid
        )
        held[0] = "mug"
        first = src.observe().world.objects["mug"]
        turned = Pose(x + 0.01, y, z - 0.03, 0.44, 0.0, 0.0)  # 25° about x, 1 cm along it
        p.resetBasePositionAndOrientation(mug, *to_bullet(turned), physicsClientId=world.cid)
        second = src.observe().world.objects["mug"]
    finally:
        world.close()
    assert abs(first.pose.roll) < 0.1 and abs(first.pose.pitch) < 0.1
    assert (
        abs(second.pose.roll) < 0.1 and abs(second.pose.pitch) < 0.1
    )  # the turn the hand holds it with
    assert abs(second.pose.x - first.pose.x - 0.01) < 0.006  # where it is: the camera's


def test_a_long_thing_half_hidden_in_the_hand_is_seen_where_it_is():
    """Mug1 (UR5e seed 4), the fork just picked by its handle: the fingers hide the handle's middle, and
    the fit started from the centre of what the camera saw stayed there — the fork seen 5 cm along its
    length from where it was and turned onto its edge, so the monitor replanned a pick that had gone to
    plan. The arm and the scene here are as they were then (joints and poses read off that run)."""
    from owl_bt.state import Pose
    from sim.bullet import to_bullet

    poses = {
        "mug": (0.464, 0.162, 0.045, 0.0, 0.0, -0.001),
        "fork": (0.553, 0.305, 0.124, 0.006, -0.004, 2.705),
        "power_drill": (0.593, -0.079, 0.1, 0.0, 0.0, -2.634),
        "potted_meat_can": (0.738, 0.275, 0.041, 0.0, 0.0, -0.819),
    }
    world = SimWorld()
    try:
        tasks.get("mug1").build(world, 4)
        for name, pose in poses.items():
            p.resetBasePositionAndOrientation(
                world.body_id(name), *to_bullet(Pose(*pose)), physicsClientId=world.cid
            )
        world.robot.reset_arm((0.2863, -1.1767, 1.6252, -2.0192, -1.5707, 3.8974))
        world.robot.reset_fingers((0.7663, 0.8001, -0.806, 0.766, 0.8006, -0.8042))
        seen = _hand_source(world, ["fork"]).observe()
    finally:
        world.close()
    fork = seen.world.objects["fork"].pose
    assert math.dist(fork.position, poses["fork"][:3]) < 0.01, fork
    assert abs(math.sin(fork.roll)) < 0.2 and abs(math.sin(fork.yaw - poses["fork"][5])) < 0.2, (
        fork
    )  # lying flat, along its length


def test_the_held_object_seen_under_another_name_at_the_hand_is_the_held_object(mustard_bottle):
    # Mug2 seed 0 (owl, label-free): just lifted off the mug, the orange was named 'mustard_bottle'
    # at the hand; the real bottle, 29 cm away, became 'mustard_bottle_2'.
    from types import SimpleNamespace

    from owl_bt.state import ObjectState, Pose
    from perception.pipeline import PerceivedObject

    hand = (0.40, -0.21, 0.25)
    orange = ObjectState(
        "orange", "orange", Pose(0.435, -0.2, 0.102), (0.07,) * 3, "sphere", kind="orange"
    )
    bottle = mustard_bottle

    def seen(state, at):
        return PerceivedObject(state, 400, centroid=at, source="catalogue match")

    def look(objects):
        src = CameraSource(None, None, tcp=lambda: (hand, (0.0, 0.0, 0.0, 1.0)))
        src.tracker.known = {"orange": orange, "mustard_bottle": bottle}
        res = SimpleNamespace(objects=objects)
        return src._held_seen_otherwise(res, "orange"), res.objects

    at_hand = replace(bottle, pose=Pose(0.40, -0.21, 0.24))
    twin = replace(bottle, name="mustard_bottle_2")
    was, objects = look(
        {
            "mustard_bottle": seen(at_hand, (0.40, -0.21, 0.24)),
            "mustard_bottle_2": seen(twin, (0.457, 0.062, 0.099)),
        }
    )
    assert was == "mustard_bottle" and set(objects) == {"orange", "mustard_bottle_2"}
    got = objects["orange"].state
    assert got.kind == "orange" and got.size == orange.size
    assert got.pose.position == (0.40, -0.21, 0.24)
    # a thing that was already where it is seen, or one out of the hand's reach: not the held one
    for name, state, at in (
        ("mustard_bottle", bottle, (0.457, 0.062, 0.099)),
        ("lemon", replace(orange, name="lemon", kind="lemon"), (0.40, -0.21, 0.12)),
    ):
        was, objects = look({name: seen(state, at)})
        assert was is None and "orange" not in objects, name
