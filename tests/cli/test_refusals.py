"""Refused runs: the oracle answers only its task's own goal and no model backend's questions, and a refused
run with --json still says why on stdout (one JSON object). Each ends in one line and exit 2."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import here, last_line, owl


def test_the_oracle_with_a_goal_of_ones_own_is_refused(tmp_path):
    # `run "put the lemon on the plate" --task citrus --vlm oracle` ran the task's own plan (the orange
    # onto the plate too) and said success: the oracle answers the task's instruction whatever the words
    for args in (["--vlm", "oracle"], ["--method", "oracle"]):
        res = here(
            "run",
            "put the lemon on the plate",
            "--task",
            "citrus",
            *args,
            "--out",
            str(tmp_path / "r"),
        )
        assert res.exit_code == 2, res.output
        assert last_line(res.stderr).startswith(
            f"owl-bt: {' '.join(args)} answers only the task's own instruction "
            '("pack the citrus fruit onto the plate"), not this goal'
        )
        assert not (tmp_path / "r").exists()


def test_the_oracle_method_with_a_model_backend_is_refused(tmp_path):
    # `run --method oracle --vlm offline` ran the oracle's answers and never said --vlm was ignored
    for vlm in ("offline", "openai"):
        res = here(
            "run",
            "--task",
            "citrus",
            "--method",
            "oracle",
            "--vlm",
            vlm,
            "--out",
            str(tmp_path / "r"),
        )
        assert res.exit_code == 2, res.output
        assert last_line(res.stderr) == (
            f"owl-bt: --method oracle answers with each task's hand-written sketch and "
            f"checkers, not a model: it cannot be combined with --vlm {vlm}; leave --vlm out"
        )
        assert not (tmp_path / "r").exists()


def test_the_oracle_with_another_method_still_answers_only_its_own_goal(tmp_path):
    # `--method no-cont --vlm oracle` ran citrus's own plan (the orange onto the plate too) for "put
    # the lemon on the plate" and said success; with direct, cap … the oracle's answers failed at exit 1
    res = here(
        "run",
        "put the lemon on the plate",
        "--task",
        "citrus",
        "--method",
        "no-cont",
        "--vlm",
        "oracle",
        "--out",
        str(tmp_path / "r"),
    )
    assert res.exit_code == 2 and "answers only the task's own instruction" in last_line(res.stderr)
    for method in ("no-disc", "direct", "cap", "cap-sample"):
        res = here(
            "run",
            "--task",
            "citrus",
            "--method",
            method,
            "--vlm",
            "oracle",
            "--out",
            str(tmp_path / "r"),
        )
        assert res.exit_code == 2, res.output
        assert last_line(res.stderr) == (
            f"owl-bt: --vlm oracle holds each task's plan sketch and checkers; --method "
            f"{method} asks the model for something else: use --vlm offline or openai with it"
        )
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_a_refused_run_with_json_says_why_on_stdout_as_json(tmp_path):
    # `run "" --json` exited 2 with stdout empty: a caller parsing stdout had nothing to read
    proc = owl(
        "run",
        "put the banana on the moon",
        "--json",
        "--quiet",
        "--perception",
        "sim-state",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 2, proc.stderr
    result = json.loads(proc.stdout)
    assert result == {
        "success": False,
        "error": last_line(proc.stderr).removeprefix("owl-bt: "),
        "exit_code": 2,
    }
    assert result["error"].startswith("there is no 'banana' in the scene")
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()
    empty = owl("run", "   ", "--json", "--out", str(tmp_path / "r"))
    assert empty.returncode == 2 and json.loads(empty.stdout)["error"].startswith(
        "the instruction is empty"
    )
    for bad in (
        ["--seed", "abc"],
        ["--robot", "abb"],
        ["--bogus"],
    ):  # refused by the option parser itself
        parsed = owl("run", "put the strawberry on the plate", "--json", *bad)
        assert parsed.returncode == 2 and json.loads(parsed.stdout)["exit_code"] == 2, (
            parsed.stdout + parsed.stderr
        )
        assert json.loads(parsed.stdout)["error"] == last_line(parsed.stderr).removeprefix(
            "owl-bt: "
        )
