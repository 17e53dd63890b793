"""The safety guard: each limit violated on purpose is rejected (and counted) before any backend sees
the command; a sound trajectory passes and is timed within the scaled velocity limits."""

from __future__ import annotations

import math

import pytest

from owl_bt.state import RobotState
from sim.robot import HOME, UR5E
from skills.backend import GripResult
from skills.guard import GuardRejection, SafetyGuard, segments
from skills.guarded import GuardedBackend, NotConfirmed


class RecordingBackend:
    """A backend that only records what reaches it (the guard's tests need nothing else)."""

    def __init__(self, q=HOME) -> None:
        self.q, self.moves, self.grips, self.stops = tuple(q), [], [], 0

    def state(self) -> RobotState:
        return RobotState(joints=self.q)

    def execute_trajectory(self, waypoints, times=None, guarded=False) -> None:
        self.moves.append((tuple(waypoints), tuple(times or ())))
        self.q = tuple(waypoints[-1])

    def gripper(self, command: str) -> GripResult:
        self.grips.append(command)
        return GripResult(0.085, None)

    def stop(self) -> None:
        self.stops += 1


@pytest.fixture(scope="module")
def guard():
    g = SafetyGuard(robot="ur5e", speed=0.5)
    yield g
    g.close()


def _with(i: int, v: float, q=HOME) -> tuple[float, ...]:
    return tuple(v if k == i else x for k, x in enumerate(q))


def _rejected(guard, waypoints, limit, times=None, q=HOME):
    backend = RecordingBackend(q)
    before = guard.rejections
    with pytest.raises(GuardRejection) as info:
        GuardedBackend(backend, guard).execute_trajectory(waypoints, times)
    assert info.value.limit == limit
    assert guard.rejections == before + 1
    assert not backend.moves  # nothing reached the backend
    return info.value


def test_a_sound_trajectory_passes_timed_within_the_scaled_limits(guard):
    backend = RecordingBackend()
    target = _with(0, HOME[0] + 0.4)
    path = [HOME, *[_with(0, HOME[0] + 0.05 * k) for k in range(1, 9)]]
    GuardedBackend(backend, guard).execute_trajectory(path)
    ((waypoints, times),) = backend.moves
    assert waypoints[-1] == pytest.approx(target)
    assert times[-1] == pytest.approx(0.4 / (0.5 * math.pi))  # joint 1 at 50 % of π rad/s
    assert all(b >= a for a, b in zip(times, times[1:], strict=False))


def test_times_asked_for_are_kept_when_slower(guard):
    traj = guard.check(HOME, [_with(0, HOME[0] + 0.1)], times=[2.0])
    assert traj.times == (2.0,)


def test_joint_position_limit(guard):
    exc = _rejected(
        guard, [_with(1, 0.2)], "position"
    )  # shoulder lift above 0 (arm into the table side)
    assert "joint 2" in str(exc)


def test_joint_jump_between_waypoints(guard):
    _rejected(guard, [_with(0, HOME[0] + 0.7)], "jump")


def test_jump_from_the_measured_joints_counts(guard):
    _rejected(
        guard,
        [_with(0, HOME[0] + 0.5), _with(0, HOME[0] + 0.55)],
        "jump",
        q=_with(0, HOME[0] - 0.2),
    )


def test_tool_workspace_box():
    small = SafetyGuard(
        robot="ur5e", box=((-0.3, -0.7, 0.35), (1.0, 0.7, 1.0))
    )  # the home pose's tool is at z 0.32
    try:
        before = small.rejections
        with pytest.raises(GuardRejection) as info:
            GuardedBackend(RecordingBackend(), small).execute_trajectory([HOME])
        assert info.value.limit == "workspace" and small.rejections == before + 1
    finally:
        small.close()


def test_held_object_workspace_box(guard):
    guard.hold(
        [(0.0, 0.0, 0.0), (0.0, 0.0, 0.40)]
    )  # a long thing sticking 40 cm down out of the hand
    try:
        _rejected(guard, [HOME], "held-workspace")
    finally:
        guard.hold(None)
    guard.check(HOME, [HOME])


def test_table_collision(guard):
    down = (0.0, -1.9, 1.9, -1.571, -1.571, 0.0)
    lowered = None
    for k in range(
        1, 400
    ):  # walk the shoulder down until the TCP touches the table: the fingertips are in it
        q = _with(1, down[1] + 0.005 * k, down)
        guard._model.reset_arm(q)
        if guard._model.tcp_pose()[0][2] < 0.0:
            lowered = q
            break
    assert lowered is not None
    _rejected(guard, [lowered], "table", q=_with(1, lowered[1] - 0.3, lowered))


def test_not_a_number_and_wrong_length(guard):
    _rejected(guard, [_with(2, float("nan"))], "finite")
    _rejected(guard, [HOME[:5]], "shape")


def test_velocity_of_explicit_durations(guard):
    before = guard.rejections
    with pytest.raises(GuardRejection) as info:
        guard.check_timed(HOME, [_with(0, HOME[0] + 0.3)], [0.1])  # 3 rad/s, limit 1.57 at 50 %
    assert info.value.limit == "velocity" and guard.rejections == before + 1
    guard.check_timed(HOME, [_with(0, HOME[0] + 0.3)], [0.3 / (0.5 * math.pi)])


def test_unknown_gripper_command(guard):
    backend = RecordingBackend()
    with pytest.raises(GuardRejection):
        GuardedBackend(backend, guard).gripper("squeeze")
    assert not backend.grips


def test_speed_must_be_a_share():
    for bad in (0.0, 1.5, float("nan")):
        with pytest.raises(ValueError):
            SafetyGuard(robot="ur5e", speed=bad)


def test_dry_run_shows_but_never_sends(guard):
    backend, events = RecordingBackend(), []
    arm = GuardedBackend(backend, guard, dry_run=True, log=lambda e, **kw: events.append(e))
    arm.execute_trajectory([_with(0, HOME[0] + 0.1)])
    arm.gripper("close")
    assert not backend.moves and not backend.grips
    assert events == ["dry_run_move", "dry_run_grip"]


def test_first_motion_needs_confirmation(guard):
    backend, shown = RecordingBackend(), []
    arm = GuardedBackend(backend, guard, confirm=lambda traj: shown.append(traj) or False)
    with pytest.raises(NotConfirmed):
        arm.execute_trajectory([_with(0, HOME[0] + 0.1)])
    assert shown and not backend.moves
    yes = GuardedBackend(backend, guard, confirm=lambda traj: True)
    yes.execute_trajectory([_with(0, HOME[0] + 0.1)])
    yes.execute_trajectory([_with(0, HOME[0] + 0.2)])  # asked once only
    assert len(backend.moves) == 2


def test_segments_merge_repeats_and_keep_a_minimum_duration():
    pts, durations = segments(HOME, [HOME, HOME, _with(0, 0.1)], [0.5, 1.0, 1.5], 0.05)
    assert len(pts) == 2 and durations == pytest.approx([1.0, 0.5])
    assert UR5E.dof == 6


def test_the_bench_summary_counts_guard_rejections():
    from owl_bt.bench.summary import render, summarise

    records = [
        {
            "task": "berry1",
            "seed": s,
            "method": "oracle",
            "success": True,
            "declared_success": True,
            "samples": 2,
            "wall_s": 1.0,
            "guard_rejections": n,
        }
        for s, n in enumerate((0, 2, 1))
    ]
    data = summarise(records)
    assert data["methods"]["oracle"]["overall"]["guard_rejections"] == 3
    assert "Safety-guard rejections: 3 over 3 episodes (target 0)." in render(data)
