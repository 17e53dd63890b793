"""Bad input ends in a one-line reason and the right exit code — never a traceback or a result folder."""

from __future__ import annotations

from test_cli_e2e import owl


def _one_line_error(proc):
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert lines, "expected a reason on stderr"
    return lines[-1]


def test_empty_instruction_is_usage_error(tmp_path):
    proc = owl("run", "   ", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "instruction is empty" in _one_line_error(proc)
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.partial").exists()


def test_unknown_task_is_usage_error(tmp_path):
    proc = owl("run", "put the strawberry onto the region", "--task", "nope", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "unknown task 'nope'" in _one_line_error(proc)


def test_negative_seed_is_usage_error(tmp_path):
    proc = owl("run", "put the strawberry onto the region", "--seed", "-3", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "--seed must be 0 or more" in _one_line_error(proc)


def test_object_not_in_scene_fails_with_reason(tmp_path):
    proc = owl("run", "put the banana onto the light-grey region", "--out", str(tmp_path / "r"), "--max-attempts", "1")
    assert proc.returncode == 1
    assert "no 'banana' in the scene" in _one_line_error(proc)
    assert proc.stdout.strip().splitlines()[-1] == "success: false"


def test_unknown_words_are_named(tmp_path):
    proc = owl("run", "frobnicate the strawberry onto the light-grey region", "--out", str(tmp_path / "r"),
               "--max-attempts", "1")
    assert proc.returncode == 1
    assert "'frobnicate'" in _one_line_error(proc)
