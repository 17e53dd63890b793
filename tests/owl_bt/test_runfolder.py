"""Run folders (owl_bt.runfolder): a leftover `.partial` is removed with one line and a live one
refused, a partial not left by a run is never deleted, two runs in the same second get different
folders, names the file system refuses are usage errors, and a full disk ends a run in one line
with no folder."""

from __future__ import annotations

import pytest

from owl_bt.errors import UsageError
from owl_bt.runfolder import RunFolder
from tests.support.cli import owl_scripted

BERRY = "put the strawberry onto the light-grey region at the center of the table"


@pytest.mark.slow
def test_a_run_on_a_full_disk_ends_in_one_line_and_leaves_no_folder(tmp_path):
    out = tmp_path / "r"
    proc = owl_scripted(
        "run", BERRY, "--task", "berry1", "--out", str(out), "-q", fsize=4096
    )  # initial.png is bigger
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"owl-bt: file size limit exceeded writing {out}.partial; the unfinished run folder was removed"
    ]
    assert list(tmp_path.iterdir()) == []


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
    # `-o data` deleted a person's own `data.partial/` folder
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
