"""Which code ran: the package version and, in a git checkout, its commit — recorded on every bench
episode so that a table says what it measured (a bench run from a stale checkout looked like a regression)."""

from __future__ import annotations

import functools
import hashlib
import subprocess
from importlib import metadata
from pathlib import Path

_ROOT = (
    Path(__file__).resolve().parents[1]
)  # the checkout that holds owl_bt/ (also when run by PYTHONPATH)


@functools.cache
def code_version() -> str:
    """'0.1.0+dc29bb1': the installed version of owl-bt, then '+' and the short commit of the checkout these
    modules are imported from, with '.dirty-<8 hex>' when tracked files differ from it (a hash of the
    difference, so two different edits are two versions); the version alone where there is no git or no
    checkout (an installed wheel). Never raises."""
    try:
        version = metadata.version("owl-bt")
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = _git("rev-parse", "--short=7", "HEAD")
    if not commit:
        return version
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    if not dirty:
        return f"{version}+{commit}"
    edits = hashlib.sha1(_git("diff", "HEAD").encode()).hexdigest()[
        :8
    ]  # two different edits: two versions
    return f"{version}+{commit}.dirty-{edits}"


def _git(*args: str) -> str:
    """`git -C <checkout> ARGS`'s stripped output; '' when git is missing, fails or takes over 5 s."""
    try:
        done = subprocess.run(
            ["git", "-C", str(_ROOT), *args], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
