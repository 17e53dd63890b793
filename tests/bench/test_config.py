"""Bench options checked before the bench folder is made: the model endpoint of --vlm openai."""

from __future__ import annotations

import subprocess
import sys

import pytest

from owl_bt.bench.config import make_config
from owl_bt.errors import UsageError


@pytest.fixture
def no_endpoint(monkeypatch, tmp_path):
    """No OpenAI settings in the environment or a settings file."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OWL_BT_VLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OWL_BT_CONFIG", str(tmp_path / "none.toml"))


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({}, "needs OPENAI_API_KEY"),
        ({"OPENAI_BASE_URL": "notaurl", "OWL_BT_VLM_MODEL": "m"}, "is not a URL"),
    ],
)
def test_openai_without_whole_settings_is_refused_before_the_folder(
    no_endpoint, monkeypatch, tmp_path, env, words
):
    """Before: every episode was recorded as an error, exit 0, and the same command after the
    settings were fixed ran nothing (its episodes were recorded)."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    out = tmp_path / "bench"
    with pytest.raises(UsageError, match=words):
        make_config("owl", "berry1", 1, None, out, 1, 500, 4, vlm="openai")
    assert not out.exists()


def test_the_oracle_method_asks_no_model_so_needs_no_endpoint(no_endpoint, tmp_path):
    cfg = make_config("oracle", "berry1", 1, None, tmp_path / "bench", 1, 500, 4, vlm="openai")
    assert cfg.method == "oracle"


def test_openai_without_settings_is_one_line_and_exit_2(no_endpoint, tmp_path):
    out = tmp_path / "bench"
    proc = subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", "bench", "--vlm", "openai", "--tasks", "berry1"]
        + ["--seeds", "1", "--out", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("owl-bt: the openai VLM backend needs OPENAI_API_KEY")
    assert not out.exists()
