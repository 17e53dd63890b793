"""`run --rerun`: a 3D log of the run for the rerun viewer (rerun-sdk), saved as `run.rrd` in the run
folder (`rerun runs/<run>/run.rrd` opens it) and, when a viewer listens at `viewer_url()` (`rerun`
started beforehand: rerun+http://127.0.0.1:9876/proxy, or `$OWL_BT_RERUN_URL`), streamed to it live.

What it holds, in the world frame (metres, z up):
- `world/camera/points`: each camera frame back-projected to a coloured point cloud (every 4th pixel);
- `world/objects`: each look's perceived objects as boxes (pose and size), labelled by name;
- `world/plan/<k>/step<n>`: the planned tool path of step n of the k-th plan found (forward kinematics
  of its joint waypoints, in a collision-only arm of its own), labelled with its ground operator;
- `world/executed/tool`: the tool's position as the arm moved (every 0.05 s of simulated time), and
  `world/executed/path` the whole path at the end;
- `tree`: the executive's tree with its statuses, whenever it changes.
Timelines: `wall` (seconds since the run started) everywhere, and `sim` (simulated seconds) for the
executed path.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import py_trees
import pybullet as p

from sim.bullet import connect
from sim.robot import RobotModel
from sim.world import TIME_STEP
from trees.snapshot import tree_text

PIXEL_STEP = 4  # back-project every 4th pixel of each row and column
EXECUTED_EVERY_S = 0.05  # simulated seconds between points of the executed tool path
PLAN_RGB, EXECUTED_RGB = (60, 130, 230), (230, 90, 40)
DEFAULT_VIEWER = (
    "rerun+http://127.0.0.1:9876/proxy"  # where a `rerun` started without arguments listens
)


def viewer_url(env: dict[str, str] | None = None, timeout_s: float = 0.2) -> str | None:
    """The gRPC address of a rerun viewer that is listening now (`$OWL_BT_RERUN_URL`, else rerun's
    default), or None when nothing accepts a connection there within `timeout_s` seconds."""
    env = os.environ if env is None else env
    url = env.get("OWL_BT_RERUN_URL") or DEFAULT_VIEWER
    parts = urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or 9876), timeout_s
        ):
            return url
    except (OSError, ValueError):
        return None


class RerunLog:
    """Logs a simulated run (`world`: a `sim.world.SimWorld`) into `path` (.rrd), and to the viewer at
    `viewer` (a rerun gRPC URL) too when given. Install with `tap(perception)`, `with log.executing():`
    around the run and `on_tick(root)` every tick; `close()`."""

    def __init__(self, path: Path, world, viewer: str | None = None) -> None:
        import rerun as rr

        self.rr = rr
        self.world = world
        self.viewer = viewer
        self.rec = rr.RecordingStream("owl-bt")
        sinks = [rr.FileSink(str(path))] + ([rr.GrpcSink(viewer)] if viewer else [])
        self.rec.set_sinks(*sinks)
        self.rec.log("world", rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
        self.t0 = time.monotonic()
        self.every = max(1, round(EXECUTED_EVERY_S / TIME_STEP))
        self.path: list[tuple[float, float, float]] = []
        self._tree = ""
        self._plan = None
        self._plans = 0
        self._fk: RobotModel | None = None

    def _wall(self) -> None:
        self.rr.set_time("wall", duration=time.monotonic() - self.t0, recording=self.rec)

    # -- perception -------------------------------------------------------------------------
    def tap(self, perception) -> None:
        """Log what `perception` (a `perception.source` source) sees: wrap its `observe`, and its
        camera's `capture` when it has one (the camera source)."""
        observe = perception.observe

        def observed():
            obs = observe()
            self.objects(obs.world)
            return obs

        perception.observe = observed
        camera = getattr(perception, "camera", None)
        if camera is not None:
            capture = camera.capture

            def captured():
                frame = capture()
                self.cloud(frame)
                return frame

            camera.capture = captured

    def cloud(self, frame) -> None:
        """An RGB-D frame (`perception.camera.RGBDFrame`) as a coloured point cloud, world frame."""
        from perception.cloud import backproject

        points, colours, _, _ = backproject(frame, stride=PIXEL_STEP)
        self._wall()
        self.rec.log(
            "world/camera/points",
            self.rr.Points3D(points, colors=(colours * 255).astype(np.uint8), radii=0.002),
        )

    def objects(self, world_state) -> None:
        """The perceived objects (`owl_bt.state.WorldState`) as labelled boxes."""
        items = [o for o in world_state.objects.values() if o.size and not o.fixed]
        if not items:
            return
        self._wall()
        self.rec.log(
            "world/objects",
            self.rr.Boxes3D(
                centers=[o.pose.position for o in items],
                half_sizes=[[s / 2 for s in o.size] for o in items],
                quaternions=[
                    self.rr.Quaternion(xyzw=p.getQuaternionFromEuler(o.pose.euler)) for o in items
                ],
                labels=[o.name for o in items],
            ),
        )

    # -- execution --------------------------------------------------------------------------
    def executing(self):
        """A context manager recording the tool's path while physics steps."""
        log = self

        class _Executing:
            def __enter__(self):
                log.world.add_step_watcher(log.every, log._tool_point)
                return log

            def __exit__(self, *exc):
                log.world.remove_step_watcher(log._tool_point)

        return _Executing()

    def _tool_point(self) -> None:
        point = tuple(self.world.robot.tcp_pose()[0])
        self.path.append(point)
        self.rr.set_time("sim", duration=self.world.steps * TIME_STEP, recording=self.rec)
        self._wall()
        self.rec.log("world/executed/tool", self.rr.Points3D([point], colors=[EXECUTED_RGB]))

    # -- the executive ----------------------------------------------------------------------
    def on_tick(self, root: py_trees.behaviour.Behaviour) -> None:
        """Log the tree when its statuses changed, and each new plan's tool paths."""
        text = tree_text(root)
        if text != self._tree:
            self._tree = text
            self._wall()
            self.rec.log("tree", self.rr.TextDocument(text))
        storage = py_trees.blackboard.Blackboard.storage
        plan = storage.get("/owl/plan")
        if plan is not None and plan is not self._plan:
            self._plan = plan
            self._plans += 1
            self.planned(plan)

    def planned(self, plan) -> None:
        """Each step's planned tool path: forward kinematics of its moves' joint waypoints."""
        from skills.base import Move

        if self._fk is None:
            self._fk = RobotModel.load(connect(False), robot=self.world.robot.spec, visual=False)
        self._wall()
        for n, step in enumerate(plan.refinement.steps, 1):
            points = []
            for command in step.commands:
                if isinstance(command, Move):
                    for q in command.waypoints:
                        self._fk.reset_arm(q)
                        points.append(self._fk.tcp_pose()[0])
            if points:
                self.rec.log(
                    f"world/plan/{self._plans}/step{n}",
                    self.rr.LineStrips3D(
                        [points], colors=[PLAN_RGB], radii=0.002, labels=[str(step.op)]
                    ),
                )

    def close(self) -> None:
        """Log the whole executed tool path, then flush and close the .rrd file."""
        if self.path:
            self._wall()
            self.rec.log(
                "world/executed/path",
                self.rr.LineStrips3D([self.path], colors=[EXECUTED_RGB], radii=0.003),
            )
        if self._fk is not None:
            p.disconnect(physicsClientId=self._fk.cid)
        self.rec.flush()
        self.rec.disconnect()
