"""An Intel RealSense (D4xx) RGB-D camera through `pyrealsense2`, imported only when one is opened.

Depth is aligned to the colour image (`rs.align(rs.stream.color)`), so both share the colour
stream's intrinsics; depth is scaled to metres by the device's depth scale (1 mm on most D4xx,
0.1 mm on a D405). The camera→world extrinsics come from calibration (`owl-bt calibrate`, the
setup file's `[camera]`), never from the device.
"""

from __future__ import annotations

import numpy as np

from perception.camera import RGBDFrame

INSTALL_HINT = "the RealSense camera needs pyrealsense2: pip install pyrealsense2"
TIMEOUT_MS = 5000  # a frame not delivered within this is a failed capture
WARMUP_FRAMES = 5  # dropped at start: auto-exposure settles over the first frames


class RealSenseError(OSError):
    """The camera could not be opened or delivered no frame (one-line reason)."""


class RealSenseCamera:
    """A `perception.camera.Camera` on the first RealSense found (or the one of `serial`).

    extrinsics: 4×4 camera→world (optical frame: x right, y down, z forward; m). width, height, fps:
    the colour and depth streams' mode. Raises RealSenseError when pyrealsense2 is missing, no
    device answers, or the mode is refused."""

    def __init__(
        self,
        extrinsics: np.ndarray,
        width: int = 640,
        height: int = 480,
        fps: int = 30,
        serial: str | None = None,
    ) -> None:
        try:
            import pyrealsense2 as rs
        except ImportError:
            raise RealSenseError(INSTALL_HINT) from None
        self._rs = rs
        self.extrinsics = np.asarray(extrinsics, dtype=np.float64)
        self.pipeline = rs.pipeline()
        config = rs.config()
        if serial:
            config.enable_device(serial)
        config.enable_stream(rs.stream.depth, width, height, rs.format.z16, fps)
        config.enable_stream(rs.stream.color, width, height, rs.format.rgb8, fps)
        try:
            profile = self.pipeline.start(config)
        except RuntimeError as exc:  # "No device connected", a mode the device lacks …
            raise RealSenseError(f"the RealSense did not start: {exc}") from None
        try:
            self.scale = float(profile.get_device().first_depth_sensor().get_depth_scale())
            colour = profile.get_stream(rs.stream.color).as_video_stream_profile()
            intr = colour.get_intrinsics()
            self.intrinsics = np.array(
                [[intr.fx, 0.0, intr.ppx], [0.0, intr.fy, intr.ppy], [0.0, 0.0, 1.0]],
                dtype=np.float64,
            )
            self.align = rs.align(rs.stream.color)
            for _ in range(WARMUP_FRAMES):
                self.pipeline.wait_for_frames(TIMEOUT_MS)
        except RuntimeError as exc:
            self.pipeline.stop()
            raise RealSenseError(f"the RealSense started but failed: {exc}") from None

    def capture(self) -> RGBDFrame:
        """The next frame pair, depth aligned to colour; RealSenseError when none arrives in time."""
        try:
            frames = self.align.process(self.pipeline.wait_for_frames(TIMEOUT_MS))
        except RuntimeError as exc:  # "Frame didn't arrive within 5000"
            raise RealSenseError(f"the RealSense delivered no frame: {exc}") from None
        depth, colour = frames.get_depth_frame(), frames.get_color_frame()
        if not depth or not colour:
            raise RealSenseError("the RealSense delivered a frame set without depth or colour")
        d = np.asanyarray(depth.get_data()).astype(np.float32) * np.float32(self.scale)
        rgb = np.asanyarray(colour.get_data()).copy()
        return RGBDFrame(rgb, d, self.intrinsics.copy(), self.extrinsics.copy())

    def close(self) -> None:
        self.pipeline.stop()
