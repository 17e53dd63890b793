"""Break-it findings of session 15, fixed in session 16: `--speed nan` was refused as "should be less than
or equal to 1"; `--faults knock=1_0` (ten) and full-width digits were read as numbers by float();
`owl-bt tasks | head -1` ended 1, as if the listing had failed. The real program, in a subprocess."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from owl_bt.errors import UsageError
from owl_bt.faults import parse_faults
from tests.support.cli import last_line, owl

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("value", ["nan", "inf", "0.001", "2"])
def test_a_speed_out_of_range_or_not_a_number_is_named_as_such(value, tmp_path):
    proc = owl(
        "run",
        "put the strawberry onto the light-grey region",
        "--task",
        "berry1",
        "--speed",
        value,
        "--out",
        str(tmp_path / "r"),
        timeout=60,
    )
    assert proc.returncode == 2
    line = last_line(proc.stderr)
    assert line.startswith(
        "owl-bt: --speed must be a share of the joints' velocity limits from 0.01 to 1, got "
    )
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("rate", ["1_0", "0_5", "\uff10.\uff15", "nan", "1e-1", "0x1", "--1"])
def test_a_fault_rate_is_a_plain_decimal(rate):
    with pytest.raises(
        UsageError, match=re.escape(f"the rate of knock must be a number, got {rate!r}")
    ):
        parse_faults(f"knock={rate}")


def test_plain_fault_rates_are_read():
    assert parse_faults("knock=.5, grasp-slip=1,miss-detect=0").rates == {
        "knock": 0.5,
        "grasp-slip": 1.0,
        "miss-detect": 0.0,
    }


@pytest.mark.parametrize("command", ["tasks", "skills", "run --help", "--help"])
def test_a_listing_whose_reader_had_enough_exits_0(command):
    line = (
        f"{shlex.quote(sys.executable)} -m owl_bt.cli {command} | head -1; exit ${{PIPESTATUS[0]}}"
    )
    done = subprocess.run(
        ["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr


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
    final.write_text(
        "hi"
    )  # (break-it: NotADirectoryError from iterdir(), a traceback and a .partial)
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
