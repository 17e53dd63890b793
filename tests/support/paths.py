"""Paths of the repository the tests read: its root, the example scenes and the test data."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
