"""Write the recorded model answers of the everyday tasks (tests/fixtures/everyday_transcripts/).

Run once: each task's hand-written oracle sketch and checkers, rewritten in the shapes a chat model
answers in (a scene paragraph in bold, numbered plan lines in backticks or bare lines, prose before
and after the python block), one JSON file per task. `tests/support/transcript_server.py` serves
them over the OpenAI chat-completions API for `--vlm openai` runs (docs/everyday.md).

    PYTHONPATH=$PWD python scripts/write_everyday_transcripts.py [FOLDER]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sim.tasks.everyday import EVERYDAY

FOLDER = Path(__file__).parents[1] / "tests" / "fixtures" / "everyday_transcripts"


def model_sketch(oracle: str, style: int) -> str:
    """The oracle sketch as a model writes it: bold scene paragraph, numbered or bulleted lines."""
    scene, _, plan = oracle.partition("\nPlan:\n")
    lines = [ln for ln in plan.splitlines() if ln.strip()]
    if style == 0:  # numbered, operators in backticks
        body = [
            f"{i}. `{ln.split(';')[0]}`;{ln.partition(';')[2]}" for i, ln in enumerate(lines, 1)
        ]
    elif style == 1:  # bullets
        body = [f"- {ln}" for ln in lines]
    else:  # bare lines, the prompt's own form
        body = lines
    return (
        f"**Scene description.** {scene.strip()}\n\n**Plan:**\n"
        + "\n".join(body)
        + "\n\nThe planner fills in the grasps and exact positions.\n"
    )


def model_checkers(oracle: str, style: int) -> str:
    """The oracle checkers with the prose a model writes around its python block."""
    before = (
        "Here are the checkers. Each goal part has its own function, and every placement is "
        "checked right after it happens.\n\n",
        "",
        "The goal checkers test the final state; the action checkers test the state after each "
        "placement.\n\n",
    )[style]
    after = ("", "\nAll functions are pure: they only read `state`.\n", "")[style]
    return before + oracle.strip() + "\n" + after


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, (name, task) in enumerate(sorted(EVERYDAY.items())):
        record = {
            "task": name,
            "instruction": task.instruction,
            "written_by": "the task's oracle answers, rewritten in a chat model's answer format",
            "answers": {
                "sketch": [model_sketch(task.oracle_sketch, i % 3)],
                "checker": [model_checkers(task.oracle_checkers, i % 3)],
            },
        }
        path = folder / f"{name}.json"
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER)
