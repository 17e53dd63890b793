"""`owl-bt run --replay RUN_DIR`: a replay re-applies what the run recorded (faults, limits, the scene
file) and refuses, in one line, a folder that would make it another run: other options, an edited
or damaged record, a transcript over its size limit, FIFOs in place of files. Real CLI."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from owl_bt.faults import seed_for
from tests.support.cli import here, last_line, owl, owl_wide


@pytest.mark.slow
def test_replay_refuses_a_transcript_over_its_size_limit(plate_run, tmp_path):
    import shutil

    run = tmp_path / "recorded"
    shutil.copytree(plate_run[0], run)
    with (run / "transcript.json").open("ab") as f:
        f.write(b" " * (8 << 20))  # still valid JSON: trailing white space
    res = here("run", "--replay", str(run), "--out", str(tmp_path / "again"))
    assert res.exit_code == 2
    assert last_line(res.stderr).startswith(
        f"owl-bt: --replay: the transcript {run / 'transcript.json'} is "
    )
    assert last_line(res.stderr).endswith("bytes; it can be at most 8388608")
    assert not (tmp_path / "again").exists()


@pytest.mark.slow
def test_a_replay_with_another_or_an_edited_scene_file_is_refused(scene_run, tmp_path):
    """`run --replay` with another --scene than the recorded one, or with the recorded file
    edited since, re-ran with the recorded answers on a different scene. The run folder now keeps the scene
    file's SHA-256 (and a copy); a different one is exit 2 naming the line that differs."""
    scene, out = scene_run
    other = tmp_path / "other.toml"
    other.write_text(scene.read_text().replace("pose = [0.45, 0.0]", "pose = [0.45, 0.05]"))
    res = here("run", "--replay", str(out), "--scene", str(other), "--out", str(tmp_path / "x"))
    assert res.exit_code == 2, res.output
    line = (
        scene.read_text().splitlines().index("pose = [0.45, 0.0]") + 1
    )  # (the example's comments may grow)
    assert last_line(res.stderr) == (
        f"owl-bt: --replay: {other} is not the scene file the run used ({scene}): line {line} is 'pose = [0.45, 0.05]', "
        f"the run's had 'pose = [0.45, 0.0]'; a replay needs the scene the run used (its copy: {out / 'scene.toml'})"
    )
    kept = scene.read_bytes()
    try:
        scene.write_bytes(kept + b"# edited\n")
        res = here("run", "--replay", str(out), "--scene", str(scene), "--out", str(tmp_path / "y"))
    finally:
        scene.write_bytes(kept)
    assert res.exit_code == 2, res.output
    added = len(kept.decode().splitlines()) + 1  # the line appended
    assert last_line(res.stderr).startswith(
        f"owl-bt: --replay: the scene file {scene} was edited since the run: line {added} is "
        "'# edited', the run's had 'no such line'"
    )
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    same = owl_wide(
        "run",
        "--replay",
        str(out),
        "--scene",
        str(out / "scene.toml"),
        "--quiet",
        "--out",
        str(tmp_path / "z"),
    )
    assert same.returncode == 0, (
        same.stderr
    )  # the same bytes (here the folder's own copy) replay as before


@pytest.mark.slow
@pytest.mark.parametrize(
    "first_line",
    [
        '{"instruction": "put the apple in',
        "",
        "not json at all",
        '{"event": "perceived"}',
        '{"event": "start", "vlm": "offline", "method": "bogus"}',
    ],
)  # was replayed as owl
def test_a_damaged_record_of_the_method_is_refused_not_defaulted(scene_run, tmp_path, first_line):
    """Break-it: a damaged first line of events.jsonl (the `start` event, whose VLM spec records the method)
    replayed the run under the full method, whatever it was run with. Now it is exit 2 naming the file."""
    import shutil

    scene, out = scene_run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    events = (copy / "events.jsonl").read_text().splitlines(keepends=True)
    (copy / "events.jsonl").write_text(
        first_line + "\n" + "".join(events[1:]) if first_line else ""
    )
    res = here("run", "--replay", str(copy), "--scene", str(scene), "--out", str(tmp_path / "x"))
    assert res.exit_code == 2, res.output
    line = last_line(res.stderr)
    assert line.startswith(f"owl-bt: --replay: {copy / 'events.jsonl'} ") and line.endswith(
        "it records the method the run used, so the run cannot be replayed as it was"
    ), line
    assert not (tmp_path / "x").exists()


