"""User scene files: the example loads and builds, also with a UTF-8 byte-order mark; names are unique
ignoring case; each kind of bad file (not a small file, nested too deep, a pose that is not a number)
is a one-line usage error, also through the CLI (exit 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from owl_bt.episode import EpisodeConfig, validate
from owl_bt.errors import UsageError
from owl_bt.language.sandbox import reserved_names
from sim import catalog
from sim.scene_file import OBJECT_KEYS, load_scene
from sim.world import SimWorld
from tests.support.cli import here, last_line, owl, owl_wide
from tests.support.paths import REPO

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fruit_bowl.toml"


def scene_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scene.toml"
    path.write_text(text)
    return path


def test_example_loads_and_builds():
    scene = load_scene(EXAMPLE)
    assert scene.instruction and scene.detect is None and not scene.oracle_sketch
    names = [o.spec.name for o in scene.objects]
    assert len(names) == len(set(names)) and "red_bowl" in names
    for seed in (0, 1):
        world = SimWorld()
        try:
            scene.build(world, seed)
            states = world.object_states()
            assert set(names) <= set(states)
            assert states["red_bowl"].colour == "red" and states["red_bowl"].kind == "bowl"
            assert world.contacts("lemon", "plate")
            for n in names:  # everything stays on the table
                assert -0.01 < states[n].pose.z < 0.2 and 0.2 < states[n].pose.x < 0.9
        finally:
            world.close()


def _commented_words(text: str, key: str) -> set[str]:
    """The words after `#   <key>` in the example's header and on its indented continuation lines."""
    words: list[str] = []
    lines = iter(text.splitlines())
    for line in lines:
        if line.startswith(f"#   {key} "):
            words += line.split(":", 1)[1].split()
            for more in lines:
                if not more.startswith("#          "):
                    break
                words += more[1:].split()
    return set(words)


def test_example_header_documents_every_kind_colour_and_key():
    text = EXAMPLE.read_text()
    assert _commented_words(text, "kind") == set(catalog.KINDS) - {"table"}
    assert _commented_words(text, "colour") == set(catalog.COLOURS)
    for key in OBJECT_KEYS:
        assert f"#   {key} " in text, key


def test_random_poses_follow_the_seed(tmp_path):
    path = scene_file(
        tmp_path, '[[object]]\nkind = "apple"\npose = "random"\n[[object]]\nkind = "pear"\n'
    )
    spots = []
    for seed in (4, 4, 5):
        world = SimWorld()
        try:
            load_scene(path).build(world, seed)
            spots.append(world.pose("apple").rounded(3)[:2])
        finally:
            world.close()
    assert spots[0] == spots[1] != spots[2]


def test_objects_rest_on_a_marker_under_them(tmp_path):
    path = scene_file(
        tmp_path,
        '[[object]]\nkind = "white_mat"\npose = [0.55, 0.0]\n'
        '[[object]]\nkind = "potted_meat_can"\npose = [0.55, 0.0]\n',
    )
    world = SimWorld()
    try:
        load_scene(path).build(world, 0)
        assert world.contacts("potted_meat_can", "white_mat")
    finally:
        world.close()


