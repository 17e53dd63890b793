"""A typed goal at the command line: words the scene lacks get a "did you mean", a goal of no words,
an overlong one or one with terminal escapes is refused or cleaned before anything runs, an empty goal
with a task or scene file takes its instruction, a target that is no surface is named. Real CLI."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import here, last_line, owl, owl_wide
from tests.support.paths import REPO

FRUIT_BOWL = str(REPO / "examples" / "fruit_bowl.toml")


@pytest.mark.slow
def test_a_misspelt_word_gets_a_did_you_mean(tmp_path):
    proc = owl_wide(
        "run",
        "put the strawbery on the plaet",
        "--task",
        "citrus",
        "--perception",
        "sim-state",
        "--quiet",
        "--json",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 1, proc.stderr
    line = last_line(proc.stderr)
    assert (
        "'strawbery' (did you mean \"strawberry\"?)" in line
        and "'plaet' (did you mean \"plate\"?)" in line
    ), line
    assert json.loads(proc.stdout)["attempts"] == 1  # a goal it cannot read is not tried again


@pytest.mark.slow
def test_an_empty_goal_with_a_task_runs_the_tasks_instruction_and_says_so(tmp_path):
    proc = owl_wide(
        "run",
        "",
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--quiet",
        "--json",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "no goal given; using the berry1 task's instruction: \"put the strawberry onto the light-grey region"
        in proc.stderr
    )
    assert json.loads((tmp_path / "r" / "plan.json").read_text())["instruction"].startswith(
        "put the strawberry onto"
    )
    bare = here("run", "  ")
    assert bare.exit_code == 2 and "the instruction is empty" in last_line(bare.output)


def test_a_goal_without_words_is_refused_at_once(tmp_path):
    res = here("run", "🍓🍓 → 🍽️ !!! 42", "--out", str(tmp_path / "r"))
    assert res.exit_code == 2
    assert last_line(res.stderr).startswith("owl-bt: the goal has no words")
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


@pytest.mark.slow
def test_a_target_that_is_no_surface_is_named_and_a_user_scene_has_no_detector_clause(tmp_path):
    """'put the apple onto the mug': the apple is movable (it can be picked), the mug is the problem,
    and a user scene's failure line gives the reason alone (it used to end in a hedge about a
    detector the scene does not have)."""
    proc = owl_wide(
        "run",
        "put the apple onto the mug",
        "--scene",
        FRUIT_BOWL,
        "--perception",
        "sim-state",
        "--quiet",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 1, proc.stderr
    assert last_line(proc.stderr) == (
        "owl-bt: task not done: constraints: failed — the robot has no action "
        "place_ontop(apple, mug) in this scene (the mug is not something the robot "
        "can put things on)"
    )


def test_a_huge_goal_is_refused_before_anything_runs(tmp_path):
    res = here(
        "run", " ".join(["put the strawberry on the region"] * 3000), "--out", str(tmp_path / "r")
    )
    assert res.exit_code == 2
    assert (
        last_line(res.stderr)
        == "owl-bt: the instruction is 98999 characters long; say the goal in at most 1000"
    )
    assert (
        list(tmp_path.iterdir()) == []
    )  # it used to ground 6000 sketch actions and plan without end


@pytest.mark.slow
def test_terminal_escapes_in_a_typed_goal_are_not_part_of_it(tmp_path):
    proc = owl(
        "run",
        "put the \x1b[31mbanana\x1b[0m on the plate",
        "--task",
        "berry1",
        "--perception",
        "sim-state",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 2, proc.stderr
    assert last_line(proc.stderr).startswith(
        "owl-bt: there is no 'banana' in the scene"
    )  # not '[31mbanana' or 'mbanana'


@pytest.mark.slow
def test_an_absent_object_in_the_default_scene_says_which_scene_and_h_is_help():
    # With no --task, "there is no 'apple' in the scene" did not say the scene was berry1's, the
    # default; and `owl-bt run -h` was "no such option: -h"
    proc = owl("run", "put the apple in the bowl", "--perception", "sim-state", "-q")
    assert (
        proc.returncode == 2
        and "(the berry1 task's scene, the default: choose one with --task or --scene"
        in proc.stderr
    )
    named = owl(
        "run", "put the apple in the bowl", "--task", "berry1", "--perception", "sim-state", "-q"
    )
    assert named.returncode == 2 and "the default" not in named.stderr
    from typer.testing import CliRunner

    from owl_bt.cli import app

    shown = CliRunner().invoke(app, ["run", "-h"])
    assert shown.exit_code == 0 and "Usage:" in shown.output and "--task" in shown.output


def test_a_usage_error_without_a_goal_is_the_only_line(tmp_path) -> None:
    proc = owl("run", "--task", "berry1", "--seed=-1", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--seed must be from 0" in lines[0], proc.stderr
    assert not (tmp_path / "r").exists()
