"""A scripted VLM backend: answers each prompt kind with a fixed text (`replay`-style).

The `oracle` method uses it to serve a task's hand-written ground-truth answers — a plan
sketch and checker code written in the same text format a VLM answers with — so the full parsing,
validation and sandbox path runs exactly as it does for a real model.
"""

from __future__ import annotations

from owl_bt.errors import ModelAnswerError


class ScriptedVLM:
    """complete() returns `sketch_answer` for a sketch prompt and `checker_answer` for a checker
    prompt (told apart by the checker prompt's `## Plan sketch` section). A follow-up question (the
    parser rejected the answer) gets the same text again, so a bad script fails the stage cleanly."""

    def __init__(self, name: str, sketch_answer: str, checker_answer: str) -> None:
        if not sketch_answer.strip() or not checker_answer.strip():
            raise ModelAnswerError(f"the {name} script has no answer for one of the prompts")
        self.name = name
        self.sketch_answer = sketch_answer
        self.checker_answer = checker_answer

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str:
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        return self.checker_answer if "## Plan sketch" in prompt else self.sketch_answer
