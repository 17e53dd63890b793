"""The run folder a person looks at after a run (DESIGN §6).

Written into `<final>.partial/` while the run goes on and renamed to its final name only when the
run ends cleanly (success, failure or Ctrl-C), so a folder without `.partial` is always complete.
`events.jsonl` has one structlog JSON event per line.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import structlog

from owl_bt.errors import UsageError

# Files a caller wants in the next run folders it makes (e.g. the spoken goal's transcript): name →
# JSON-able data or bytes. Set through `extra_files`; written when the folder is created.
_EXTRA: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("owl_bt_run_extras", default=None)


@contextlib.contextmanager
def extra_files(files: dict[str, Any]):
    """Within this block every new RunFolder starts with these files (bytes are written as they
    are, anything else as JSON)."""
    token = _EXTRA.set(dict(files))
    try:
        yield
    finally:
        _EXTRA.reset(token)


def slugify(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "run"


class RunFolder:
    """A run folder at `final` (default runs/<time>-<slug>/), written via a `.partial` sibling."""

    def __init__(self, final: Path | None, instruction: str) -> None:
        if final is None:
            stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            final = Path("runs") / f"{stamp}-{slugify(instruction)}"
        self.final = Path(final).absolute()  # planning may change the working directory meanwhile
        if self.final.is_symlink() and not self.final.exists():
            raise UsageError(f"output path {self.final} is a symbolic link to nothing")
        if self.final.exists() and not self.final.is_dir():
            raise UsageError(f"output path {self.final} exists and is not a folder")
        if self.final.exists() and any(self.final.iterdir()):
            raise UsageError(f"output folder {self.final} already exists and is not empty")
        self.path = self.final.with_name(self.final.name + ".partial")
        try:
            if self.path.exists():
                shutil.rmtree(self.path)
            self.path.mkdir(parents=True)
        except OSError as exc:
            raise UsageError(f"cannot create the run folder {self.path}: {exc.strerror}") from None
        self._events = open(self.path / "events.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        self.log = structlog.wrap_logger(
            structlog.WriteLogger(self._events),
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.JSONRenderer(default=str),
            ],
        )
        for name, data in (_EXTRA.get() or {}).items():
            self.write_bytes(name, data) if isinstance(data, bytes) else self.write_json(name, data)

    def write_json(self, name: str, data: Any) -> None:
        tmp = self.path / (name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
        os.replace(tmp, self.path / name)

    def write_text(self, name: str, text: str) -> None:
        (self.path / name).write_text(text, encoding="utf-8")

    def write_bytes(self, name: str, data: bytes) -> None:
        (self.path / name).write_bytes(data)

    def discard(self) -> None:
        """Nothing worth keeping happened (the scene could not even be built): remove the folder."""
        self._events.close()
        shutil.rmtree(self.path, ignore_errors=True)

    def finish(self) -> Path:
        """Close the event log, write the report (report.md/.html, tree.dot/.png), and move the
        folder to its final name; returns that path."""
        self._events.close()
        from owl_bt.report.writer import write_report

        write_report(self.path)  # never raises: a report that cannot be made says so in report.md
        if self.final.exists():
            self.final.rmdir()  # empty (checked in __init__)
        os.replace(self.path, self.final)
        return self.final
