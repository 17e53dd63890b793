"""episodes.jsonl as the bench reads it back: wrongly typed, corrupt, over-deep or unknown lines are
named and not counted, magnitudes that would break the summary refused, and a failed append
leaves no part of a line."""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import pytest

from owl_bt.bench import episodes
from owl_bt.errors import disk_error
from tests.support.cli import owl_scripted


def _rec(seed: int, **fields) -> dict:
    return {
        "task": "berry1",
        "seed": seed,
        "method": "owl",
        "success": True,
        "wall_s": 1.0,
        **fields,
    }


def test_wrongly_typed_and_corrupt_lines_are_named_and_not_counted(tmp_path):
    lines = [
        json.dumps(_rec(0)),
        json.dumps(_rec(1, success="false")),
        json.dumps(_rec(2, wall_s="abc")),
        json.dumps({**_rec(3), "seed": True}),
        "[1, 2]",
        "{not json",
        json.dumps(_rec(4, samples=-3)),
        json.dumps({"task": "berry1", "method": "owl", "success": True}),
        json.dumps(_rec(0, success=False)),
    ]
    path = tmp_path / episodes.FILENAME
    path.write_bytes(
        ("\n".join(lines) + "\n").encode() + b'{"task": "\xff"}\n' + b'{"task": "berry1", "se'
    )
    loaded = episodes.read(path)
    assert [episodes.key(r) for r in loaded.records] == [("berry1", 0, "owl")]
    p = loaded.problems
    assert len(p) == 10, p
    assert p[0].startswith(f"{path}:2: field 'success'") and '"false"' in p[0]
    assert p[1].startswith(f"{path}:3: field 'wall_s'") and p[2].startswith(
        f"{path}:4: field 'seed'"
    )
    assert p[3] == f"{path}:5: not a JSON object; skipped" and p[4].startswith(
        f"{path}:6: not valid JSON"
    )
    assert (
        p[5].startswith(f"{path}:7: field 'samples'")
        and p[6] == f"{path}:8: field 'seed' is missing; skipped"
    )
    assert (
        "repeats episode ('berry1', 0, 'owl') of line 1" in p[7]
        and p[8] == f"{path}:10: not UTF-8 text; skipped"
    )
    assert p[9] == f"{path}:11: the last line is cut short (a bench stopped mid-write?); skipped"


def test_names_and_magnitudes_that_would_break_the_summary_are_refused(tmp_path):
    path = tmp_path / episodes.FILENAME
    lines = [
        _rec(0, task="a|b"),
        _rec(1, method="no\ncont"),
        _rec(2, wall_s=1e308),
        _rec(3, samples=10**30),
        _rec(4),
        # These crashed --report-only with a traceback, or wrote a heading into summary.md
        _rec(5, stage_s={"plan": "abc"}),
        _rec(6, stage_s={"plan": -3}),
        _rec(7, code="x\n## Injected\n| a | b |"),
        _rec(8, code=5),
        _rec(9, max_skeletons=10**20),
        _rec(10, stage_s={"plan": 1.5}, code="0.1.0+abc1234.dirty"),
    ]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    loaded = episodes.read(path)
    assert [r["seed"] for r in loaded.records] == [4, 10]
    assert [p.split(": field ")[1].split(":")[0].split(".")[0] for p in loaded.problems] == [
        "'task'",
        "'method'",
        "'wall_s'",
        "'samples'",
        "'stage_s",
        "'stage_s",
        "'code'",
        "'code'",
        "'max_skeletons'",
    ]


def test_a_line_of_an_unknown_task_or_method_is_not_counted(tmp_path):
    # (a line of task "nosuch" had its own row in summary.md and counted in the overall row)
    path = tmp_path / episodes.FILENAME
    lines = [
        _rec(0),
        _rec(1, task="nosuch"),
        _rec(2, method="bogus"),
        _rec(3, method="owl+faults"),
        _rec(4, method="oracle"),
    ]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    loaded = episodes.read(path)
    assert [r["seed"] for r in loaded.records] == [0, 3, 4]
    assert loaded.problems == [
        f"{path}:2: unknown task 'nosuch'; skipped",
        f"{path}:3: unknown method 'bogus'; skipped",
    ]


def test_report_only_warns_per_line_and_counts_only_checked_lines(tmp_path):
    lines = [
        json.dumps(_rec(0, success=False)),
        json.dumps(_rec(1, success="true")),
        json.dumps(_rec(2, wall_s=[1])),
    ]
    (tmp_path / episodes.FILENAME).write_text(
        "\n".join(lines) + '\n{"task": "berry1", "seed": 3, "meth'
    )
    proc = owl_scripted("bench", "--out", str(tmp_path), "--report-only")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    warnings = proc.stderr.strip().splitlines()
    assert len(warnings) == 3 and all(w.startswith("owl-bt: warning: ") for w in warnings)
    assert (
        "episodes.jsonl:2: field 'success'" in warnings[0]
        and "episodes.jsonl:3: field 'wall_s'" in warnings[1]
    )
    assert "episodes.jsonl:4: the last line is cut short" in warnings[2]
    data = json.loads((tmp_path / "summary.json").read_text())
    assert (
        data["episodes"] == 1 and data["methods"]["owl"]["tasks"]["berry1"]["successes"] == 0
    )  # "true" not counted
    assert (
        len(data["skipped"]) == 3
        and "## Not counted: 3 line(s)" in (tmp_path / "summary.md").read_text()
    )
    assert proc.stdout.strip().splitlines()[-1].endswith("(3 lines not counted)")


def test_a_failed_append_leaves_no_part_of_the_line(tmp_path):
    path = tmp_path / episodes.FILENAME
    episodes.append(path, _rec(0))
    before = path.read_bytes()
    code = (
        "import resource, sys; from pathlib import Path; from owl_bt.bench import episodes\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 100},) * 2)\n"
        f"try:\n    episodes.append(Path({str(path)!r}), {{**{_rec(1)!r}, 'detector': 'x' * 500}})\n"
        "except OSError as exc:\n    sys.exit(exc.errno)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == errno.EFBIG, proc.stderr
    assert path.read_bytes() == before  # the part that was written is cut back off

    full = tmp_path / "full.jsonl"
    full.symlink_to("/dev/full")  # every write: ENOSPC
    with pytest.raises(OSError) as info:
        episodes.append(full, _rec(1))
    err = disk_error(info.value, full)
    assert (
        err is not None
        and err.exit_code == 1
        and err.reason == f"no space left on device writing {full}"
    )


def test_json_nested_too_deeply_is_a_damaged_line_not_a_traceback(tmp_path):
    # 1000 levels of [[[…]]] on one line raised RecursionError out of --report-only and resumes;
    # a number over Python's 4300 digits is the same kind of damage
    path = tmp_path / episodes.FILENAME
    path.write_text(
        "\n".join(
            [
                json.dumps(_rec(0)),
                "[" * 1000 + "]" * 1000,
                '{"seed": ' + "9" * 5000 + "}",
                json.dumps(_rec(1)),
            ]
        )
        + "\n"
    )
    loaded = episodes.read(path)
    assert [r["seed"] for r in loaded.records] == [0, 1]
    assert loaded.problems[0] == f"{path}:2: not valid JSON (nested too deeply); skipped"
    assert loaded.problems[1].startswith(
        f"{path}:3: not valid JSON (Exceeds the limit (4300 digits) for integer string"
    )
