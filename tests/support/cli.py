"""Running the owl-bt CLI from tests: as a subprocess, in this process, and reading its last line."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time

from typer.testing import CliRunner

from owl_bt.cli import app


def owl(
    *args: str, env: dict | None = None, stdin: str | None = None, timeout: float = 300, **popen
) -> subprocess.CompletedProcess:
    """`python -m owl_bt.cli ARGS` in a subprocess (captured text output; env added to os.environ)."""
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
        env={**os.environ, **(env or {})},
        **popen,
    )


def owl_wide(*args: str, **kw) -> subprocess.CompletedProcess:
    """`owl` with COLUMNS=200: a one-line reason stays on one line."""
    return owl(*args, env={"COLUMNS": "200"}, **kw)


def owl_scripted(
    *args: str, fsize: int | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """`python -m owl_bt.cli ARGS` as a script starts it: COLUMNS unset (no terminal's width); with
    `fsize`, no file it writes may grow past that many bytes (RLIMIT_FSIZE)."""

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


def interrupted(
    *args: str, after: str, pauses: tuple[float, ...] = (0.05,), timeout: float = 120
) -> tuple[int, str, str]:
    """`python -m owl_bt.cli ARGS` in a subprocess: once a stderr line (its spaces collapsed) contains `after`,
    Ctrl-C (SIGINT) after each of `pauses` (seconds) in turn. Returns (exit code, stdout, all of stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "owl_bt.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            if after in " ".join(line.split()):
                break
        for pause in pauses:
            time.sleep(pause)
            proc.send_signal(signal.SIGINT)
        stdout, rest = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
    return proc.returncode, stdout, "".join(seen) + rest


def here(*args: str):
    """The CLI in this process (typer's runner), for what ends before any simulator starts."""
    return CliRunner().invoke(app, list(args))


def last_line(text: str) -> str:
    """The last non-empty line of stderr, asserting there is one and no traceback."""
    assert "Traceback" not in text
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    assert lines, "expected a reason on stderr"
    return lines[-1]
