"""The summary's cost-against-clutter table and plot, from hand-written records of the scaling family."""

from __future__ import annotations

from owl_bt.bench import episodes
from owl_bt.bench.scaling import PLOT_NAME, scaling_rows
from owl_bt.bench.summary import write_summary


def _rec(task: str, seed: int, plan: float, success: bool = True, **extra) -> dict:
    return {
        "task": task,
        "seed": seed,
        "method": "oracle",
        "success": success,
        "declared_success": success,
        "samples": 6,
        "wall_s": 4 * plan,
        "model_s": 0.0,
        "skeletons": 1,
        "attempts": 1,
        "queries": 2,
        "detector": "x",
        "failure": None,
        "run_dir": f"runs/oracle/{task}-s{seed}",
        "tick_hz": 10.0,
        "error": False,
        "stage_s": {"perceive": plan / 2, "plan": plan, "execute": 2.5 * plan},
        **extra,
    }


def test_rows_per_table_size_and_the_plot(tmp_path):
    recs = [
        _rec("scaling-n4", 0, 6.0),
        _rec("scaling-n4", 1, 9.0),
        _rec("scaling-n24", 0, 15.0),
        _rec("scaling-n24", 1, 12.0, success=False),
        _rec("berry1", 0, 3.0),  # not a scaling task: not a row
    ]
    rows = scaling_rows(recs)["oracle"]
    assert [r["objects"] for r in rows] == [4, 24]
    assert rows[0]["plan_median_s"] == 7.5 and rows[0]["plan_per_moved_s"] == 2.5
    assert rows[1]["success_pct"] == 50.0 and rows[1]["plan_per_moved_s"] == 13.5 / 3
    assert abs(rows[1]["stage_share"]["plan"] - 1 / 4) < 1e-9
    for r in recs:
        episodes.append(tmp_path / episodes.FILENAME, r)
    write_summary(tmp_path)
    md = (tmp_path / "summary.md").read_text()
    assert "## Cost against clutter" in md
    assert "| 24 | 3 | 2 | 50 | 6.0 | 13.5 | 4.5 | 1.80 |" in md
    assert (tmp_path / PLOT_NAME).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_scaling_records_no_table_and_no_plot(tmp_path):
    episodes.append(tmp_path / episodes.FILENAME, _rec("berry1", 0, 3.0))
    write_summary(tmp_path)
    assert "Cost against clutter" not in (tmp_path / "summary.md").read_text()
    assert not (tmp_path / PLOT_NAME).exists()