def _copy_with_fifo(run: Path, name: str, where: Path) -> Path:
    """A copy of the run folder `run` in `where`, its file `name` replaced by a FIFO (a read of it blocks)."""
    import shutil

    copy = where / "copy"
    shutil.copytree(run, copy)
    (copy / name).unlink()
    os.mkfifo(copy / name)
    return copy


@pytest.mark.slow
def test_a_replay_whose_scene_copy_is_a_fifo_does_not_hang(scene_run, tmp_path):
    """Break-it: a run folder whose `scene.toml` copy is a FIFO would block the refusal for ever reading it."""
    scene, out = scene_run
    copy = _copy_with_fifo(out, "scene.toml", tmp_path)
    other = tmp_path / "other.toml"
    other.write_text(scene.read_text() + "# other\n")
    proc = owl_wide(
        "run",
        "--replay",
        str(copy),
        "--scene",
        str(other),
        "--out",
        str(tmp_path / "x"),
        timeout=60,
    )  # never hangs
    assert proc.returncode == 2, proc.stderr
    assert f"{other} is not the scene file the run used ({scene}) (SHA-256 " in last_line(
        proc.stderr
    )


@pytest.mark.slow
def test_a_replay_whose_events_log_is_a_fifo_does_not_hang(scene_run, tmp_path):
    """Break-it (stop 14): an `events.jsonl` that is a FIFO blocked the replay's method check for ever."""
    scene, out = scene_run
    copy = _copy_with_fifo(out, "events.jsonl", tmp_path)
    proc = owl_wide(
        "run",
        "--replay",
        str(copy),
        "--scene",
        str(scene),
        "--out",
        str(tmp_path / "x"),
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert "events.jsonl cannot be read (not a regular file)" in last_line(proc.stderr)


KNOCK_SEED = seed_for(
    "knock", 0.5, [None, True, False, False, False, False], start=10
)  # the placed strawberry knocked once


@pytest.mark.slow
def test_replay_reapplies_the_recorded_faults(faulty_run, tmp_path):
    out, _ = faulty_run
    first = json.loads((out / "plan.json").read_text())["result"]
    assert (
        first["faults"]["counts"]["knock"] >= 1 and first["attempts"] == 2
    )  # the run being replayed had a fault
    proc = owl("run", "--replay", str(out), "--out", str(tmp_path / "again"), "--verbose")
    assert proc.returncode == 0, proc.stderr
    again = json.loads((tmp_path / "again" / "plan.json").read_text())["result"]
    assert (
        again["faults"] == first["faults"]
    )  # the same faults, at the same draws, from the same seed
    assert (again["attempts"], again["plan"], again["executed"]) == (
        first["attempts"],
        first["plan"],
        first["executed"],
    )
    assert "def on(" in proc.stdout.split("grounded plan")[0]  # --verbose: the helpers too
    start = json.loads((tmp_path / "again" / "events.jsonl").read_text().splitlines()[0])
    assert start["perception"] == "sim-state"  # the recorded perception source


@pytest.mark.slow
def test_replay_refuses_other_faults(faulty_run):
    out, _ = faulty_run
    res = here("run", "--replay", str(out), "--faults", "knock=0.2")
    assert res.exit_code == 2
    assert last_line(res.stderr) == (
        f"owl-bt: --replay re-applies the recorded faults (--faults knock=0.5 --fault-seed "
        f"{KNOCK_SEED}); leave --faults and --fault-seed out"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--task", "citrus"], "re-runs the recorded task (berry1); leave --task out"),
        (["--seed", "5"], "re-runs the recorded seed (0); leave --seed out"),
        (["--method", "no-back"], "re-runs the recorded method (owl); leave --method out"),
        (
            ["--scene", "examples/fruit_bowl.toml"],
            "the run was on the task berry1, not a scene file; leave --scene out",
        ),
    ],
)
def test_replay_refuses_what_would_make_it_another_run(faulty_run, extra, why):
    # These ran something else under the recording's name
    out, _ = faulty_run
    res = here("run", "--replay", str(out), *extra)
    assert res.exit_code == 2 and last_line(res.stderr).endswith(why), res.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda text, plan: text[:120], "is not valid JSON ("),
        # These raised RecursionError / ValueError as tracebacks
        (
            lambda text, plan: "[" * 1000 + "]" * 1000,
            "is not valid JSON (nested too deeply; edited?)",
        ),
        (
            lambda text, plan: text.replace('"seed": 0', '"seed": ' + "9" * 5000, 1),
            "is not valid JSON (Exceeds the limit",
        ),
        (
            lambda text, plan: json.dumps({**plan, "seed": "zero"}),
            "field 'seed': input should be a valid integer, got \"zero\"",
        ),
        (
            lambda text, plan: json.dumps({**plan, "seed": True}),
            "field 'seed': input should be a valid integer, got true",
        ),
        (
            lambda text, plan: json.dumps({k: v for k, v in plan.items() if k != "instruction"}),
            "field 'instruction' is missing",
        ),
        (
            lambda text, plan: json.dumps([plan]),
            "is not a run's plan (a JSON object), it holds a list",
        ),
        (
            lambda text, plan: json.dumps({**plan, "result": {"faults": {"spec": 3, "seed": 0}}}),
            "field 'result.faults.spec': input should be a valid string, got 3",
        ),
        # These were blamed on --faults (not given) and on a typed instruction
        (
            lambda text, plan: json.dumps(
                {
                    **plan,
                    "result": {
                        **plan["result"],
                        "faults": {**plan["result"]["faults"], "spec": "zzz=2"},
                    },
                }
            ),
            "records faults no run can have (--faults: unknown fault kind 'zzz'",
        ),
        (
            lambda text, plan: json.dumps({**plan, "instruction": "put " * 2000}),
            "records an instruction of 8000 characters",
        ),
    ],
)
def test_a_damaged_plan_json_is_named_in_one_line(faulty_run, tmp_path, damage, why):
    out, _ = faulty_run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    text = (copy / "plan.json").read_text()
    (copy / "plan.json").write_text(damage(text, json.loads(text)))
    res = here("run", "--replay", str(copy), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2, res.output
    line = last_line(res.stderr)
    assert line.startswith(f"owl-bt: --replay: {copy / 'plan.json'}") and why in line, line
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "value"),
    [("budget", -3), ("budget", 10**8), ("max_attempts", "x"), ("plan_time", 1e-9)],
)
def test_a_damaged_recorded_limit_is_named_not_replaced_or_blamed_on_an_option(
    faulty_run, tmp_path, key, value
):
    # Budget -3 and max_attempts "x" were replayed as the defaults without a word; a budget of 10^8
    # was blamed on --budget, which was not given
    out, _ = faulty_run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    lines = (copy / "events.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    lines[0] = json.dumps({**start, key: value})
    (copy / "events.jsonl").write_text("\n".join(lines) + "\n")
    res = here("run", "--replay", str(copy), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2, res.output
    assert last_line(res.stderr).startswith(
        f"owl-bt: --replay: {copy / 'events.jsonl'} records {key} = "
    ), res.stderr
    assert not (tmp_path / "r").exists()


def test_a_run_that_read_recorded_frames_reads_them_again(faulty_run, tmp_path):
    """A run made with --camera recorded:<folder> was replayed with the simulated camera: another
    scene perceived, and a run that had failed replayed as a success. Now the replay reads the same
    frames; when they are gone it says so (one line) unless --camera is given."""
    from owl_bt.cli.replay import replayed
    from owl_bt.errors import UsageError

    out, _ = faulty_run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    frames = tmp_path / "frames"
    lines = (copy / "events.jsonl").read_text().splitlines(keepends=True)
    start = {**json.loads(lines[0]), "camera": f"recorded:{frames}"}
    (copy / "events.jsonl").write_text(json.dumps(start) + "\n" + "".join(lines[1:]))

    def replay(**kw):
        return replayed(copy, "", None, None, "replay", None, None, **kw)

    with pytest.raises(UsageError, match=f"read the recorded frames in {frames}, which is no"):
        replay()
    assert replay(camera_given=True).camera is None
    frames.mkdir()
    assert replay().camera == f"recorded:{frames}"
