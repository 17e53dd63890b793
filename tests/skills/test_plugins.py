"""Skill plugins: the `push` skill ships as its own package (tests/plugins/owl_bt_push), is
pip-installed into a scratch folder and found through the entry-point group `owl_bt.skills` alone;
the planner, the prompts and the tree then use it with no edit to owl-bt, and a scene that needs it
(tests/plugins/push_scene.toml: slide a sponge onto a region) is done."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from owl_bt.language.scripted import ScriptedVLM
from perception.source import SimStateSource
from sim.scene_file import load_scene
from sim.world import SimWorld
from skills.base import Outcome, Skill
from skills.registry import load_skills
from skills.sim_backend import SimArmBackend
from trees.runner import run_tree
from trees.services import Services

PLUGINS = Path(__file__).parents[1] / "plugins"
SKETCH = """The sponge lies beside the light grey region; it is slid there, not carried.

Plan:
push(sponge, light_grey_region); slide the sponge onto the middle of the region
achieve_goal(sponge, light_grey_region); the sponge rests on the region
"""
CHECK = """def {name}():
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, "sponge", "light_grey_region")
    return position_within_bounds(get_obj_center(state, env, "sponge"), b)
"""
CHECKERS = (
    "```python\n"
    + CHECK.format(name="goal_check0")
    + "\n"
    + CHECK.format(name="action_check0")
    + "```\n"
)


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """The plugin pip-installed (its own pyproject, setuptools backend) into a scratch site folder."""
    src = tmp_path_factory.mktemp("src") / "owl_bt_push"
    shutil.copytree(PLUGINS / "owl_bt_push", src)
    site = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(site),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert (site / "owl_bt_push").is_dir()
    return site


def test_core_has_no_push():
    assert "push" not in load_skills()


def test_owl_bt_skills_lists_the_plugin_with_its_schema(plugin_site):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(plugin_site), os.environ.get("PYTHONPATH", "")]),
    }
    r = subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", "skills", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    by_name = {s["name"]: s for s in json.loads(r.stdout)}
    assert {"pick", "place_ontop", "place_inside", "pour", "push"} <= set(by_name)
    push = by_name["push"]
    assert push["signature"] == "push(o: Movable, s: Surface)"
    assert push["package"] == "owl-bt-push" and push["entry_point"] == "owl_bt_push.push:PushSkill"
    assert push["pre"] == "HandEmpty()" and push["add"] == "On(o, s)" and push["open_world"] is True
    assert by_name["pick"]["package"] == "owl-bt"
    text = subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", "skills"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    ).stdout
    assert "push(o: Movable, s: Surface)" in text and "slides the movable object" in " ".join(
        text.split()
    )


def _run_push_scene(seed: int):
    scene = load_scene(PLUGINS / "push_scene.toml")
    world = SimWorld()
    try:
        scene.build(world, seed)
        backend = SimArmBackend(world)
        services = Services(
            backend=backend,
            perception=SimStateSource(world, held=lambda: backend.held),
            vlm=ScriptedVLM("script", SKETCH, CHECKERS),
            skills=load_skills(),
            rng=np.random.default_rng(seed),
        )
        res = run_tree(services, scene.instruction, max_attempts=3)
        world.settle(0.3)
        truth = world.ground_truth()
    finally:
        world.close()
    return res, services, truth


def test_a_scene_that_needs_push_is_done_with_the_plugin(plugin_site, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_site))
    assert "push" in load_skills()  # found through the entry point alone
    res, services, truth = _run_push_scene(seed=1)
    assert res.status.name == "SUCCESS", res.blackboard.get("history")
    assert res.blackboard["executed"][-1] == "push(sponge, light_grey_region)"
    prompt = services.transcripts[0][0]["prompt"]
    assert (
        "push(o, s): slides the movable object o" in prompt
    )  # the prompt lists the plugin's operator
    assert "- push(sponge, light_grey_region)" in prompt  # and its grounded use in this scene
    # judged on the simulator's ground truth, not the robot's account: the sponge's centre is over the region
    lo, hi = truth.get("light_grey_region").aabb()
    sponge = truth.get("sponge").pose
    assert lo[0] <= sponge.x <= hi[0] and lo[1] <= sponge.y <= hi[1]
    assert abs(truth.get("sponge").aabb()[0][2] - hi[2]) < 0.01  # resting on it, not lifted


def test_without_the_plugin_the_same_answers_are_refused():
    res, _, truth = _run_push_scene(seed=1)
    assert res.status.name == "FAILURE"
    assert (
        "push" in res.blackboard["failure"].reason
        and res.blackboard["failure"].stage == "constraints"
    )
    assert truth.get("sponge").pose.y > 0.15  # nothing moved it


def test_a_plugin_schema_the_planner_cannot_use_is_named():
    # A plugin whose schema was a string ended `owl-bt skills` and `run` in a traceback; one with no
    # effects failed the run later as "constraints: failed — ValueError …"
    from owl_bt.tamp.operators import OperatorSchema
    from skills.registry import _schema_problem

    good = load_skills()["pick"].schema
    assert _schema_problem(good) is None
    assert (
        _schema_problem("not a schema")
        == "its schema is a str, not an owl_bt.tamp.operators.OperatorSchema"
    )
    named = OperatorSchema("Pick Up!", good.params, good.pre, good.add, good.delete, "x")
    assert "not a lower-case identifier" in _schema_problem(named)
    assert (
        _schema_problem(OperatorSchema("nudge", good.params, good.pre, (), (), "x"))
        == "its operator 'nudge' has no effects (add or delete literals)"
    )


def test_a_plugin_whose_hooks_take_no_step_is_named():
    from skills.registry import _hook_problem

    class OldStyle(Skill):
        schema = load_skills()["pick"].schema

        def sample(self, model, args, rng) -> dict:
            return {}

        def simulate(self, model, args, params, step=None) -> Outcome:
            return Outcome(ok=True)

    assert _hook_problem(load_skills()["pick"]) is None
    assert _hook_problem(OldStyle()) == (
        "its sample() takes no `step` argument (the refinement's StepContext; "
        "see docs/architecture.md)"
    )
