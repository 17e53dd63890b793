"""Help texts: flags shown as flags, the choices of each option listed, an example per command, every
bench method explained in a sentence, no word broken at its hyphen and no quoted goal wrapped."""

from __future__ import annotations

import re

import pytest

from tests.support.cli import here, last_line, owl_scripted, owl_wide


def test_help_lists_the_choices_and_another_value_is_a_usage_error_naming_them():
    from owl_bt.bench.methods import available
    from owl_bt.cli.choices import PERCEPTION_SOURCES
    from owl_bt.episode_config import PERCEPTION_SOURCES as EPISODE_SOURCES

    assert PERCEPTION_SOURCES == EPISODE_SOURCES
    shown = here("run", "--help").output
    for listed in (
        "<sim|kortex|rtde>",
        "<camera|camera-unlabelled|sim-state>",
        f"<{'|'.join(available())}>",
        "<offline|openai|replay|oracle>",
        "<sphinx|openai>",
        "<ur5e|ur5|kinova-gen3|",
    ):
        assert listed in shown, listed
    assert not re.search(r"--(vlm|method|perception|asr|robot|backend) <str>", shown)
    # a path, a task list or a fault list says what it is, not "<str>"
    for command in ("run", "bench", "perception-bench"):
        assert not re.search(r"--[a-z-]+ <str>", here(command, "--help").output), command
    assert "--out DIR" in shown and "--scene FILE" in shown and "--replay RUN_DIR" in shown
    assert (
        "<camera|camera-unlabelled|sim-state>" in here("bench", "--help").output
        and "<kortex|rtde>" in here("doctor", "--help").output
    )
    proc = owl_wide("run", "x", "--backend", "ros")
    assert proc.returncode == 2
    assert last_line(proc.stderr).startswith(
        "owl-bt: invalid value for '--backend': 'ros' is not one of 'sim', 'kortex', 'rtde'; see "
    )


def test_bench_help_explains_every_method_in_a_sentence():
    """`bench --help` listed the method names only; docs/benchmark.md says what each is."""
    from owl_bt.bench import methods

    shown = " ".join(here("bench", "--help").output.split())  # each method is a wrapped paragraph
    for name in methods.available():
        sentence = methods.METHODS[name].explained
        assert len(sentence) > 40 and sentence.endswith("."), name
        assert f"{name}: {sentence}" in shown, name
    for words in (
        "no-back: No backtracking",
        "no-cont: No generated checkers",
        "oracle: Each task's hand-written",
    ):
        assert words in shown


COMMANDS = ["run", "tasks", "skills", "doctor", "bench", "perception-bench"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_flags_as_flags_and_no_spec_sections(command):
    res = here(*([command] if command else []), "--help")
    assert res.exit_code == 0, res.output
    assert "<bool>" not in res.output  # a flag takes no value
    assert (
        "SPEC" not in res.output and "§" not in res.output and "issue 5" not in res.output
    )  # users do not have the spec
    if command == "run":
        assert (
            "--gui " in res.output
            and "--execute / --dry-run" in res.output
            and "--verbose" in res.output
        )
    if command == "perception-bench":
        assert "--noise / --no-noise" in res.output


def test_the_help_example_goal_is_never_wrapped_inside_its_quotes():
    # it was re-flowed with the paragraph: 'owl-bt run "put the strawberry onto the light-' / 'grey region…'
    from typer.testing import CliRunner

    from owl_bt.cli.base import app

    for columns in ("60", "80", "200"):
        shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": columns}).output
        assert (
            '    owl-bt run "put the strawberry onto the light-grey region at the center of the table" --task berry1\n'
            in shown
        ), shown


@pytest.mark.parametrize("command", COMMANDS)
def test_help_never_breaks_a_word_at_its_hyphen(command):
    # `--faults` printed its example as 'grasp-' / 'slip=0.2,…' and `--execute` as '--dry-' / 'run'
    from typer.testing import CliRunner

    from owl_bt.cli.base import app

    for columns in ("60", "80", "120"):
        shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": columns}).output
        broken = [
            line
            for line in shown.splitlines()
            if line.rstrip().endswith("-") and not line.rstrip().endswith(" -")
        ]
        assert not broken, (columns, broken)
        if command in ("run", "bench"):
            assert "grasp-slip=0.2,knock=0.1" in shown, shown


@pytest.mark.parametrize("command", ["bench", "perception-bench", "skills", "doctor"])
def test_help_teaches_with_an_example(command):
    proc = owl_scripted(command, "--help")
    text = " ".join(proc.stdout.split())
    assert (
        proc.returncode == 0
        and "Examples:" in text
        and f"owl-bt {command} " in text.split("Examples:")[1]
    )
    assert "default" in text.lower()
