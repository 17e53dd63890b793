"""Resting on a flat marker is resting on the table: "put the strawberry in the middle of the table" in
Berry1's scene, whose middle the light-grey region covers, failed every sample with "strawberry does not
end up resting on table" (newcomer). On the real simulator, planner and offline grounder."""

from __future__ import annotations

from owl_bt.episode import EpisodeConfig, run_episode


def test_the_middle_of_a_table_a_marker_covers_is_reached(tmp_path) -> None:
    result = run_episode(EpisodeConfig("put the strawberry in the middle of the table", "berry1", 1, tmp_path / "run",
                                       max_attempts=1))
    assert result.success and result.declared_success, result.failure
    assert result.executed == ["pick(strawberry)", "place_ontop(strawberry, table)"]
