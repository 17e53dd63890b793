"""The comparison methods (docs/benchmark.md): what each changes in the episode configuration and in what
the model is asked and the planner is handed (language side, on a real scene; no planning here)."""

from __future__ import annotations

import pytest

from owl_bt.bench import methods
from owl_bt.episode import EpisodeConfig
from owl_bt.errors import GroundingError, ModelAnswerError, UnsafeCodeError
from owl_bt.language import cap
from owl_bt.language.backends import make_vlm
from owl_bt.language.constraints import generate
from owl_bt.language.workspace import env_from_state
from owl_bt.tamp.grounding import ground
from tests.support.worlds import task_state

TASK = "put the strawberry onto the light-grey region at the center of the table"


def test_every_method_is_available_and_configures_an_episode():
    base = EpisodeConfig(TASK, vlm="openai")
    got = {name: methods.get(name).configure(base) for name in methods.METHODS}
    assert got["owl"].vlm == "openai" and got["oracle"].vlm == "oracle"
    assert (got["no-back"].skeletons, got["no-back"].budget) == (1, 500)
    assert (got["no-sample"].skeletons, got["no-sample"].budget) == (5, 1)
    assert got["no-cont"].vlm == "no-cont/openai" and got["direct"].vlm == "direct/openai"
    assert (got["cap"].vlm, got["cap"].budget, got["cap"].skeletons, got["cap"].max_attempts) == (
        "cap/openai",
        1,
        1,
        1,
    )
    assert (got["cap-sample"].budget, got["cap-sample"].max_attempts) == (500, 1)
    assert methods.get("no-disc").configure(got["no-cont"]).vlm == "no-disc/openai"  # never stacked


def _gen(method: str, world, schemas, task: str = TASK):
    g = ground(world, schemas)
    return generate(make_vlm(f"{method}/offline"), world, task, schemas, g.ops, literals=g.initial)


def test_language_side_of_the_methods(berry_world, schemas):
    owl = _gen("owl", berry_world, schemas)
    assert owl.queries == 2 and owl.checkers.evaluate("goal_check0", berry_world) is False
    nocont = _gen("no-cont", berry_world, schemas)
    assert (
        nocont.queries == 1
        and nocont.sketch == owl.sketch
        and nocont.goal_checkers() == ["goal_check0"]
    )
    assert "position_within_bounds" not in nocont.checkers.sources["goal_check0"]
    assert nocont.checkers.evaluate("goal_check0", berry_world) is False  # nothing has moved yet
    direct = _gen("direct", berry_world, schemas)
    assert [str(a.op) for a in direct.sketch.actions] == [
        "place_ontop(strawberry, light_grey_region)"
    ]
    assert (
        "Goal:" in direct.transcript[0]["answer"]
        and "On(strawberry, light_grey_region)" in direct.transcript[0]["answer"]
    )
    nodisc = _gen("no-disc", berry_world, schemas)
    assert [a.op.name for a in nodisc.sketch.actions] == [
        "place_ontop"
    ] and nodisc.action_checkers() == {0: "action_check0"}


def test_direct_says_why_it_cannot_judge_a_fit(schemas):
    # The direct prompt names the objects without sizes: "whatever fits" cannot be judged from it,
    # and the answer says so, not that nothing fits (Mug1's fork does).
    mugs = task_state("mug1", 0)
    goal = "put whatever object fits inside the mug into it"
    with pytest.raises(GroundingError, match="needs the objects' sizes; this prompt gives none"):
        _gen("direct", mugs, schemas, goal)
    assert "place_inside(fork, mug)" in [
        str(a.op) for a in _gen("owl", mugs, schemas, goal).sketch.actions
    ]


def test_cap_runs_gen_plan_in_the_sandbox(berry_world, schemas):
    ops = ground(berry_world, schemas).ops
    env = env_from_state(berry_world)
    fixed = (
        '```python\ndef gen_plan(initial):\n    r = get_obj_center(initial, env, "light_grey_region")\n'
        '    return [("pick", "strawberry"), ("place_ontop", "strawberry", "light_grey_region", (r[0], r[1]))]\n```'
    )
    sketch, src, as_given = cap.compile_plan(fixed, berry_world, env, ops)
    assert [str(a.op) for a in sketch.actions] == [
        "pick(strawberry)",
        "place_ontop(strawberry, light_grey_region)",
    ]
    assert "def action_check1" in src and "def goal_check0" in src
    centre = berry_world.get("light_grey_region").pose
    assert [(str(f.op), f.values) for f in as_given] == [
        ("pick(strawberry)", ()),
        ("place_ontop(strawberry, light_grey_region)", (centre.x, centre.y)),
    ]
    drawn = fixed.replace("(r[0], r[1])", "sample_ravenpose_uniformly_within_bounds(b)").replace(
        "    r = get_obj_center",
        "    b = modify_pose_bounds_to_be_ontop_of_object(initial, env, init_bounds, 'strawberry', "
        "'light_grey_region')\n    r = get_obj_center",
    )
    _, src2, as_given2 = cap.compile_plan(drawn, berry_world, env, ops)
    assert as_given2 is None  # drawn from a region: the planner re-draws, nothing is fixed
    region = berry_world.get("light_grey_region").aabb()
    assert f"{round(region[0][0], 4)}" in src2  # the region the code drew from, not one point
    with pytest.raises(ModelAnswerError, match="not one of the robot's actions"):
        cap.compile_plan(fixed.replace('"pick"', '"fly"'), berry_world, env, ops)
    with pytest.raises(ModelAnswerError, match="gen_plan.*failed"):
        cap.compile_plan(
            fixed.replace("return [", "x = 1 / 0\n    return ["), berry_world, env, ops
        )
    with pytest.raises(UnsafeCodeError):
        cap.compile_plan(
            "```python\nimport os\ndef gen_plan(initial):\n    return []\n```",
            berry_world,
            env,
            ops,
        )
    # (5,000 steps were accepted and planned for until the time limit)
    many = (
        "```python\ndef gen_plan(initial):\n    out = []\n    for i in range(40):\n"
        '        out = out + [("pick", "strawberry"), ("place_ontop", "strawberry", "light_grey_region", (0.5, 0.0))]\n'
        "    return out\n```"
    )
    with pytest.raises(ModelAnswerError, match="returned 80 steps; at most 60"):
        cap.compile_plan(many, berry_world, env, ops)
    offline = _gen("cap-sample", berry_world, schemas)
    assert offline.queries == 1 and "def gen_plan(initial)" in offline.transcript[0]["answer"]
    assert offline.sample_total == 2500 and _gen("cap", berry_world, schemas).sample_total is None


