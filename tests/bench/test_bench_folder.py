"""The bench's folder: a rerun with other episode options, a folder of another setup or in use, and a
full disk are refused or stopped in one line, with nothing half written. Real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from rich.console import Console

from owl_bt.bench import episodes
from owl_bt.bench.config import check_out, make_config
from owl_bt.cli.bench_command import _locked, bench_command
from owl_bt.errors import UsageError
from tests.support.cli import last_line, owl_scripted, owl_wide


@pytest.mark.slow
def test_a_bench_rerun_with_other_episode_options_into_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "b"
    common = [
        "bench",
        "--method",
        "oracle",
        "--tasks",
        "berry1",
        "--seeds",
        "1",
        "--jobs",
        "1",
        "--perception",
        "sim-state",
        "--out",
        str(out),
        "--quiet",
    ]
    first = owl_wide(*common, "--budget", "50")
    assert first.returncode == 0, first.stderr
    lines = (out / "episodes.jsonl").read_text()
    for args, option, value, recorded in (
        (["--budget", "60"], "--budget", "60", "50"),
        (["--budget", "50", "--max-attempts", "2"], "--max-attempts", "2", "4"),
        (["--budget", "50", "--skeletons", "2"], "--skeletons", "2", "5"),
        (["--budget", "50", "--plan-time", "60"], "--plan-time", "60.0", "900.0"),
    ):
        again = owl_wide(*common, *args)
        assert again.returncode == 2, again.stderr
        assert (
            f"holds oracle episodes run with {option} {recorded} (e.g. berry1 seed 0), not {value}"
            in last_line(again.stderr)
        )
    assert (out / "episodes.jsonl").read_text() == lines
    assert (
        json.loads(lines)["max_skeletons"] == 5
    )  # what --skeletons was, beside the skeletons tried
    stages = json.loads(lines)["stage_s"]  # where its wall clock went
    assert (
        set(stages) >= {"perceive", "generate-constraints", "plan", "execute"}
        and stages["execute"] > 0
    )
    from owl_bt.code_version import code_version

    code = json.loads(lines)[
        "code"
    ]  # which code measured it: a stale checkout once passed for a regression
    assert (
        code == code_version()
        and code.startswith("0.")
        and f"Code: {code} (every episode)." in (out / "summary.md").read_text()
    )
    assert (
        owl_wide(*common, "--budget", "50").returncode == 0
    )  # the same options: nothing new to run


def _rec(seed: int, **fields) -> dict:
    return {
        "task": "berry1",
        "seed": seed,
        "method": "owl",
        "success": True,
        "wall_s": 1.0,
        **fields,
    }


@pytest.mark.slow
def test_a_bench_on_a_full_disk_stops_in_one_line_and_keeps_nothing_half_written(tmp_path):
    out = tmp_path / "b"
    proc = owl_scripted(
        "bench",
        "--method",
        "oracle",
        "--tasks",
        "berry1",
        "--seeds",
        "1",
        "--jobs",
        "1",
        "--out",
        str(out),
        "-q",
        fsize=4096,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    run = out / "runs" / "oracle" / "berry1-s0"
    assert proc.stderr.strip().splitlines() == [
        f"owl-bt: file size limit exceeded writing {run}.partial; the unfinished run folder was removed"
    ]
    assert not run.exists() and not Path(f"{run}.partial").exists()
    assert (
        not (out / episodes.FILENAME).exists()
        or episodes.read(out / episodes.FILENAME).records == []
    )
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_bench_folder_checks(tmp_path):
    quiet = Console(file=open(os.devnull, "w"))  # noqa: SIM115
    args = ("oracle", "berry1", 1, None)
    with pytest.raises(UsageError, match=r"--jobs must be at most \d+ \(4 per core"):
        make_config(*args, tmp_path / "b", 10**6, 500, 4)
    with pytest.raises(UsageError, match="cannot write in the bench folder /proc"):
        check_out(Path("/proc"))
    (tmp_path / "odd" / episodes.FILENAME).mkdir(parents=True)
    with pytest.raises(UsageError, match="episodes.jsonl is not a file"):
        check_out(tmp_path / "odd")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / episodes.FILENAME).write_text(
        json.dumps(_rec(0, method="oracle", robot="ur5e")) + "\n"
    )
    with pytest.raises(UsageError, match="holds episodes run with --robot ur5e .*not kinova-gen3"):
        bench_command(
            quiet, quiet, *args, tmp_path / "b", 1, 4, 500, False, True, robot="kinova-gen3"
        )
    with _locked(tmp_path / "b"), pytest.raises(UsageError, match="another bench is running in"):
        bench_command(quiet, quiet, *args, tmp_path / "b", 1, 4, 500, False, True)
