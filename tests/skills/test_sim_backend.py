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


def test_what_the_hand_let_go_of_is_reported_once_with_where_it_gripped_and_let_go(skills):
    # Perception places an object it does not see after a release where the hand let it go; the
    # simulated arm (the twin of a real one) reports each release once, with the hand's poses.
    from owl_bt.tamp.operators import GroundOp
    from owl_bt.tamp.search import SketchItem, plan
    from tests.support.worlds import world_with

    world = world_with(("banana", (0.50, -0.10, 0.02, 0.0, 0.0, 0.4)))
    try:
        result = plan(
            world.ground_truth(),
            skills,
            [SketchItem(GroundOp("pick", ("banana",)))],
            [],
            np.random.default_rng(0),
            500,
            1,
        )
        assert result.failure is None, result.failure and result.failure.line()
        backend = SimArmBackend(world)
        assert skills["pick"].execute(backend, result.refinement.steps[0].commands) is None
        assert backend.held == "banana" and backend.take_released() == {}
        lifted = world.robot.tcp_pose()
        backend.execute_trajectory([tuple(HOME)], times=[2.0])
        hand = world.robot.tcp_pose()
        backend.gripper("open")
        released = backend.take_released()
        assert list(released) == ["banana"]
        assert np.allclose(released["banana"].hand[0], hand[0], atol=2e-3)
        grasp = released["banana"].grasp[0]
        assert np.allclose(grasp[:2], (0.50, -0.10), atol=0.03)  # gripped over the banana …
        assert grasp[2] < lifted[0][2] - 0.02  # … below where the pick lifted it to
        assert np.linalg.norm(np.subtract(grasp, hand[0])) > 0.05  # let go elsewhere
        assert backend.take_released() == {}  # once
    finally:
        world.close()
