"""A monitor failure names what a failed checker tests, not only its name: "action_check1 no longer
holds" told the user (and the replan) nothing (break-it, Mug3's pour). On the real simulator and planner,
with a knock injected after each step."""

from __future__ import annotations

import json

from owl_bt.episode import EpisodeConfig, run_episode
from sim import tasks


def test_a_knocked_orange_fails_its_step_with_what_its_checker_tests(tmp_path) -> None:
    out = tmp_path / "run"
    run_episode(EpisodeConfig(tasks.get("citrus").instruction, "citrus", 0, out, faults="knock=1.0", fault_seed=0,
                              max_attempts=2))
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    held = [e["reason"] for e in events if e["event"] == "failure" and "no longer holds" in e.get("reason", "")]
    assert held, [e.get("reason") for e in events if e["event"] == "failure"]
    assert "action_check3 (put the orange on the plate)" in held[0]
