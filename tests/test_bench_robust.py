"""Hostile input for the bench, the run folder and the CLI's output: corrupt episodes.jsonl lines,
a full disk (the real OS limits: RLIMIT_FSIZE, /dev/full), leftover `.partial` folders, a bench
folder of another setup or in use, output width off a terminal, help texts."""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from owl_bt.bench import episodes
from owl_bt.bench.cli import _locked, bench_command
from owl_bt.bench.config import check_out, make_config
from owl_bt.errors import UsageError
from owl_bt.runfolder import RunFolder, disk_error

BERRY = "put the strawberry onto the light-grey region at the center of the table"


def owl(*args: str, fsize: int | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`owl-bt ARGS` in a subprocess; with `fsize`, no file it writes may grow past that many bytes."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit if fsize else None,
        env=env,
    )


def _rec(seed: int, **fields) -> dict:
    return {
        "task": "berry1",
        "seed": seed,
        "method": "owl",
        "success": True,
        "wall_s": 1.0,
        **fields,
    }


# ---- episodes.jsonl read strictly -----------------------------------------------------------------


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
        # break-it: these crashed --report-only with a traceback, or wrote a heading into summary.md
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
    # (break-it: a line of task "nosuch" had its own row in summary.md and counted in the overall row)
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
    proc = owl("bench", "--out", str(tmp_path), "--report-only")
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


# ---- a full disk --------------------------------------------------------------------------------


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


def test_a_run_on_a_full_disk_ends_in_one_line_and_leaves_no_folder(tmp_path):
    out = tmp_path / "r"
    proc = owl(
        "run", BERRY, "--task", "berry1", "--out", str(out), "-q", fsize=4096
    )  # initial.png is bigger
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"owl-bt: file size limit exceeded writing {out}.partial; the unfinished run folder was removed"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_bench_on_a_full_disk_stops_in_one_line_and_keeps_nothing_half_written(tmp_path):
    out = tmp_path / "b"
    proc = owl(
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


# ---- leftovers, locks, setups ---------------------------------------------------------------------


def test_a_leftover_partial_is_removed_with_one_line_and_a_live_one_is_refused(tmp_path, capsys):
    final = tmp_path / "r"
    leftover = tmp_path / "r.partial"
    leftover.mkdir()
    (leftover / "events.jsonl").write_text('{"event": "start"}\n')
    folder = RunFolder(final, "x")
    assert (
        capsys.readouterr().err
        == f"owl-bt: removed {leftover}, left by a run that did not finish\n"
    )
    with pytest.raises(UsageError, match="another owl-bt run is writing .*r.partial right now"):
        RunFolder(final, "x")  # the first one is still writing: its folder is left alone
    assert (leftover / "events.jsonl").is_file()
    assert folder.finish() == final
    assert '"event": "leftover_removed"' in (final / "events.jsonl").read_text()


def test_a_partial_not_left_by_a_run_is_never_deleted(tmp_path):
    # break-it finding: `-o data` deleted a person's own `data.partial/` folder
    mine = tmp_path / "data.partial"
    (mine / "sub").mkdir(parents=True)
    (mine / "notes.md").write_text("mine")
    with pytest.raises(UsageError, match="was not left by an owl-bt run"):
        RunFolder(tmp_path / "data", "x")
    assert (mine / "notes.md").read_text() == "mine" and (mine / "sub").is_dir()
    with pytest.raises(UsageError, match="may not end in .partial"):
        RunFolder(tmp_path / "other.partial", "x")
    assert not (tmp_path / "other.partial").exists()


def test_two_runs_started_in_the_same_second_get_different_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = RunFolder(None, "same words"), RunFolder(None, "same words")
    assert a.path != b.path and b.final.name.startswith(a.final.name)
    a.discard()
    b.discard()


def test_run_folder_names_the_file_system_refuses_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="cannot use .* as the run folder: File name too long"):
        RunFolder(tmp_path / ("a" * 250), "x")  # its .partial sibling is over 255 bytes
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="cannot create the run folder .*: Not a directory"):
        RunFolder(tmp_path / "file" / "r", "x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    assert (
        RunFolder(tmp_path / "link", "ünï cødé 💥").finish() == tmp_path / "empty"
    )  # a link to an empty folder is followed
    assert (tmp_path / "empty" / "report.md").is_file()


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


