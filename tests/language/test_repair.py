"""Constraint repair: a BerryCook-style contradiction ("in the bowl and in the pan at once") is
found before planning, sent back to the model with the evidence, and the corrected checkers make
the run succeed — through the openai backend and a chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from owl_bt.language import repair
from owl_bt.language.constraints import generate
from owl_bt.language.openai_vlm import OpenAIVLM
from owl_bt.language.settings import VLMSettings
from owl_bt.language.workspace import env_from_state
from owl_bt.tamp.grounding import ground
from sim.scene_file import load_scene
from sim.world import SimWorld
from tests.support.chat_server import ChatServer, Reply, answer

SCENE = Path(__file__).parents[1] / "fixtures" / "pan_and_bowl.toml"
SCRIPT = [
    "pan_bowl_sketch.txt",
    "pan_bowl_checkers_contradictory.txt",
    "pan_bowl_checkers_fixed.txt",
]


@pytest.fixture(scope="module")
def pan_world():
    world = SimWorld()
    try:
        load_scene(SCENE).build(world, 0)
        return world.ground_truth()
    finally:
        world.close()


def _generate(server, world, schemas, rounds):
    vlm = OpenAIVLM(VLMSettings(base_url=server.base_url, model="m", api_key="", cache_dir=None))
    g = ground(world, schemas)
    return generate(
        vlm,
        world,
        "put the strawberry in the bowl",
        schemas,
        g.ops,
        literals=g.initial,
        repair_rounds=rounds,
    )


@pytest.mark.slow
def test_a_contradiction_is_found_sent_back_and_corrected(pan_world, schemas):
    with ChatServer([Reply(answer(n)) for n in SCRIPT]) as server:
        c = _generate(server, pan_world, schemas, rounds=2)
    evidence = server.requests[2]["body"]["messages"][-1]["content"]
    assert "goal_check0 cannot be satisfied" in evidence and "do not overlap" in evidence
    assert (
        "none of 200 candidate poses" in evidence and "in_pan" in evidence
    )  # the checker's own source
    # which clause failed: each held alone in some candidates, never both together
    assert "`in_bowl (= position_within_bounds(" in evidence
    assert "never all of them together" in evidence
    # and how action checks are judged during planning
    assert "only the object that action moves has been displaced" in evidence
    assert "skillet" not in c.checkers.sources["goal_check0"] and c.queries == 3
    assert c.transcript[-1]["repair"] == ["goal_check0", "action_check1"]
    env = env_from_state(pan_world)
    assert (
        repair.check(c.checkers, pan_world, env, [["goal_check0"]], np.random.default_rng(1)) == []
    )
    # without repair rounds the contradictory checker goes to the planner as it is
    with ChatServer([Reply(answer(n)) for n in SCRIPT[:2]]) as server:
        raw = _generate(server, pan_world, schemas, rounds=0)
    assert "skillet" in raw.checkers.sources["goal_check0"]
    assert [
        u.checker
        for u in repair.check(
            raw.checkers, pan_world, env, [["goal_check0"]], np.random.default_rng(1)
        )
    ] == ["goal_check0"]


@pytest.mark.slow
def test_the_repaired_run_succeeds(tmp_path):
    env = {
        **os.environ,
        "OWL_BT_VLM_MODEL": "m",
        "OWL_BT_VLM_CACHE": "off",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
    }
    with ChatServer([Reply(answer(n)) for n in SCRIPT]) as server:
        env["OPENAI_BASE_URL"] = server.base_url
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "owl_bt.cli",
                "run",
                "",
                "--scene",
                str(SCENE),
                "--vlm",
                "openai",
                "--out",
                str(tmp_path / "run"),
                "--json",
                "-q",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["success"] and result["queries"] == 3 and len(server.requests) == 3
    assert result["plan"][:2] == ["pick(strawberry)", "place_inside(strawberry, bowl)"]


@pytest.mark.slow
def test_a_checker_refinement_cannot_satisfy_is_repaired_during_planning(tmp_path):
    # "above the bowl" passes the check before planning (a candidate can hover there), but every
    # real placement settles into the bowl: refinement finds no sample, the model gets the evidence
    # (where the strawberry really came to rest, the region tested, the code) and corrects it
    env = {
        **os.environ,
        "OWL_BT_VLM_MODEL": "m",
        "OWL_BT_VLM_CACHE": "off",
        "OWL_BT_CONFIG": str(tmp_path / "none.toml"),
    }
    script = ["pan_bowl_sketch.txt", "pan_bowl_checkers_above.txt", "pan_bowl_checkers_fixed.txt"]
    with ChatServer([Reply(answer(n)) for n in script]) as server:
        env["OPENAI_BASE_URL"] = server.base_url
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "owl_bt.cli",
                "run",
                "",
                "--scene",
                str(SCENE),
                "--vlm",
                "openai",
                "--budget",
                "40",
                "--skeletons",
                "2",
                "--out",
                str(tmp_path / "run"),
                "--json",
                "-q",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["success"] and result["queries"] == 3 and result["skeletons"] == 2
    evidence = server.requests[2]["body"]["messages"][-1]["content"]
    assert evidence.startswith("During planning, place_inside(strawberry, bowl) was tried with")
    assert (
        "rejected every such state" in evidence
        and "modify_pose_bounds_to_be_above_object" in evidence
    )
    assert (
        "- strawberry: centre x" in evidence
        and "strawberry's centre against the region" in evidence
    )
    events = [
        json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    ]
    assert [e["changed"] for e in events if e["event"] == "checker_repair"] == [True]
    plan = json.loads((tmp_path / "run" / "plan.json").read_text())
    assert "above" not in json.dumps(
        plan["checkers"]
    )  # the run folder shows the corrected checkers


def test_only_failures_the_checkers_caused_are_sent_back():
    from owl_bt.failures import Evidence, Failure
    from owl_bt.language.refine_repair import blamed_checkers

    known = {"goal_check0", "action_check1"}
    mostly_checker = Failure(
        "plan",
        "no sample",
        "place_inside(strawberry, bowl)",
        observed=Evidence(
            samples=40,
            reasons={
                "constraint action_check1 not satisfied where strawberry would rest": 7,
                "no inverse-kinematics solution": 3,
            },
        ),
    )
    assert blamed_checkers(mostly_checker, known) == (["action_check1"], 7, 10)
    robot = Failure(
        "plan",
        "no sample",
        "pick(strawberry)",
        observed=Evidence(
            samples=40,
            reasons={
                "placing strawberry there collides with bowl": 30,
                "constraint action_check1 not satisfied": 10,
            },
        ),
    )
    assert blamed_checkers(robot, known)[0] == []
    engineered = Failure(
        "plan",
        "no sample",
        observed=Evidence(samples=9, reasons={"constraint orange away not satisfied": 9}),
    )
    assert blamed_checkers(engineered, known)[0] == []  # an edit's own check, not the model's


def test_a_model_that_sends_the_same_code_back_is_not_asked_again(pan_world, schemas):
    """Two repair rounds allowed; the model repeats its contradictory checkers: that code is not
    tested a second time nor the model asked a third time (it stands by its code)."""
    script = [*SCRIPT[:2], SCRIPT[1], SCRIPT[2]]  # the fixed answer is there but never asked for
    with ChatServer([Reply(answer(n)) for n in script]) as server:
        c = _generate(server, pan_world, schemas, rounds=2)
    assert len(server.requests) == 3 and c.queries == 3
    assert "skillet" in c.checkers.sources["goal_check0"]  # the repeated code goes on as it is
    assert c.transcript[-1]["unchanged"] is True


def test_the_offline_grounder_sends_the_same_checkers_back_and_planning_goes_on(
    berry_world, schemas
):
    from owl_bt.failures import Evidence, Failure
    from owl_bt.language.backends import make_vlm
    from owl_bt.language.refine_repair import CheckerRepair

    g = ground(berry_world, schemas)
    vlm = make_vlm("offline")
    c = generate(
        vlm,
        berry_world,
        "put the strawberry onto the light grey region",
        schemas,
        g.ops,
        literals=g.initial,
    )
    events = []
    repair_cb = CheckerRepair(c, vlm, lambda event, **kw: events.append((event, kw)), {})
    failure = Failure(
        "plan",
        "no sample",
        "place_ontop(strawberry, light_grey_region)",
        observed=Evidence(samples=500, reasons={"constraint action_check1 not satisfied": 120}),
    )
    before = dict(c.checkers.sources)
    assert repair_cb(failure, [], []) is None and c.checkers.sources == before
    assert c.queries == 3 and c.transcript[-1]["during"] == "refinement"
    # the repair query is on the record as every model call is, then the repair's outcome
    assert events[0] == ("vlm_call", c.transcript[-1]["call"])
    assert events[1:] == [
        (
            "checker_repair",
            {
                "checkers": ["action_check1"],
                "changed": False,
                "reason": "the model sent the same checkers back",
            },
        )
    ]
