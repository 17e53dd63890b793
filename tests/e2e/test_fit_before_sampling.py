"""A step no draw can do is said before any sample is drawn, in a whole run: "put the power drill in
the mug" (Mug1, the mug on its side) spent 70 s and 4286 samples on grasps of the drill and ended "no
inverse-kinematics solution for the grasp on power_drill". On the real simulator, planner
and offline grounder."""

from __future__ import annotations

import pytest

from owl_bt.episode import EpisodeConfig, run_episode


@pytest.mark.slow
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
