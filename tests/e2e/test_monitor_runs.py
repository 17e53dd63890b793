"""The monitor in whole runs on the real simulator and planner: a step whose checker a knock broke
fails with what that checker tests (not only its name), and the fingers leaving a strawberry in a mug
no longer lift the mug (Mug2 seed 0 ended with the mug hanging at the hand and said success)."""

from __future__ import annotations

import json
import re

import pytest

from owl_bt.episode import EpisodeConfig, run_episode
from sim import tasks


@pytest.mark.slow
def test_a_knocked_orange_fails_its_step_with_what_its_checker_tests(tmp_path) -> None:
    seen = []
    # (which object a knock hits, and when, depends on the plan: a knocked one that an earlier step had placed
    # breaks that step's checker; at 16df0b3 fault seeds 7 and 8 did, at 02506a3 seed 15 does, so they are
    # tried first, then the rest)
    for fault_seed in (15, 7, 8, *range(7), *range(9, 12)):
        out = tmp_path / f"run{fault_seed}"
        run_episode(
            EpisodeConfig(
                tasks.get("citrus").instruction,
                "citrus",
                0,
                out,
                faults="knock=1.0",
                fault_seed=fault_seed,
                max_attempts=1,
            )
        )
        events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
        seen += [e.get("reason") for e in events if e["event"] == "failure"]
        failures = [
            e for e in events if e["event"] == "failure" and "no longer hold" in e.get("reason", "")
        ]
        held = [e["reason"] for e in failures]
        if held:
            break
    assert held, seen
    m = re.search(r"action_check\d+ \(put the (\w+) on the plate\)", held[0])
    assert m, held[0]
    # the object whose checker broke is among those blamed (only the one just placed was named)
    assert m.group(1) in failures[0]["offending_objects"], failures[0]


@pytest.mark.slow
def test_the_run_that_lifted_the_mug_now_leaves_it_on_the_table(tmp_path):
    # Mug2 seed 0, "put the strawberry in the mug": the fingers, opened fully around the strawberry deep in the
    # mug (6.4 cm across inside, the fingers 8.5 cm open), pressed into its wall and lifted it as the hand left.
    # They now open only as far as the walls leave room (place_inside), and the mug stays on the table.
    out = tmp_path / "run"
    result = run_episode(
        EpisodeConfig(instruction="put the strawberry in the mug", task="mug2", seed=0, out=out)
    )
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert not [
        e for e in events if e["event"] == "failure" and (e.get("observed") or {}).get("caught")
    ]
    assert result.success and result.declared_success, result.failure
    assert result.executed[-1] == "place_inside(strawberry, mug)"
