"""A step no draw can do is said before any sample is drawn: "put the power drill in the mug" (Mug1, the
mug on its side) spent 70 s and 4286 samples on grasps of the drill and ended "no inverse-kinematics
solution for the grasp on power_drill" — nothing said the drill cannot go into a mug (newcomer). On the
real simulator, planner and offline grounder."""

from __future__ import annotations

from owl_bt.episode import EpisodeConfig, run_episode


def test_a_drill_that_fits_no_mug_fails_before_a_sample_and_says_why(tmp_path) -> None:
    result = run_episode(
        EpisodeConfig("put the power drill in the mug", "mug1", 0, tmp_path / "run")
    )
    assert not result.success and result.samples == 0
    assert (
        "place_inside(power_drill, mug) failed — power_drill does not fit into mug"
        in result.failure
    )
    assert "whose 19.0 cm side cannot pass mug's opening, 6.4 cm across" in result.failure
    assert result.attempts == 1  # no replan: it would find the same


def test_a_box_passes_a_round_opening_only_by_its_diagonal(skills) -> None:
    """Newcomer: "put the sponge in the red mug" (a 6.5 × 3 cm cross-section, 7.2 cm corner to corner, and a
    6.4 cm opening) drew 6,816 samples over ten minutes; the check compared the 6.5 cm side alone."""
    from owl_bt.tamp.planning_model import PlanningModel
    from tests.support.worlds import settled_state

    state = settled_state(
        ("mug", (0.5, 0.1, 0.046)),
        ("sponge", (0.5, -0.15, 0.016)),
        ("fork", (0.6, -0.1, 0.01)),
        ("golf_ball", (0.4, -0.1, 0.022)),
    )
    model = PlanningModel(state)
    try:
        never = skills["place_inside"].never
        why = never(model, ("sponge", "mug"))
        assert why is not None and why.startswith(
            "sponge does not fit into mug: 3.0 × 6.5 cm at its slimmest cross-section, "
            "7.2 cm corner to corner, wider than mug's opening"
        ), why
        assert never(model, ("fork", "mug")) is None and never(model, ("golf_ball", "mug")) is None
    finally:
        model.close()
