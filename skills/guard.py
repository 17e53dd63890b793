"""The safety guard: every arm command of every backend (sim included) passes here first.

`SafetyGuard.check(current, waypoints, times)` accepts a joint trajectory or raises `GuardRejection`
(an `ArmFault`) naming the first violated limit, before anything reaches a backend. It checks, in
order: the numbers (finite, one value per joint), the joint position window, the largest joint jump
between neighbouring waypoints (the measured joints count as waypoint 0), the tool (TCP) and any
held object inside the workspace box, and the arm and gripper clear of the table. Velocity limits
scaled by `speed` are enforced by timing: each segment gets at least the time its slowest joint
needs at `speed` × that joint's limit, so the returned times are never earlier than those asked
for; `check_timed` rejects explicit segment durations that would be faster (backends call it on
what they are about to send). `slow_tail` stretches the last few centimetres of a guarded descent
for hardware backends, which stop it on contact.

Units: radians, rad/s, seconds, metres; positions in the world frame of the robot's base (x away
from the robot, y to its left, z up; the table top at z = 0). Forward kinematics comes from the
arm's own model (`sim.robot.RobotModel`) in a private pybullet DIRECT client with a table box.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pybullet as p

from sim import catalog
from sim.bullet import connect
from sim.robot import RobotModel, RobotSpec, robot_spec
from skills.backend import ArmFault

LIMIT_TOL = (
    0.02  # rad a measured or commanded joint may sit outside the planning window (sensor noise)
)
MAX_JUMP = (
    0.6  # rad any joint may change between neighbouring waypoints (the planner's densest jump)
)
TABLE_PENETRATION = (
    0.01  # m the open gripper or arm may sink into the table top before it is a collision
)
HELD_BELOW_TABLE = 0.02  # m a held object's bounding-box corner may dip below the table top
WORKSPACE_BOX = (
    (-0.30, -0.70, -0.01),
    (1.00, 0.70, 1.00),
)  # (lo, hi) xyz, m: tool and held objects
GUARDED_SPAN = (
    0.03  # m: the last stretch of a guarded descent (a place) that hardware runs slowly …
)
GUARDED_SPEED = 0.02  # m/s: … at no more than this tool speed, so that contact stops it gently


class GuardRejection(ArmFault):
    """A command the safety guard refused before it reached any backend; `limit` names the rule."""

    def __init__(self, limit: str, reason: str) -> None:
        super().__init__(f"safety guard: {reason}")
        self.limit = limit


@dataclass(frozen=True)
class Trajectory:
    """A checked trajectory: joint waypoints (rad) and the earliest time (s from the start) of each."""

    waypoints: tuple[tuple[float, ...], ...]
    times: tuple[float, ...]


@dataclass
class SafetyGuard:
    """Limits for one arm. speed: share of the joints' velocity limits, in (0, 1]; box: the
    workspace (lo, hi) corners for the tool and held objects; table: whether the table top (the
    benchmark table's box) is checked for collisions. `rejections` counts refused commands."""

    robot: str | RobotSpec = "ur5e"
    speed: float = 1.0
    max_jump: float = MAX_JUMP
    box: tuple[tuple[float, float, float], tuple[float, float, float]] = WORKSPACE_BOX
    table: bool = True
    rejections: int = 0
    reasons: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not (0.0 < self.speed <= 1.0) or not math.isfinite(self.speed):
            raise ValueError(
                f"speed must be in (0, 1] (a share of the velocity limits), got {self.speed}"
            )
        self.spec = robot_spec(self.robot)
        self._cid = connect(gui=False)
        self._model = RobotModel.load(self._cid, robot=self.spec, visual=False)
        self._table = None
        if self.table:
            cx, cy = catalog.TABLE_CENTRE
            sx, sy, sz = catalog.TABLE_SIZE
            shape = p.createCollisionShape(
                p.GEOM_BOX, halfExtents=(sx / 2, sy / 2, sz / 2), physicsClientId=self._cid
            )
            self._table = p.createMultiBody(
                0.0,
                shape,
                basePosition=(cx, cy, catalog.TABLE_TOP_Z - sz / 2),
                physicsClientId=self._cid,
            )
        self._held: np.ndarray | None = (
            None  # bounding-box corners of the held object, TCP frame (8 × 3)
        )

    # -- what the hand holds --------------------------------------------------------------------
    def hold(self, corners: Sequence[Sequence[float]] | None) -> None:
        """The held object's bounding-box corners in the TCP frame (m, N × 3), or None when empty."""
        self._held = None if corners is None else np.asarray(corners, dtype=float).reshape(-1, 3)

    # -- the checks ---------------------------------------------------------------------------------
    def check(
        self,
        current: Sequence[float],
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
    ) -> Trajectory:
        """The trajectory from the measured joints `current` through `waypoints`, timed within the
        scaled velocity limits; raises GuardRejection (and counts it) on the first violated limit."""
        try:
            return self._check(current, waypoints, times)
        except GuardRejection as exc:
            self.rejections += 1
            self.reasons.append(str(exc))
            raise

    def _check(self, current, waypoints, times) -> Trajectory:
        n = self.spec.dof
        pts = [tuple(float(v) for v in q) for q in waypoints]
        if not pts:
            raise GuardRejection("empty", "a trajectory without waypoints")
        if times is not None and len(times) != len(pts):
            raise GuardRejection("times", f"{len(times)} times for {len(pts)} waypoints")
        here = tuple(float(v) for v in current)
        for i, q in enumerate([here, *pts]):
            if len(q) != n:
                raise GuardRejection(
                    "shape", f"waypoint {i} has {len(q)} joints, the {self.spec.name} has {n}"
                )
            if not all(math.isfinite(v) for v in q):
                raise GuardRejection("finite", f"waypoint {i} is not a number")
        for i, q in enumerate(pts, 1):
            for j, (v, (lo, hi)) in enumerate(zip(q, self.spec.limits, strict=True)):
                if not lo - LIMIT_TOL <= v <= hi + LIMIT_TOL:
                    raise GuardRejection(
                        "position",
                        f"joint {j + 1} at {v:.3f} rad is outside [{lo:.3f}, {hi:.3f}] "
                        f"(waypoint {i})",
                    )
        for i, (a, b) in enumerate(zip([here, *pts], pts, strict=False), 1):
            jump = max(abs(x - y) for x, y in zip(a, b, strict=True))
            if jump > self.max_jump:
                raise GuardRejection(
                    "jump",
                    f"a joint jumps {jump:.2f} rad between waypoints {i - 1} and {i} "
                    f"(at most {self.max_jump:.2f})",
                )
        for i, q in enumerate(pts, 1):
            self._check_pose(q, i)
        return Trajectory(tuple(pts), self._retime(here, pts, times))

    def _check_pose(self, q: tuple[float, ...], i: int) -> None:
        self._model.reset_arm(q)
        self._model.reset_fingers(0.0)
        pos, quat = self._model.tcp_pose()
        lo, hi = self.box
        if not all(lo[k] <= pos[k] <= hi[k] for k in range(3)):
            raise GuardRejection(
                "workspace",
                f"the tool at ({pos[0]:.2f}, {pos[1]:.2f}, {pos[2]:.2f}) m leaves the "
                f"workspace box (waypoint {i})",
            )
        if self._held is not None:
            rot = np.asarray(p.getMatrixFromQuaternion(quat)).reshape(3, 3)
            corners = self._held @ rot.T + np.asarray(pos)
            low = (lo[0], lo[1], catalog.TABLE_TOP_Z - HELD_BELOW_TABLE)
            for c in corners:
                if not all(low[k] <= c[k] <= hi[k] for k in range(3)):
                    raise GuardRejection(
                        "held-workspace",
                        f"the held object reaches ({c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f}) "
                        f"m, outside the workspace box (waypoint {i})",
                    )
        if self._table is not None:
            hits = p.getClosestPoints(self._model.body, self._table, 0.0, physicsClientId=self._cid)
            deepest = min((h[8] for h in hits), default=0.0)
            if deepest < -TABLE_PENETRATION:
                raise GuardRejection(
                    "table",
                    f"the arm would sink {-deepest * 100:.1f} cm into the table (waypoint {i})",
                )

    def _retime(self, here, pts, times) -> tuple[float, ...]:
        vmax = [v * self.speed for v in self.spec.velocity_limits]
        out, t = [], 0.0
        for k, (a, b) in enumerate(zip([here, *pts], pts, strict=False)):
            need = max(abs(x - y) / v for x, y, v in zip(a, b, vmax, strict=True))
            t = max(t + need, float(times[k]) if times is not None else 0.0)
            out.append(t)
        return tuple(out)

    def check_timed(
        self,
        start: Sequence[float],
        waypoints: Sequence[Sequence[float]],
        durations: Sequence[float],
    ) -> None:
        """Reject (and count) explicit segment durations (s, one per waypoint, from the previous one
        or from `start`) that would move a joint faster than `speed` × its velocity limit."""
        vmax = [v * self.speed for v in self.spec.velocity_limits]
        prev = tuple(start)
        try:
            for i, (q, d) in enumerate(zip(waypoints, durations, strict=True), 1):
                for j, (a, b, v) in enumerate(zip(prev, q, vmax, strict=True)):
                    if abs(b - a) > v * d + 1e-9:
                        raise GuardRejection(
                            "velocity",
                            f"joint {j + 1} would move at {abs(b - a) / max(d, 1e-9):.2f} rad/s "
                            f"(limit {v:.2f} at {self.speed:.0%} speed, waypoint {i})",
                        )
                prev = tuple(q)
        except GuardRejection as exc:
            self.rejections += 1
            self.reasons.append(str(exc))
            raise

    def tool_positions(
        self, waypoints: Sequence[Sequence[float]]
    ) -> list[tuple[float, float, float]]:
        """The tool (TCP) position at each joint waypoint (m, world frame), by forward kinematics."""
        out = []
        for q in waypoints:
            self._model.reset_arm(q)
            out.append(tuple(self._model.tcp_pose()[0]))
        return out

    def slow_tail(
        self,
        start: Sequence[float],
        waypoints: Sequence[Sequence[float]],
        durations: Sequence[float],
        span: float = GUARDED_SPAN,
        speed: float = GUARDED_SPEED,
    ) -> list[float]:
        """Segment durations (s, one per waypoint, from `start`) for a guarded descent: every segment
        that ends within the last `span` metres of the tool's path is stretched so that the tool moves
        no faster than `speed` m/s there (never shortened); the rest are kept."""
        tools = self.tool_positions([start, *waypoints])
        steps = [math.dist(a, b) for a, b in zip(tools, tools[1:], strict=False)]
        out, left = list(durations), 0.0
        for i in range(
            len(steps) - 1, -1, -1
        ):  # from the end back: the path still to go after segment i
            if left < span:
                out[i] = max(out[i], steps[i] / speed)
            left += steps[i]
        return out

    def close(self) -> None:
        try:
            p.disconnect(physicsClientId=self._cid)
        except p.error:
            pass


def segments(
    start: Sequence[float],
    waypoints: Sequence[Sequence[float]],
    times: Sequence[float] | None,
    min_duration: float,
) -> tuple[list[tuple[float, ...]], list[float]]:
    """What a hardware backend sends: the waypoints (rad) and one duration per waypoint (s, from the
    previous one or from `start`), given the guard's times (s from the start); repeated waypoints are
    merged and no duration is shorter than `min_duration`. Untimed waypoints get `min_duration`."""
    pts, durations, prev, t_prev = [], [], tuple(start), 0.0
    for i, q in enumerate(waypoints):
        t = float(times[i]) if times is not None else t_prev + min_duration
        q = tuple(q)
        if max(abs(a - b) for a, b in zip(q, prev, strict=True)) < 1e-6 and pts:
            durations[-1] += max(0.0, t - t_prev)
        else:
            pts.append(q)
            durations.append(max(min_duration, t - t_prev))
        prev, t_prev = q, t
    return pts, durations
