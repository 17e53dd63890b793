"""OMPL RRT-Connect finds a collision-free joint path around an obstacle the straight path hits."""

from __future__ import annotations

from owl_bt.state import ObjectState, Pose, WorldState
from owl_bt.tamp.motion import densify, plan_motion, segment_free
from owl_bt.tamp.planning_model import PlanningModel


def test_path_around_a_wall():
    wall = ObjectState("wall", "box", Pose(0.36, 0.0, 0.2), (0.04, 0.3, 0.4), fixed=True)
    model = PlanningModel(WorldState(objects={"wall": wall}))
    try:
        q1 = (-1.2, -1.9, 1.9, -1.571, -1.571, 0.0)
        q2 = (1.2, -1.9, 1.9, -1.571, -1.571, 0.0)
        assert model.in_collision(q1) is None and model.in_collision(q2) is None
        assert not segment_free(model, q1, q2)  # the direct sweep hits the wall
        path = plan_motion(model, q1, q2, timeout_s=5.0)
        assert path is not None and len(path) > 2
        assert path[0] == q1 and all(abs(a - b) < 1e-9 for a, b in zip(path[-1], q2, strict=True))
        assert all(model.in_collision(q) is None for q in densify(path, 0.02))
    finally:
        model.close()
