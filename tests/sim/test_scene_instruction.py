"""A scene file's instruction is checked as a typed goal is: escapes
and control characters dropped, a goal of no words or over 1000 characters refused naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from owl_bt.errors import UsageError
from sim.scene_file import load_scene

OBJECTS = '\n[[object]]\nkind = "apple"\npose = [0.45, 0.0]\n[[object]]\nkind = "plate"\npose = [0.55, -0.16]\n'


def _scene(tmp_path: Path, instruction: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(f"instruction = {instruction}\n{OBJECTS}", encoding="utf-8")
    return path


def test_escapes_in_a_scene_instruction_are_dropped_whole(tmp_path):
    scene = load_scene(_scene(tmp_path, '"put the apple \\u001b[2J on the plate\\u0007"'))
    assert scene.instruction == "put the apple on the plate"


@pytest.mark.parametrize(
    ("instruction", "why"),
    [
        ('"🍎🍽"', "the instruction has no words"),
        (
            '"' + "put the apple on the plate " * 200 + '"',
            "the instruction is 5399 characters long; say the goal in at most 1000",
        ),
    ],
)
def test_a_scene_instruction_a_typed_goal_would_be_refused_for_is_refused_naming_the_file(
    tmp_path, instruction, why
):
    path = _scene(tmp_path, instruction)
    with pytest.raises(UsageError, match=f"^{path}: {why}"):
        load_scene(path)


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (
            'name = "bowl"\nkind = "apple"\npose = [0.45, 0.0]',
            "object 3: an apple cannot be named 'bowl', the name of another kind",
        ),
        ("pose = [0.45, 0.0]", "object 3: needs a kind (one of: "),
    ],
)
def test_an_object_named_as_another_kind_or_of_no_kind_is_refused(tmp_path, entry, why):
    # An apple named "bowl" beside a bowl named "apple" made "the bowl" unsayable; no kind read "unknown kind None"
    path = tmp_path / "s.toml"
    path.write_text(f"{OBJECTS}\n[[object]]\n{entry}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=f"^{path}: {why}".replace("(", r"\(")):
        load_scene(path)
