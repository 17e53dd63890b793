"""`--out`: a run folder written into, replaced or unremovable during the run keeps what is there and
the run takes the next name; `--out .` fills the current folder. Real CLI in a subprocess."""

from __future__ import annotations


def test_an_out_folder_written_into_during_the_run_keeps_its_files_and_the_run_takes_the_next_name(
    tmp_path,
):
    """Break-it: `mkdir race; (sleep 4; echo hi > race/notes.txt) & owl-bt run … -o race` ended in a
    traceback ("Directory not empty") with the finished run left as race.partial."""
    from owl_bt.runfolder import RunFolder

    final = tmp_path / "race"
    final.mkdir()
    folder = RunFolder(final, "x")
    (final / "notes.txt").write_text("hi")
    done = folder.finish()
    assert (
        done == tmp_path / "race-2"
        and (done / "events.jsonl").is_file()
        and (done / "report.md").is_file()
    )
    assert (final / "notes.txt").read_text() == "hi" and not list(tmp_path.glob("*.partial"))


def test_an_out_folder_that_cannot_be_removed_receives_the_run(tmp_path, monkeypatch):
    """Break-it: `-o` an empty mount point: rmdir says 'Device or resource busy' (EBUSY), a traceback, the
    finished run left as .partial (and deleted by the next run). Its files now go into the folder itself."""
    import errno
    import pathlib

    from owl_bt.runfolder import RunFolder

    final = tmp_path / "mp"
    final.mkdir()
    rmdir = pathlib.Path.rmdir

    def busy(self):  # as a mount point answers (this machine's tests may not mount one)
        if self == final:
            raise OSError(errno.EBUSY, "Device or resource busy", str(self))
        return rmdir(self)

    monkeypatch.setattr(pathlib.Path, "rmdir", busy)
    folder = RunFolder(final, "x")
    assert folder.finish() == final
    assert (
        (final / "events.jsonl").is_file()
        and (final / "report.md").is_file()
        and not list(tmp_path.glob("*.partial"))
    )


def test_an_out_folder_replaced_by_a_file_during_the_run_is_kept_and_the_run_takes_the_next_name(
    tmp_path,
):
    from owl_bt.runfolder import RunFolder

    final = tmp_path / "o3"
    final.mkdir()
    folder = RunFolder(final, "x")
    final.rmdir()
    final.write_text("hi")  # (NotADirectoryError from iterdir(), a traceback and a .partial)
    assert folder.finish() == tmp_path / "o3-2" and final.read_text() == "hi"
    assert (tmp_path / "o3-2" / "events.jsonl").is_file() and not list(tmp_path.glob("*.partial"))


def test_out_dot_fills_the_current_folder_instead_of_replacing_it(tmp_path, monkeypatch):
    """Break-it: `-o .` in an empty folder removed it and renamed the run onto its name: the caller's shell
    was left in a deleted folder, seeing nothing."""
    import os

    from owl_bt.runfolder import RunFolder

    here = tmp_path / "empty"
    here.mkdir()
    monkeypatch.chdir(here)
    inode = os.stat(here).st_ino
    assert RunFolder(here, "x").finish() == here
    assert (
        os.stat(".").st_ino == inode
        and (here / "events.jsonl").is_file()
        and os.path.isfile("report.md")
    )
