"""A golf ball into an empty upright mug: held round its middle, the fingers are wider than the mug's opening,
so every placement met the rim ("placing golf_ball there collides with mug", 500 of 500 draws). The
hand is raised until it clears the rim and the ball is let go from there, falling in: judged, as every
release, after physics. Real skills, real planning model."""

from __future__ import annotations

import numpy as np

from owl_bt.tamp.planning_model import PlanningModel
from skills.place import is_inside
from skills.registry import load_skills
from tests.support.worlds import world_with


def test_a_golf_ball_is_let_go_over_an_empty_mug_and_falls_in():
    skills = load_skills()
    world = world_with(("mug", (0.55, 0.1, 0.05)), ("golf_ball", (0.5, -0.15, 0.021)))
    try:
        model = PlanningModel(world.ground_truth())
    finally:
        world.close()
    try:
        rng = np.random.default_rng(0)
        assert any(
            skills["pick"]
            .simulate(model, ("golf_ball",), skills["pick"].sample(model, ("golf_ball",), rng))
            .ok
            for _ in range(20)
        )
        held = model.snapshot()
        rim = model.state().get("mug").aabb()[1][2]
        placed, reasons = None, []
        for _ in range(30):
            model.restore(held)
            params = skills["place_inside"].sample(model, ("golf_ball", "mug"), rng)
            out = skills["place_inside"].simulate(model, ("golf_ball", "mug"), params)
            if out.ok:
                placed = out
                break
            reasons.append(out.reason)
        assert placed is not None, reasons
        assert is_inside(model.state(), "golf_ball", "mug")
        release = placed.commands[1].waypoints[-1]  # the descent ends where the hand lets go
        model.set_arm(release)
        assert model.robot.tcp_pose()[0][2] > rim, (
            "let go from inside the mug's opening, where the fingers meet the rim"
        )
    finally:
        model.close()