BAD = {
    "unknown kind": (
        '[[object]]\nkind = "durian"\npose = [0.5, 0.0]\n',
        "unknown kind 'durian'; known kinds: apple",
    ),
    "overlap": (
        '[[object]]\nkind = "apple"\npose = [0.5, 0.0]\n[[object]]\nkind = "orange"\npose = [0.52, 0.01]\n',
        "'apple' and 'orange' overlap",
    ),
    "off table": ('[[object]]\nkind = "apple"\npose = [1.2, 0.0]\n', "off the table"),
    "out of reach": ('[[object]]\nkind = "apple"\npose = [0.85, 0.0]\n', "out of the arm's reach"),
    "duplicate": (
        '[[object]]\nkind = "apple"\npose = [0.5, 0.1]\n[[object]]\nkind = "apple"\npose = [0.5, -0.1]\n',
        "two objects are called 'apple'",
    ),
    "malformed": ('[[object]]\nkind = "apple\npose = [0.5, 0.1]\n', "not valid TOML"),
    "bad pose": ('[[object]]\nkind = "apple"\npose = [0.5]\n', "pose must be [x, y]"),
    # A roll of 1e308 (finite, so not caught as inf) was taken and the run went ahead
    "huge angle": (
        '[[object]]\nkind = "apple"\npose = [0.5, 0.0, 0.03, 1e308, 0, 0]\n',
        "each within ±2π",
    ),
    "bad colour": ('[[object]]\nkind = "apple"\ncolour = "mauve"\n', "unknown colour 'mauve'"),
    "colour not a word": ('[[object]]\nkind = "apple"\ncolour = [1, 2]\n', "unknown colour [1, 2]"),
    "no objects": ('instruction = "do it"\n', "no objects"),
    "unknown key": ('[[object]]\nkind = "apple"\nweight = 3\n', "unknown key 'weight'"),
    "size of a fixed-size kind": ('[[object]]\nkind = "apple"\nsize = 0.05\n', "has a fixed size"),
    "size of the wrong length": (
        '[[object]]\nkind = "cylinder"\nsize = [0.05]\n',
        "a cylinder's size is [diameter, height]",
    ),
    "size too large": ('[[object]]\nkind = "box"\nsize = [0.5, 0.05, 0.05]\n', "each size must be"),
    "rgba out of range": ('[[object]]\nkind = "box"\nrgba = [2, 0, 0]\n', "rgba must be"),
    "colour and rgba": (
        '[[object]]\nkind = "box"\ncolour = "red"\nrgba = [1, 0, 0]\n',
        "colour or rgba, not both",
    ),
    # Goals are read in lower case, so "the Big_Apple" could not be named; "robot", "it", "two" are words
    # goals use for other things
    "capitals": (
        '[[object]]\nkind = "apple"\nname = "Big_Apple"\n',
        "name 'Big_Apple' must be lower case, e.g. 'big_apple'",
    ),
    "reserved": (
        '[[object]]\nkind = "apple"\nname = "robot"\n',
        "name 'robot' is a word goals use for something else",
    ),
    "reserved in capitals": (
        '[[object]]\nkind = "apple"\nname = "Robot"\n',
        "name 'Robot' is a word goals use for something",
    ),
    "an article": (
        '[[object]]\nkind = "apple"\nname = "the"\n',
        "name 'the' is a word goals use for something else",
    ),
    # An apple named "state" hid the state from every checker, and the run blamed the planner
    "the checkers' state": (
        '[[object]]\nkind = "apple"\nname = "state"\n',
        "name 'state' is a word the constraint code uses",
    ),
    "math": (
        '[[object]]\nkind = "apple"\nname = "math"\n',
        "name 'math' is a word the constraint code uses",
    ),
    "a builtin": (
        '[[object]]\nkind = "apple"\nname = "min"\n',
        "name 'min' is a word the constraint code uses",
    ),
    "a keyword": (
        '[[object]]\nkind = "apple"\nname = "lambda"\n',
        "name 'lambda' is a word the constraint code uses",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scene_is_a_one_line_usage_error(tmp_path, case):
    text, expected = BAD[case]
    with pytest.raises(UsageError) as err:
        load_scene(scene_file(tmp_path, text), reserved_names())
    assert expected in err.value.reason and "\n" not in err.value.reason
    if case == "malformed":
        assert "line 2" in err.value.reason


def test_missing_scene_file(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        load_scene(tmp_path / "nope.toml")


def test_episode_takes_the_scene_instruction_when_the_goal_is_empty():
    cfg = EpisodeConfig("", scene=EXAMPLE)
    scene = validate(cfg)
    assert cfg.instruction == scene.instruction == "put the apple into the red bowl"


def test_cli_bad_scene_exits_2_with_one_line(tmp_path):
    bad = scene_file(tmp_path, BAD["overlap"][0])
    proc = owl(
        "run", "put the apple onto the plate", "--scene", str(bad), "--out", str(tmp_path / "r")
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "overlap" in lines[0]
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


def test_cli_scene_and_task_are_mutually_exclusive(tmp_path):
    proc = owl("run", "put the apple into the bowl", "--scene", str(EXAMPLE), "--task", "berry1")
    assert proc.returncode == 2
    assert "mutually exclusive" in proc.stderr and "Traceback" not in proc.stderr


def _on_floor(outer: str, inner: str, dz: float) -> str:
    """A scene: `outer` resting at (0.5, 0), `inner` dz above the floor of outer's cavity (z its box centre)."""
    from sim.catalog import make
    from sim.catalog.layout import resting_pose

    o, i = make(outer), make(inner)
    (olo, ohi), (ilo, ihi) = o.bounds(), i.bounds()
    floor = (
        resting_pose(o, 0.5, 0.0).position[2] - (ohi[2] - olo[2]) / 2 + o.extra["cavity"]["bottom"]
    )
    x = (
        0.5 - (olo[0] + ohi[0]) / 2 + o.extra["cavity"]["centre"][0]
    )  # on the axis (a mug's handle is off it)
    z = floor + (ihi[2] - ilo[2]) / 2 + dz
    return (
        f'[[object]]\nkind = "{outer}"\npose = [0.5, 0.0]\n'
        f'[[object]]\nkind = "{inner}"\npose = [{x:.4f}, 0.0, {z:.4f}, 0, 0, 0]\n'
    )


def test_something_may_start_inside_a_container_resting_on_its_floor(tmp_path):
    """Break-it: soup resting on its can's floor was refused as overlapping (the check compared the soup's
    centre with the can's); a golf ball sunk through the mug's floor is still refused."""
    for outer, inner in [("tomato_soup_can", "soup"), ("mug", "golf_ball"), ("bowl", "strawberry")]:
        scene = load_scene(scene_file(tmp_path, _on_floor(outer, inner, 0.0)))
        assert [o.spec.name for o in scene.objects] == [outer, inner]
    with pytest.raises(UsageError, match="'mug' and 'golf_ball' overlap"):
        load_scene(scene_file(tmp_path, _on_floor("mug", "golf_ball", -0.02)))


def test_what_starts_inside_must_fit_and_the_container_must_stand_upright(tmp_path):
    """Break-it: a 7 cm apple "in" a mug (6.4 cm inside) and a ball 1.3 cm off the mug's axis (2 mm into its wall)
    were accepted, and a ball in a lying mug was judged as if the mug stood; the refusal says where it would fit."""
    mug = '[[object]]\nkind = "mug"\npose = [0.5, 0.0]\n'
    for inner in (
        'kind = "apple"\npose = [0.487, 0.0, 0.045, 0, 0, 0]',
        'kind = "golf_ball"\npose = [0.5, 0.0, 0.028, 0, 0, 0]',
    ):
        with pytest.raises(UsageError) as err:
            load_scene(scene_file(tmp_path, mug + "[[object]]\n" + inner + "\n"))
        assert (
            "give it an exact pose within 3.2 cm of the axis at (0.487, 0.000)" in err.value.reason
        )
    load_scene(
        scene_file(
            tmp_path, mug + '[[object]]\nkind = "golf_ball"\npose = [0.487, 0.0, 0.028, 0, 0, 0]\n'
        )
    )
    lying = '[[object]]\nkind = "mug"\npose = [0.5, 0.0, 0.037, 1.5708, 0, 0]\n'
    with pytest.raises(UsageError, match="overlap"):
        load_scene(
            scene_file(
                tmp_path,
                lying + '[[object]]\nkind = "golf_ball"\npose = [0.487, 0.039, 0.05, 0, 0, 0]\n',
            )
        )


FRUIT_BOWL = str(REPO / "examples" / "fruit_bowl.toml")


@pytest.mark.slow
def test_a_scene_file_with_a_utf8_byte_order_mark_is_read(tmp_path):
    scene = tmp_path / "bom.toml"
    scene.write_bytes(b"\xef\xbb\xbf" + Path(FRUIT_BOWL).read_bytes())  # what Windows Notepad saves
    proc = owl_wide(
        "run",
        "put the apple into the red bowl",
        "--scene",
        str(scene),
        "--perception",
        "sim-state",
        "--quiet",
        "--json",
        "--out",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["plan"] == ["pick(apple)", "place_inside(apple, red_bowl)"]


def test_scene_names_are_unique_ignoring_case_and_none_is_the_tables(tmp_path):
    """Break-it: an apple named "Table" got as far as the constraints stage and failed there with KeyError: 'Table'.
    (Names are lower case since session 16: goals are read in lower case.)"""
    for name, why in (
        ("Table", "name 'Table' must be lower case"),
        ("BOWL", "name 'BOWL' must be lower case"),
        ("table", "cannot be named 'table', the name of another kind"),
    ):
        scene = tmp_path / f"{name}.toml"
        scene.write_text(
            f'instruction = "put the apple in the bowl"\n[[object]]\nkind = "apple"\nname = "{name}"\n'
            '[[object]]\nkind = "bowl"\n'
        )
        res = here("run", "", "--scene", str(scene), "--out", str(tmp_path / "r"))
        assert res.exit_code == 2 and why in last_line(res.stderr), res.stderr
        assert not (tmp_path / "r").exists()


def test_a_scene_nested_too_deep_or_with_an_overlong_name_is_one_line(tmp_path):
    """Break-it: arrays nested 5000 deep in a scene file ended in a RecursionError traceback; an object
    named with 5000 letters was accepted and filled every failure line."""
    deep = tmp_path / "deep.toml"
    deep.write_text('[[object]]\nkind = "apple"\npose = ' + "[" * 5000 + "]" * 5000 + "\n")
    long = tmp_path / "long.toml"
    long.write_text(f'[[object]]\nkind = "apple"\nname = "{"a" * 500}"\npose = [0.5, 0.0]\n')
    for scene, said in (
        (deep, f"owl-bt: {deep}: not valid TOML for a scene: nested too deep"),
        (
            long,
            f"owl-bt: {long}: object 1: name 'aaaaaaaaaaaaaaaaaaaa'… is 500 characters long; give at most 40",
        ),
    ):
        res = here(
            "run", "put the apple on the table", "--scene", str(scene), "--out", str(tmp_path / "r")
        )
        assert res.exit_code == 2, res.output
        assert last_line(res.stderr) == said
        assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


def test_a_scene_pose_that_is_not_a_number_is_a_usage_error(tmp_path):
    scene = tmp_path / "s.toml"
    scene.write_text(
        '[[object]]\nkind = "apple"\npose = [0.5, 0.1, 0.02, 0, 0, inf]\n[[object]]\nkind = "bowl"\n'
    )
    res = here(
        "run", "put the apple in the bowl", "--scene", str(scene), "--out", str(tmp_path / "r")
    )
    assert res.exit_code == 2, res.output
    assert (
        'pose must be [x, y], [x, y, z, roll, pitch, yaw] or "random", got [0.5, 0.1, 0.02, 0, 0, inf]'
        in last_line(res.stderr)
    )  # it was a math domain error's traceback
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


@pytest.mark.parametrize(
    ("scene", "why"),
    [
        ("/dev/zero", "is not a regular file"),
        ("folder", "is a folder"),
        ("big.toml", "is 1048577 bytes; it can be at most 1048576"),
    ],
)
def test_a_scene_that_is_not_a_small_file_is_refused_before_it_is_read(tmp_path, scene, why):
    (tmp_path / "folder").mkdir()
    (tmp_path / "big.toml").write_bytes(b"#" * ((1 << 20) + 1))
    path = scene if scene.startswith("/") else str(tmp_path / scene)
    res = here("run", "put the apple in the bowl", "--scene", path, "--out", str(tmp_path / "r"))
    assert res.exit_code == 2, res.output
    assert last_line(res.stderr) == f"owl-bt: the scene file {path} {why}" + (
        "; give a file" if "big" not in scene else ""
    )
    assert not (tmp_path / "r").exists()  # /dev/zero used to be read until memory ran out
