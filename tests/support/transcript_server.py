"""An OpenAI-compatible chat-completions server on 127.0.0.1 answering from recorded transcripts:
the stand-in for a real model in `--vlm openai` runs of the everyday tasks (docs/everyday.md).

A transcript file (tests/fixtures/everyday_transcripts/<task>.json) holds a task's `instruction`
and its recorded answers per prompt kind, `answers.sketch` and `answers.checker`, in the order a
conversation asks for them. A request is answered from the transcript whose instruction is the
prompt's `## Task` line; its kind is read from the prompt (a sketch prompt lists the initial
literals, a checker prompt the plan sketch); the n-th user message of a conversation (a follow-up
after a refused answer or a checker repair) gets the n-th recorded answer of that kind, the last one
when the recording has no more (a model sending the same answer again). A prompt of another kind or
another task is an HTTP 404 the client does not retry.

Run it for a bench (prints the base URL, serves until stopped):

    PYTHONPATH=$PWD python -m tests.support.transcript_server tests/fixtures/everyday_transcripts
"""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

from tests.support.chat_server import ChatServer, Reply

FOLDER = Path(__file__).parents[1] / "fixtures" / "everyday_transcripts"
_TASK = re.compile(r"^## Task\n(.+?)\n", re.MULTILINE)
NOT_RETRIED = {"x-should-retry": "false"}


def load(folder: Path = FOLDER) -> dict[str, dict]:
    """Instruction → transcript record of every *.json in `folder`."""
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    return {" ".join(r["instruction"].split()): r for r in records}


def _text(content: str | list) -> str:
    """The text of a message content (a string, or parts with the scene image beside the text)."""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")


def kind_of(prompt: str) -> str | None:
    """'sketch' or 'checker' for the two prompts of the owl method, else None."""
    if "\n## Plan sketch\n" in prompt:
        return "checker"
    if "\n## Initial literals\n" in prompt:
        return "sketch"
    return None


class Transcripts:
    """The `respond` function of a ChatServer serving `records` (from `load`); `asked` counts the
    answers given per (task, kind)."""

    def __init__(self, records: dict[str, dict]) -> None:
        self.records = records
        self.asked: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        users = [_text(m["content"]) for m in body.get("messages", []) if m.get("role") == "user"]
        if not users:
            return Reply("the request has no user message", 400, headers=NOT_RETRIED)
        first = users[0]
        kind = kind_of(first)
        found = _TASK.search(first)
        task = " ".join(found.group(1).split()) if found else ""
        record = self.records.get(task)
        if kind is None or record is None:
            return Reply(
                f"no recorded answer for this prompt (kind {kind}, task {task!r})",
                404,
                headers=NOT_RETRIED,
            )
        answers = record["answers"][kind]
        with self.lock:
            key = (record["task"], kind)
            self.asked[key] = self.asked.get(key, 0) + 1
        return Reply(answers[min(len(users), len(answers)) - 1])


def serve(folder: Path = FOLDER) -> ChatServer:
    """A ChatServer (not started: use it as a context manager) answering from `folder`."""
    return ChatServer(respond=Transcripts(load(folder)))


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else FOLDER
    if not folder.is_dir() or not any(folder.glob("*.json")):
        print(f"no transcripts (*.json) in {folder}", file=sys.stderr)
        return 2
    with serve(folder) as server:
        print(server.base_url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