def test_cap_sample_shares_one_budget_of_2500_samples_over_the_task(berry_world, schemas):
    from owl_bt.language.planning import planner_for

    asked = []

    def planner(world, skills, sketch, goal_checkers, rng, budget=500, max_skeletons=5, **kwargs):
        asked.append(budget)

    c = _gen("cap-sample", berry_world, schemas)
    for n in (2, 10, 4000):
        planner_for(c, planner)(berry_world, {}, list(range(n)), [], None, 500, 1)
    assert asked == [500, 250, 1]
    planner_for(_gen("owl", berry_world, schemas), planner)(
        berry_world, {}, list(range(10)), [], None, 500, 1
    )
    assert asked[-1] == 500  # every other method keeps the per-action budget


@pytest.mark.slow
def test_cap_plan_is_carried_out_as_given(berry_world, skills):
    import numpy as np

    from owl_bt.language.cap_plan import FixedStep, plan_fixed
    from owl_bt.tamp.operators import GroundOp

    r = berry_world.get("light_grey_region").pose
    pick = FixedStep(GroundOp("pick", ("strawberry",)))
    place = FixedStep(
        GroundOp("place_ontop", ("strawberry", "light_grey_region")), (r.x + 0.03, r.y - 0.02)
    )
    res = plan_fixed((pick, place), berry_world, skills, [], [], np.random.default_rng(0))
    assert res.refinement.ok and res.skeletons == 1
    placed = res.refinement.steps[1]
    assert (placed.params["x"], placed.params["y"], placed.params["face"]) == (
        r.x + 0.03,
        r.y - 0.02,
        None,
    )
    assert (
        abs(placed.expected["strawberry"].x - (r.x + 0.03)) < 0.01
    )  # where the code said, no other value tried
    # out of the arm's reach: planning fails naming the code's step and values, nothing else is tried
    far = FixedStep(place.op, (1.5, 0.0))
    bad = plan_fixed((pick, far), berry_world, skills, [], [], np.random.default_rng(0))
    assert (
        not bad.refinement.ok
        and "place_ontop(strawberry, light_grey_region) at (1.500, 0.000)" in bad.failure.reason
    )


def test_cap_sample_code_draws_a_moved_blocker_from_beside_what_it_blocked(schemas):
    from tests.support.worlds import task_state

    s0 = task_state("berry2", 0)
    code = _gen("cap-sample", s0, schemas).transcript[0]["answer"]
    can = code[code.index('("pick", "potted_meat_can")') : code.index('("pick", "strawberry")')]
    assert (
        'modify_pose_bounds_to_be_ontop_of_object(initial, env, init_bounds, "potted_meat_can", "table")'
        in can
    )
    assert (
        '_of_object(initial, env, b, "light_grey_region")' in can
    )  # left or right of the region, not anywhere


def test_a_bench_asks_the_vlm_it_is_given(tmp_path, monkeypatch):
    # `bench --vlm openai`: the language methods ask the endpoint, the oracle keeps its own answers;
    # a bench folder keeps one --vlm per method (the endpoint's settings are checked, not asked)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OWL_BT_VLM_MODEL", "test-vlm")
    monkeypatch.setenv("OWL_BT_CONFIG", str(tmp_path / "none.toml"))
    from owl_bt.bench.config import check_same_setup, make_config
    from owl_bt.bench.runner import plan_jobs
    from owl_bt.errors import UsageError

    def vlms(method: str, vlm: str) -> set[str]:
        cfg = make_config(method, "berry1", 1, None, tmp_path / vlm, 1, 500, 4, vlm=vlm)
        return {job.cfg.vlm for job in plan_jobs(cfg)}

    assert vlms("owl", "openai") == {"openai"} and vlms("owl", "offline") == {"offline"}
    assert vlms("no-cont", "openai") == {"no-cont/openai"}
    assert vlms("oracle", "openai") == {"oracle"}
    with pytest.raises(UsageError, match="unknown bench VLM backend 'replay'"):
        make_config("owl", "berry1", 1, None, tmp_path / "r", 1, 500, 4, vlm="replay")
    cfg = make_config("owl", "berry1", 1, None, tmp_path / "x", 1, 500, 4, vlm="openai")
    record = {"task": "berry1", "seed": 0, "method": "owl", "vlm": "offline"}
    with pytest.raises(UsageError, match="--vlm offline"):
        check_same_setup(cfg, [record])
    check_same_setup(cfg, [{**record, "vlm": "openai"}])
