"""perception.recorded: frames written and read back (millimetre depth, the JSON's matrices), the
replay order, and bad folders refused with one line naming the file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from owl_bt.errors import UsageError
from perception.camera import RGBDFrame
from perception.camera_spec import CameraSpec, open_camera, parse_camera
from perception.recorded import RecordedCamera, RecordingError, frame_paths, write_frame


def _frame(value: float, h: int = 24, w: int = 32) -> RGBDFrame:
    rng = np.random.default_rng(0)
    depth = np.full((h, w), value, dtype=np.float32)
    depth[0, 0], depth[0, 1], depth[0, 2] = 0.0, np.nan, 70.0  # none, none, beyond 65.535 m
    k = np.array([[500.0, 0, 16], [0, 500.0, 12], [0, 0, 1]])
    t = np.eye(4)
    t[:3, 3] = (1.0, 0.0, 1.3)
    return RGBDFrame(rng.integers(0, 255, (h, w, 3), dtype=np.uint8), depth, k, t)


def test_round_trip_keeps_millimetres_and_matrices(tmp_path) -> None:
    f = _frame(0.7534)
    write_frame(tmp_path, 0, f)
    g = RecordedCamera(tmp_path).capture()
    assert np.array_equal(g.rgb, f.rgb)
    assert g.depth.dtype == np.float32
    assert g.depth[5, 5] == pytest.approx(0.753, abs=1e-6)  # rounded to the millimetre
    assert g.depth[0, 0] == 0 and g.depth[0, 1] == 0 and g.depth[0, 2] == 0
    assert np.array_equal(g.intrinsics, f.intrinsics) and np.array_equal(g.extrinsics, f.extrinsics)
    assert g.seg is None and g.labels == {}


def test_depth_png_is_16_bit_millimetres(tmp_path) -> None:
    from PIL import Image

    write_frame(tmp_path, 3, _frame(1.25))
    _, depth_png, meta = frame_paths(tmp_path, 3)
    with Image.open(depth_png) as im:
        assert im.mode.startswith("I;16") or im.mode == "I"
        assert int(np.asarray(im)[5, 5]) == 1250
    assert json.loads(meta.read_text())["depth_unit_m"] == 0.001


def test_replay_in_order_then_holds_the_last(tmp_path) -> None:
    for i, z in enumerate((0.5, 0.6, 0.7)):
        write_frame(tmp_path, i, _frame(z))
    cam = RecordedCamera(tmp_path)
    got = [round(float(cam.capture().depth[5, 5]), 3) for _ in range(5)]
    assert got == [0.5, 0.6, 0.7, 0.7, 0.7]


def test_missing_or_empty_folder(tmp_path) -> None:
    with pytest.raises(RecordingError, match="no recorded folder"):
        RecordedCamera(tmp_path / "nope")
    with pytest.raises(RecordingError, match="holds no recorded frames"):
        RecordedCamera(tmp_path)


def test_bad_files_name_the_file(tmp_path) -> None:
    write_frame(tmp_path, 0, _frame(0.5))
    rgb, depth, meta = frame_paths(tmp_path, 0)
    meta.write_text("{not json")
    with pytest.raises(RecordingError, match="frame_000000.json: cannot be read"):
        RecordedCamera(tmp_path).capture()
    write_frame(tmp_path, 0, _frame(0.5))
    from PIL import Image

    Image.fromarray(np.zeros((24, 32, 3), dtype=np.uint8)).save(depth)  # 8-bit RGB, not depth
    with pytest.raises(RecordingError, match="not a 16-bit depth image"):
        RecordedCamera(tmp_path).capture()
    write_frame(tmp_path, 0, _frame(0.5))
    Image.fromarray(np.zeros((10, 10, 3), dtype=np.uint8)).save(rgb)
    with pytest.raises(RecordingError, match="depth is 32×24, the RGB image 10×10"):
        RecordedCamera(tmp_path).capture()
    rgb.unlink()
    with pytest.raises(RecordingError, match="No such file or directory: .*frame_000000_rgb.png"):
        RecordedCamera(tmp_path).capture()
    write_frame(tmp_path, 0, _frame(0.5))
    depth.write_bytes(depth.read_bytes()[:-30])  # a truncated PNG names its file
    with pytest.raises(RecordingError, match="frame_000000_depth.png: image file is truncated"):
        RecordedCamera(tmp_path).capture()


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("intrinsics", [[0, 0, 16], [0, 500, 12], [0, 0, 1]], "positive focal lengths"),
        ("depth_unit_m", -1, "depth_unit_m must be in"),
        ("width", 1_000_000_000, "says 1000000000×24, the images are 32×24"),
    ],
)
def test_bad_metadata_is_refused(tmp_path, key, value, words) -> None:
    write_frame(tmp_path, 0, _frame(0.5))
    meta_path = frame_paths(tmp_path, 0)[2]
    meta = json.loads(meta_path.read_text())
    meta[key] = value
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(RecordingError, match=words):
        RecordedCamera(tmp_path).capture()


def test_camera_specs() -> None:
    assert parse_camera("sim") == CameraSpec("sim")
    assert parse_camera(" RealSense ") == CameraSpec("realsense")
    assert str(parse_camera("recorded:/tmp/x")) == "recorded:/tmp/x"
    for bad in ("kinect", "recorded", "recorded:", "sim:3", ""):
        with pytest.raises(UsageError):
            parse_camera(bad)


def test_open_recorded_and_realsense(tmp_path, fake_realsense) -> None:
    write_frame(tmp_path, 0, _frame(0.5))
    assert isinstance(open_camera(parse_camera(f"recorded:{tmp_path}")), RecordedCamera)
    t = np.eye(4)
    t[2, 3] = 1.0
    cam = open_camera(parse_camera("realsense"), extrinsics=t)
    assert np.array_equal(cam.capture().extrinsics, t)
    cam.close()


def test_a_recorded_arm_is_masked_where_it_was_not_where_the_live_arm_is(
    tmp_path, unlabelled_scene
) -> None:
    """Frames recorded with the arm over the table, replayed while the live (simulated) arm is at
    home: each frame's stored joints mask the recorded arm; without them it became objects."""
    from owl_bt.episode import label_free_detector
    from owl_bt.state import RobotState
    from perception.camera import Unlabelled
    from perception.pipeline import Pipeline
    from perception.recorded import RecordingCamera

    world, camera, pipeline, _ = unlabelled_scene("berry1")
    q = (0.6, -1.2, 1.4, -1.8, -1.57, 0.3)  # over the table, in view
    world.robot.reset_arm(q)
    world.robot.command_arm(q)
    world.settle(0.2)

    def arm_now() -> RobotState:
        r = world.robot
        return RobotState(tuple(r.arm_q()), r.opening(), None, r.spec.name)

    RecordingCamera(Unlabelled(camera.camera), tmp_path, robot=arm_now).capture()
    stored = json.loads(frame_paths(tmp_path, 0)[2].read_text())["robot"]
    assert stored["arm"] == "ur5e" and stored["joints"] == pytest.approx(q, abs=0.01)
    home = RobotState(world.robot.spec.home, 0.085, None, "ur5e")
    live = Pipeline(label_free_detector("ur5e", lambda: home), pipeline.shapes, seed=0)
    replayed = RecordedCamera(tmp_path).capture()
    assert replayed.robot is not None and replayed.robot.joints == pytest.approx(q, abs=0.01)
    names = set(live.perceive(replayed).objects)
    assert names == {"strawberry", "light_grey_region", "table"}, names
    replayed.robot = None  # as a recording without the arm's state: the live arm is masked
    assert set(live.perceive(replayed).objects) - names  # the recorded arm became objects


def test_a_bad_robot_state_in_a_frame_is_named(tmp_path) -> None:
    write_frame(tmp_path, 0, _frame(0.7))
    path = frame_paths(tmp_path, 0)[2]
    meta = json.loads(path.read_text())
    meta["robot"] = {"arm": "ur5e", "joints": ["x"]}
    path.write_text(json.dumps(meta))
    with pytest.raises(RecordingError, match="bad robot state"):
        RecordedCamera(tmp_path).capture()
