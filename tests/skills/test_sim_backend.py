"""How the simulated arm follows a joint path: straight stretches of a densified path run as one
synchronised move (all joints arrive together), so the arm stays on the planned segments."""

from __future__ import annotations

import numpy as np
import pytest

from owl_bt.tamp.motion import densify
from sim.robot import HOME
from sim.world import SimWorld
from skills.sim_backend import FINAL_TOL, SimArmBackend, corners


def _turning_path() -> tuple[tuple[float, ...], tuple[float, ...], list[tuple[float, ...]]]:
    corner = tuple(np.add(HOME, (0.6, 0.2, -0.3, 0.1, 0.0, 0.8)))
    end = tuple(np.add(corner, (-0.4, 0.1, 0.2, 0.0, 0.3, -0.2)))
    return corner, end, densify([tuple(HOME), corner, end])[1:]


def test_corners_of_a_densified_path_are_its_vertices():
    corner, end, path = _turning_path()
    keep = corners(HOME, path)
    assert [path[k] for k in keep] == [corner, end]
    assert corners(HOME, path[:1]) == [0]
    assert corners(HOME, []) == []


@pytest.mark.parametrize("dense", [True, False], ids=["densified", "vertices-only"])
def test_a_path_with_a_turn_is_followed_along_its_segments(dense: bool):
    corner, end, path = _turning_path()
    path = path if dense else [corner, end]  # vertices only: the joints must still arrive together
    world = SimWorld()
    try:
        world.robot.reset_arm(HOME)
        backend = SimArmBackend(world)
        worst = [0.0]
        step = world.step

        def watched(
            n: int = 1,
        ) -> None:  # distance (rad) of the arm from the nearer planned segment
            step(n)
            q = np.array(world.robot.arm_q())
            d = min(
                _off_segment(q, np.array(HOME), np.array(corner)),
                _off_segment(q, np.array(corner), np.array(end)),
            )
            worst[0] = max(worst[0], d)

        world.step = watched
        backend.execute_trajectory(path)
        assert max(abs(a - b) for a, b in zip(world.robot.arm_q(), end, strict=True)) < FINAL_TOL
        assert worst[0] < 0.03, f"the arm left the planned segments by {worst[0]:.3f} rad"
    finally:
        world.close()


def _off_segment(q: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    t = float(np.clip(np.dot(q - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0))
    return float(np.max(np.abs(q - (a + t * (b - a)))))
