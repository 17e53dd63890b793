"""`owl-bt bench` at the command line: a bare bench says how many episodes and how long before it
starts; seed lists it cannot record are usage errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from owl_bt.errors import UsageError


def test_a_bare_bench_says_how_many_episodes_and_how_long_before_it_starts(tmp_path):
    """A bare `owl-bt bench` started 100 episodes (hours) without a word. The defaults stay;
    the first line says what will run and roughly how long."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "owl_bt.cli", "bench"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "300"},
    )
    try:
        first = proc.stderr.readline()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        proc.kill()
    from owl_bt.bench.reference import WALL_S

    jobs = min(os.cpu_count() or 1, 100)
    hours = sum(WALL_S["owl"].values()) * 10 / jobs / 3600
    assert first.startswith(
        f"owl-bt: bench: 100 episodes to run (10 tasks × 10 seeds, method owl) on {jobs} worker"
    ), first
    assert f"up to roughly {hours:.1f} h (the reference method's wall clock per task" in first, (
        first
    )
    assert proc.returncode == 130


def test_seed_lists_the_bench_cannot_record_are_usage_errors():
    from owl_bt.bench.config import parse_seeds

    assert parse_seeds(None, "3, 5,7") == (3, 5, 7)
    for bad, why in (
        ("0,,1", "whole numbers"),
        ("99999999999999999999", "from 0 to"),
        ("-1", "from 0 to"),
    ):
        with pytest.raises(UsageError, match=why):
            parse_seeds(None, bad)
