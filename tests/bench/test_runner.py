"""`owl-bt bench`: real Berry1 episodes through the CLI in worker processes, resumable JSONL,
usage errors, and the summary's arithmetic on a hand-written episodes.jsonl."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from owl_bt.bench import episodes, methods
from owl_bt.bench.runner import FIELDS, Job, run_one
from owl_bt.bench.summary import summarise, write_summary
from owl_bt.episode import EpisodeConfig
from owl_bt.errors import UsageError


def owl(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.slow
def test_bench_berry1_two_seeds_then_rerun_appends_nothing(tmp_path):
    out = tmp_path / "bench"
    args = (
        "bench",
        "--method",
        "oracle",
        "--tasks",
        "berry1",
        "--seeds",
        "2",
        "--jobs",
        "2",
        "--out",
        str(out),
        "-q",
    )
    (out / "runs" / "oracle" / "berry1-s1.partial").mkdir(
        parents=True
    )  # left by a bench that was killed
    proc = owl(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "owl-bt: removed 1 run folder(s) of episodes not in episodes.jsonl (left by a stopped bench; run again): "
        "runs/oracle/berry1-s1.partial"
    ]
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2
    recs = [json.loads(line) for line in lines]
    assert sorted(episodes.key(r) for r in recs) == [
        ("berry1", 0, "oracle"),
        ("berry1", 1, "oracle"),
    ]
    for r in recs:
        assert set(FIELDS) | {"error"} <= set(r), r
        assert (
            isinstance(r["success"], bool)
            and isinstance(r["declared_success"], bool)
            and r["error"] is False
        )
        assert (
            r["wall_s"] > 0
            and r["attempts"] >= 1
            and r["skeletons"] >= 1
            and r["queries"] >= 2
            and r["detector"]
        )
        assert r["run_dir"] == f"runs/oracle/berry1-s{r['seed']}"
        assert (out / r["run_dir"] / "plan.json").is_file()
    md = (out / "summary.md").read_text()
    assert "## oracle" in md and "| berry1 | 2 |" in md and "| **overall** | 2 |" in md
    assert "42.1" in md and "13.5" in md  # the reference's Manual samples and wall clock for Berry1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["methods"]["oracle"]["tasks"]["berry1"]["episodes"] == 2
    assert (
        proc.stdout.strip().splitlines()[-1].startswith("bench: 2 of 2 episodes recorded (2 new)")
    )

    before = (out / "episodes.jsonl").read_bytes()
    again = owl(*args)
    assert again.returncode == 0, again.stderr
    assert (out / "episodes.jsonl").read_bytes() == before
    assert "(0 new)" in again.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "bad, says",
    [
        (["--seeds", "0"], "--seeds must be at least 1"),
        (["--seeds", "99999999999999999999999"], "--seeds must be at most"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--out", "FILE"], "is not a folder"),
        (["--out", "RUN"], "is the folder of one `owl-bt run`, not a bench folder"),
        (["--out", "RUN/runs"], "/RUN, the folder of one `owl-bt run`; give a folder outside it"),
        (["--out", "BENCH/runs/owl"], "/BENCH, a bench folder; give a folder outside it"),
        (
            ["--skeletons", "99999999999999999999"],
            "--skeletons must be from 1 to 100",
        ),  # it was recorded as given
        (
            ["--budget", "100001"],
            "--budget must be from 1 to 100,000 samples per action, got 100001",
        ),
        (["--tasks", "berry1,nosuch"], "unknown task 'nosuch'; known tasks: "),
        (["--method", "nosuch"], "'nosuch' is not one of 'owl', "),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path, bad, says):
    (tmp_path / "FILE").write_text("not a folder")
    (tmp_path / "RUN").mkdir()  # what `owl-bt run --out RUN` leaves (among others)
    (tmp_path / "RUN" / "plan.json").write_text("{}")
    (tmp_path / "RUN" / "events.jsonl").write_text("")
    (tmp_path / "BENCH").mkdir()
    (tmp_path / "BENCH" / "episodes.jsonl").write_text("")
    bad = [str(tmp_path / a) if a.split("/")[0] in ("FILE", "RUN", "BENCH") else a for a in bad]
    args = ["bench", "--tasks", "berry1", "--seeds", "1", "--out", str(tmp_path / "b"), *bad]
    proc = owl(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("owl-bt: ") and says in proc.stderr
    assert not (tmp_path / "b" / "episodes.jsonl").exists()
    assert sorted(p.name for p in (tmp_path / "RUN").iterdir()) == ["events.jsonl", "plan.json"]


def _rec(
    task: str,
    seed: int,
    method: str,
    ok: bool,
    declared: bool,
    samples: int,
    wall: float,
    model: float = 0.0,
    error: bool = False,
) -> dict:
    return {
        "task": task,
        "seed": seed,
        "method": method,
        "success": ok,
        "declared_success": declared,
        "samples": samples,
        "wall_s": wall,
        "model_s": model,
        "skeletons": 1,
        "attempts": 1,
        "queries": 2,
        "detector": "d",
        "failure": None,
        "run_dir": "r",
        "tick_hz": 20.0,
        "error": error,
    }


def test_summary_math_on_hand_written_episodes(tmp_path):
    recs = [
        _rec("berry1", 0, "owl", True, True, 10, 1.0, 0.5),
        _rec("berry1", 1, "owl", True, True, 20, 2.0, 0.5),
        _rec("berry1", 2, "owl", True, True, 30, 3.0, 1.0),
        _rec(
            "berry1", 3, "owl", False, True, 40, 10.0, 3.0
        ),  # a false positive: declared done, detector says no
        _rec(
            "berry1", 4, "owl", False, False, 999, 0.0, error=True
        ),  # raised: a failure, not measured
        _rec("citrus", 0, "oracle", True, True, 303, 22.2),
        _rec("citrus", 1, "oracle", False, False, 303, 44.4),
    ]
    for r in recs[:5]:
        r["code"] = "0.1.0+aaaaaaa"  # the oracle lines say no code (written before it was recorded)
        r.update(
            vlm="offline",
            robot="ur5e",
            perception="camera",
            budget=500,
            max_skeletons=5,
            max_attempts=4,
            plan_time_s=900.0,
        )
    recs[4]["budget"] = 60  # one episode ran with another budget
    timed = [
        (0.4, 0.01, 1.0, 2.0),
        (0.6, 0.03, 3.0, 1.0),
        (0.5, 0.02, 2.0, 3.0),
    ]  # seconds in each stage
    for r, (perceive, gc, plan, execute) in zip(recs[:3], timed, strict=True):
        r["stage_s"] = {
            "perceive": perceive,
            "generate-constraints": gc,
            "plan": plan,
            "execute": execute,
        }
    lines = [json.dumps(r) for r in recs] + [
        json.dumps(_rec("berry1", 0, "owl", False, False, 1, 1.0))
    ]  # duplicate key
    (tmp_path / "episodes.jsonl").write_text(
        "\n".join(lines) + '\n{"task": "berry1", "se'
    )  # a cut last line
    data = write_summary(tmp_path)

    b = data["methods"]["owl"]["tasks"]["berry1"]
    assert (
        b["episodes"] == 5
        and b["successes"] == 3
        and b["false_positives"] == 1
        and b["errors"] == 1
    )
    assert b["success_pct"] == pytest.approx(60.0)
    assert b["success_se_pct"] == pytest.approx(100 * math.sqrt(0.6 * 0.4 / 5))  # 21.9
    assert b["soundness_pct"] == pytest.approx(80.0)
    assert b["samples_mean"] == pytest.approx(25.0) and b["wall_median_s"] == pytest.approx(2.5)
    assert b["model_share"] == pytest.approx(5.0 / 16.0)
    assert b["ref_success_pct"] == 100 and b["ref_wall_s"] == 46.9 and b["ref_samples"] == 37.7
    c = data["methods"]["oracle"]["tasks"]["citrus"]
    assert c["success_pct"] == 50.0 and c["soundness_pct"] == 100.0  # a declared failure is sound
    assert c["success_se_pct"] == pytest.approx(100 * math.sqrt(0.25 / 2))  # 35.4
    assert c["wall_ratio"] == pytest.approx(33.3 / 44.4) and c["samples_ratio"] == pytest.approx(
        303 / 303.7
    )
    # the reference's 92 % is over its ten tasks: beside berry1 alone stands berry1's own 100
    assert data["methods"]["owl"]["overall"]["ref_success_pct"] == 100

    md = (tmp_path / "summary.md").read_text()
    assert (
        "| berry1 | 5 | 60.0 ± 21.9 | 100 | 80.0 | 25.0 | 37.7 | 2.5 | 46.9 | 0.66 | 0.05 | 1.0 | 2.0 | 31 | 1 |"
        in md
    )
    assert (
        "| citrus | 2 | 50.0 ± 35.4 | — | 100.0 | 303.0 | 303.7 | 33.3 | 44.4 | 1.00 | 0.75 |" in md
    )
    assert (
        "| task | perceive s | generate-constraints s | plan s | execute s | replan s |" in md
    )  # where the time goes
    assert (
        "| berry1 | 0.50 | 0.02 | 2.00 | 2.00 | 0.00 |" in md
        and "| **overall** | 0.50 | 0.02 | 2.00 | 2.00 | 0.00 |" in md
    )
    assert (
        md.count("| task | perceive s") == 1
    )  # the oracle lines say nothing of their stages: no table for them
    assert (
        "\n\nRun with: model offline, robot ur5e, perception camera, budget 500 or 60 samples per "
        "action, skeletons 5 per round, attempts 4, plan time 900 s.\n\n| task"
    ) in md  # what each method's episodes ran with
    assert 'Reference row: oracle ("Manual").\n\n| task' in md  # (its lines recorded no settings)
    assert (
        "Code: the episodes ran 2 versions, so the rows mix them: 0.1.0+aaaaaaa (5), unrecorded (2)."
        in md
    )
    assert json.loads((tmp_path / "summary.json").read_text()) == json.loads(json.dumps(data))
    assert summarise([])["methods"] == {}


def test_append_after_a_cut_line_starts_a_new_line(tmp_path):
    path = tmp_path / "episodes.jsonl"
    path.write_text(json.dumps(_rec("berry1", 0, "owl", True, True, 1, 1.0)) + '\n{"task": "ber')
    episodes.append(path, _rec("berry1", 1, "owl", True, True, 1, 1.0))
    assert [episodes.key(r) for r in episodes.load(path)] == [
        ("berry1", 0, "owl"),
        ("berry1", 1, "owl"),
    ]
    assert path.read_text().endswith("\n")


def test_an_episode_that_raises_is_a_failed_record(tmp_path):
    cfg = EpisodeConfig(
        "put the strawberry on the region", "berry1", 0, tmp_path / "run", perception="kinect"
    )
    rec = run_one(Job("berry1", 0, "owl", cfg, "runs/owl/berry1-s0"))
    assert rec["success"] is False and rec["declared_success"] is False and rec["error"] is True
    assert (
        rec["failure"].startswith("error: unknown perception source 'kinect'")
        and "\n" not in rec["failure"]
    )
    assert list(rec)[: len(FIELDS)] == list(FIELDS)


def test_every_spec_method_is_one_registry_entry():
    assert list(methods.METHODS) == [
        "owl",
        "no-disc",
        "no-cont",
        "no-back",
        "no-sample",
        "direct",
        "cap",
        "cap-sample",
        "oracle",
    ]
    assert methods.available() == list(methods.METHODS)
    assert methods.get("oracle").configure(EpisodeConfig("x")).vlm == "oracle"
    with pytest.raises(UsageError, match="available: owl, no-disc"):
        methods.get("nosuch")
    assert Path(methods.__file__).parent.name == "bench"


def test_the_references_overall_figure_stands_beside_all_ten_tasks_and_theirs_beside_fewer(
    tmp_path,
):
    from owl_bt.bench import reference

    ten = [t.lower() for t in reference.TASKS]
    (tmp_path / "episodes.jsonl").write_text(
        "\n".join(json.dumps(_rec(t, 0, "owl", True, True, 10, 1.0)) for t in ten) + "\n"
    )
    assert write_summary(tmp_path)["methods"]["owl"]["overall"]["ref_success_pct"] == 92
    (tmp_path / "episodes.jsonl").write_text(
        "\n".join(json.dumps(_rec(t, 0, "owl", True, True, 10, 1.0)) for t in ("berry1", "mug3"))
        + "\n"
    )
    data = write_summary(tmp_path)
    assert data["methods"]["owl"]["overall"]["ref_success_pct"] == pytest.approx((100 + 70) / 2)
    assert "over 2 episodes (target 0)" in (tmp_path / "summary.md").read_text()
