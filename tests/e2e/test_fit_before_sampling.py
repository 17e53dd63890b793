"""A goal no draw can meet is said before any sample is drawn, in a whole run: "put the power drill
in the mug" (Mug1, the mug on its side) is refused by the grounder as impossible, with the sizes
that make it so. The planner's own fit check (a container a thing is narrower than, but not its
opening) is tests/tamp/test_fit_before_sampling.py. On the real simulator, planner and offline
grounder."""

from __future__ import annotations

import pytest

from owl_bt.episode import EpisodeConfig, run_episode


@pytest.mark.slow
def test_a_drill_that_fits_no_mug_fails_before_a_sample_and_says_why(tmp_path) -> None:
    result = run_episode(
        EpisodeConfig("put the power drill in the mug", "mug1", 0, tmp_path / "run")
    )
    assert not result.success and result.samples == 0
    # the grounder already sees the drill is wider than the whole mug: no plan sketch to refine
    assert result.failure.startswith("constraints: failed — the goal cannot be done")
    assert "power drill is 19 cm across at its narrowest way in" in result.failure
    assert "wider than the whole mug (7 cm across)" in result.failure
    assert result.attempts == 1  # no replan: it would find the same
