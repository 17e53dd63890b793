"""The run report leads with the outcome: the verdict, the video of the execution, before/after and
where everything ended come before the goal's text, the attempts and the generated code."""

from __future__ import annotations

import json

from PIL import Image

from owl_bt.report.final_state import markdown
from owl_bt.report.writer import write_report


def _folder(tmp_path):
    plan = {
        "instruction": "put the apple into the bowl",
        "task": "user",
        "seed": 0,
        "result": {"success": True, "attempts": 1, "executed": ["pick(apple)"]},
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    for name in ("initial.png", "final.png"):
        Image.new("RGB", (8, 6)).save(tmp_path / name)
    frames = [Image.new("RGB", (8, 6), c) for c in ("red", "blue")]
    frames[0].save(tmp_path / "run.gif", save_all=True, append_images=frames[1:], duration=125)
    return tmp_path


def test_the_video_and_the_pictures_come_before_the_goal_and_the_attempts(tmp_path):
    write_report(_folder(tmp_path))
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    order = [
        "Outcome: **success**",
        "](run.gif)",
        "| ![before](initial.png) | ![after](final.png) |",
        "Executed: `pick(apple)`",
        "## Goal",
    ]
    assert [md.index(s) for s in order] == sorted(md.index(s) for s in order)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.index('src="run.gif"') < page.index('src="initial.png"') < page.index("<h2>Goal")
    assert "[run.gif](run.gif)" in md  # listed under Files


def test_without_a_video_the_report_still_leads_with_the_pictures(tmp_path):
    folder = _folder(tmp_path)
    (folder / "run.gif").unlink()
    write_report(folder)
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "run.gif" not in md and md.index("![before]") < md.index("## Goal")


def _row(name, flags=()):
    return {
        "object": name,
        "where": "on the table",
        "moved_cm": 1.0,
        "tilt_deg": 0,
        "flags": list(flags),
    }


def test_the_final_state_table_has_no_empty_column():
    lines = markdown([_row("apple"), _row("mug")], "the simulator")
    header = next(line for line in lines if line.startswith("| object"))
    assert header == "| object | where | moved | tilt |"
    assert all(line.count("|") == 5 for line in lines if line.startswith("|"))


def test_a_flagged_object_gets_a_named_fifth_column():
    lines = markdown([_row("apple"), _row("mug", ["tipped over"])], "the simulator")
    assert "| object | where | moved | tilt | look at |" in lines
    assert "| mug | on the table | 1.0 cm | 0° | tipped over |" in lines
    assert "| apple | on the table | 1.0 cm | 0° | — |" in lines
    assert "- the mug: tipped over" in lines
