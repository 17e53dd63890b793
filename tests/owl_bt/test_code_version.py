"""Which code ran a bench episode: the commit, and for edited files a hash of the edit, so two different
edits of the same commit are two versions (both were '.dirty' and the summary counted one)."""

from __future__ import annotations

import subprocess

from owl_bt import code_version as cv


def test_a_clean_checkout_is_its_commit_and_two_different_edits_are_two_versions(
    tmp_path, monkeypatch
):
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    git("init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "a.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    monkeypatch.setattr(cv, "_ROOT", tmp_path)
    clean = cv.code_version.__wrapped__()
    assert clean.endswith("+" + git("rev-parse", "--short=7", "HEAD"))
    (tmp_path / "a.py").write_text("x = 2\n")
    first = cv.code_version.__wrapped__()
    (tmp_path / "a.py").write_text("x = 3\n")
    second = cv.code_version.__wrapped__()
    assert (
        first.startswith(clean + ".dirty-")
        and second.startswith(clean + ".dirty-")
        and first != second
    )
    (tmp_path / "b.py").write_text("untracked\n")  # files git does not track do not count
    (tmp_path / "a.py").write_text("x = 1\n")
    assert cv.code_version.__wrapped__() == clean
