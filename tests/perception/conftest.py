"""Fixtures for perception tests: the pyrealsense2 fake installed in place of the library."""

from __future__ import annotations

import sys

import pytest

from tests.support import fake_pyrealsense2


@pytest.fixture()
def fake_realsense(monkeypatch: pytest.MonkeyPatch):
    """`import pyrealsense2` gives the fake (tests/support/fake_pyrealsense2.py) with a fresh,
    connected device; the fake module is returned (its DEVICE is what the test controls)."""
    monkeypatch.setattr(fake_pyrealsense2, "DEVICE", fake_pyrealsense2.Device())
    monkeypatch.setitem(sys.modules, "pyrealsense2", fake_pyrealsense2)
    return fake_pyrealsense2