@pytest.mark.parametrize(
    "bad, says",
    [  # --seeds and --tasks are parsed as bench's are (test_bench.py)
        (["--out", "FILE"], "is not a folder"),
        (["--out", "/proc"], "cannot write in the bench folder /proc"),
    ],
)
def test_perception_bench_bad_arguments_exit_2(tmp_path, bad, says):
    (tmp_path / "FILE").write_text("x")
    proc = owl(
        "perception-bench",
        "--tasks",
        "berry1",
        "--seeds",
        "1",
        *[str(tmp_path / "FILE") if a == "FILE" else a for a in bad],
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and says in proc.stderr, (
        proc.stderr
    )


# ---- what a person reads ----------------------------------------------------------------------------


def test_output_off_a_terminal_is_not_wrapped_at_80_columns():
    proc = owl("tasks")
    line = "berry1     put the strawberry onto the light-grey region at the center of the table"
    assert proc.returncode == 0 and len(line) > 80 and line in proc.stdout.splitlines()
    skills = owl("skills", "--json")
    assert {"pick", "place_ontop", "pour"} <= {
        s["name"] for s in json.loads(skills.stdout)
    }  # stdout: one JSON document


@pytest.mark.parametrize("command", ["bench", "perception-bench", "skills", "doctor"])
def test_help_teaches_with_an_example(command):
    proc = owl(command, "--help")
    text = " ".join(proc.stdout.split())
    assert (
        proc.returncode == 0
        and "Examples:" in text
        and f"owl-bt {command} " in text.split("Examples:")[1]
    )
    assert "default" in text.lower()


def test_perception_bench_stopped_by_ctrl_c_writes_what_it_measured(tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
            "perception-bench",
            "--tasks",
            "berry1",
            "--seeds",
            "500",
            "--out",
            str(tmp_path),
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_default,
    )
    first = proc.stderr.readline()
    while first and not first.startswith(
        "berry1-s0:"
    ):  # past any warning printed while starting up
        first = proc.stderr.readline()
    proc.send_signal(signal.SIGINT)  # the first scene is done
    out, err = proc.communicate(timeout=120)
    assert first.startswith("berry1-s0:") and proc.returncode == 130, err
    assert (
        err.strip().splitlines()[-1].startswith("owl-bt: perception-bench stopped by Ctrl-C after ")
    )
    data = json.loads(out)
    assert data["interrupted"] is True and 1 <= data["overall"]["scenes"] < 500
    assert (
        json.loads((tmp_path / "perception_bench.json").read_text())["overall"]["scenes"]
        == data["overall"]["scenes"]
    )


def test_a_plugins_names_are_printed_as_text_not_markup():
    from owl_bt.skills_cmd import print_skills

    buf = io.StringIO()
    record = {
        "signature": "wipe(o: Thing[/bold], s: [red]x)",
        "package": "pkg[/]",
        "entry_point": "m:[x]",
        "pre": "—",
        "add": "—",
        "delete": "—",
        "open_world": False,
        "description": "[link]d",
    }
    print_skills(Console(file=buf, width=200), [record])
    assert buf.getvalue().startswith("wipe(o: Thing[/bold], s: [red]x)  from pkg[/] (m:[x])\n")


def test_progress_lines_print_feedback_as_text(monkeypatch):
    import py_trees

    from owl_bt.cli import progress as cli

    buf = io.StringIO()
    monkeypatch.setattr(cli, "err", Console(file=buf, width=200))
    root = py_trees.composites.Sequence(
        "owl", memory=True, children=[py_trees.behaviours.Failure("perceive")]
    )
    root.tick_once()
    root.children[
        0
    ].feedback_message = (
        "failed near [/bold] the [red]x"  # e.g. a reason quoting the person's words
    )
    cli._Progress()(root)
    assert buf.getvalue().split() == [
        "perceive",
        "failure",
        "—",
        "failed",
        "near",
        "[/bold]",
        "the",
        "[red]x",
    ]


def test_the_bench_bar_shows_a_failure_as_text():
    from owl_bt.bench.progress import BenchProgress
    from owl_bt.bench.runner import Outcome

    console = Console(file=io.StringIO(), width=200)
    with BenchProgress(console, "owl", 2, 0, 0) as bar:
        bar(
            {"task": "berry1", "seed": 0, "success": False, "failure": "x [/bold] y"},
            Outcome(total=2, new=1),
        )
    assert "berry1 s0 failed: x [/bold] y" in console.file.getvalue()


def _sigint_default() -> None:
    """In the child: Ctrl-C as a terminal delivers it (pytest-xdist workers ignore SIGINT, and an
    ignored SIGINT is inherited, so Python would install no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_seed_lists_the_bench_cannot_record_are_usage_errors():
    from owl_bt.bench.config import parse_seeds

    assert parse_seeds(None, "3, 5,7") == (3, 5, 7)
    for bad, why in (
        ("0,,1", "whole numbers"),
        ("99999999999999999999", "at most"),
        ("-1", "0 or more"),
    ):
        with pytest.raises(UsageError, match=why):
            parse_seeds(None, bad)


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parents.items() if pp == p}
        out |= kids
        todo += list(kids)
    return out


def test_a_bench_killed_with_sigkill_leaves_no_workers_behind(tmp_path):
    # break-it finding: after kill -9 the worker (500 MB) ran on for minutes and held the run folder
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "b"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
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
            "-q",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("runs/*/*.partial")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(out.glob("runs/*/*.partial")), "the episode never started"
    kids = _descendants(proc.pid)
    assert kids
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(
        Path(f"/proc/{k}").exists()
        and "Z" not in (Path(f"/proc/{k}/stat").read_text().split()[2:3] or ["Z"])
        for k in kids
    ):
        time.sleep(0.2)
    alive = [
        k
        for k in kids
        if Path(f"/proc/{k}").exists() and Path(f"/proc/{k}/stat").read_text().split()[2] != "Z"
    ]
    assert not alive, f"still running after the bench was killed: {alive}"


@pytest.mark.parametrize(
    ("sig", "group"), [("SIGTERM", True), ("SIGHUP", True), ("SIGTERM", False)]
)
def test_a_bench_stopped_by_a_signal_to_its_whole_group_leaves_no_partial_folder(
    tmp_path, sig, group
):
    # break-it findings: `kill -TERM -<pgid>` reached the worker too, and its episode's `.partial` folder
    # stayed; a closed terminal's SIGHUP killed multiprocessing's resource tracker: a traceback per semaphore
    import subprocess
    import sys
    import time

    out = tmp_path / "b"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "owl_bt.cli",
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
            "-q",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("runs/*/*.partial")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(out.glob("runs/*/*.partial")), "the episode never started"
    time.sleep(1.0)  # the episode is under way
    (os.killpg if group else os.kill)(proc.pid, getattr(signal, sig))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = err.decode().strip().splitlines()
    said = "Ctrl-C (SIGINT)" if sig == "SIGINT" else sig
    assert lines == [
        f"owl-bt: bench stopped by {said}: 0 of 1 episodes recorded; summary in {out}/summary.md"
    ], lines
    # no folder of the unrecorded episode: neither a `.partial` one nor the whole one a stopped episode
    # writes as it ends (break-it: that one stayed, complete-looking, though episodes.jsonl did not list it)
    assert not list(out.glob("runs/*/*")), list(out.glob("runs/**/*"))


def test_json_nested_too_deeply_is_a_damaged_line_not_a_traceback(tmp_path):
    # break-it: 1000 levels of [[[…]]] on one line raised RecursionError out of --report-only and resumes;
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
