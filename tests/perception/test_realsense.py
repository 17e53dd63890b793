"""perception.realsense against the pyrealsense2 fake: depth aligned to colour, scaled to metres,
the colour stream's intrinsics, and device failures as one-line RealSenseErrors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from perception.realsense import INSTALL_HINT, RealSenseCamera, RealSenseError


def test_depth_is_aligned_to_colour_in_metres(fake_realsense) -> None:
    cam = RealSenseCamera(np.eye(4), 320, 240)
    f = cam.capture()
    cam.close()
    assert f.rgb.shape == (240, 320, 3) and f.depth.shape == (240, 320)
    assert f.intrinsics[0, 0] == pytest.approx(615.0 / 2)  # the colour stream's, not the depth's
    red = np.all(f.rgb == fake_realsense.RED, axis=2)
    grey = np.all(f.rgb == fake_realsense.GREY, axis=2)
    # away from the square's edge (a pixel's footprint), every pixel has the depth of what it shows
    from scipy.ndimage import binary_erosion

    red_in, grey_in = binary_erosion(red, iterations=2), binary_erosion(grey, iterations=2)
    assert red_in.sum() > 500
    assert np.allclose(f.depth[red_in], fake_realsense.Z_NEAR, atol=1e-3)
    seen = grey_in & (f.depth > 0)
    assert np.allclose(f.depth[seen], fake_realsense.Z_FAR, atol=1e-3)
    assert seen.sum() > 0.9 * grey_in.sum()  # holes only at the margins the depth sensor misses


def test_raw_depth_would_not_be_registered(fake_realsense) -> None:
    """The fake is worth testing against: its unaligned depth puts the square elsewhere."""
    rs = fake_realsense
    pipe = rs.pipeline()
    cfg = rs.config()
    cfg.enable_stream(rs.stream.depth, 320, 240, rs.format.z16, 30)
    cfg.enable_stream(rs.stream.color, 320, 240, rs.format.rgb8, 30)
    pipe.start(cfg)
    fs = pipe.wait_for_frames()
    raw = np.asanyarray(fs.get_depth_frame().get_data())
    rgb = np.asanyarray(fs.get_color_frame().get_data())
    pipe.stop()
    red = np.all(rgb == rs.RED, axis=2)
    near = raw == round(rs.Z_NEAR / rs.DEVICE.depth_scale)
    assert (red & near).sum() < 0.6 * red.sum()


def test_depth_scale_of_the_device_is_used(fake_realsense) -> None:
    fake_realsense.DEVICE.depth_scale = 0.0001  # a D405
    cam = RealSenseCamera(np.eye(4), 320, 240)
    f = cam.capture()
    cam.close()
    red = np.all(f.rgb == fake_realsense.RED, axis=2)
    assert np.median(f.depth[red & (f.depth > 0)]) == pytest.approx(fake_realsense.Z_NEAR, abs=1e-4)


def test_extrinsics_are_the_callers(fake_realsense) -> None:
    t = np.eye(4)
    t[:3, 3] = (1.0, 0.0, 1.3)
    cam = RealSenseCamera(t, 320, 240)
    assert np.array_equal(cam.capture().extrinsics, t)
    cam.close()


def test_no_device_is_one_line(fake_realsense) -> None:
    fake_realsense.DEVICE.connected = False
    with pytest.raises(RealSenseError, match="did not start: No device connected"):
        RealSenseCamera(np.eye(4))


def test_unsupported_mode_is_refused(fake_realsense) -> None:
    with pytest.raises(RealSenseError, match="Couldn't resolve requests"):
        RealSenseCamera(np.eye(4), 1000, 1000)


def test_stalled_stream_is_an_oserror(fake_realsense) -> None:
    cam = RealSenseCamera(np.eye(4), 320, 240)
    fake_realsense.DEVICE.stalled = True
    with pytest.raises(OSError, match="delivered no frame: Frame didn't arrive within 5000"):
        cam.capture()
    cam.close()
    assert not fake_realsense.DEVICE.running


def test_missing_library_is_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyrealsense2", None)  # import raises ImportError
    with pytest.raises(RealSenseError) as info:
        RealSenseCamera(np.eye(4))
    assert str(info.value) == INSTALL_HINT
