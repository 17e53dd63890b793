"""The hostile checker corpus (`tests/language/hostile/*.checker`, one snippet a file with its class
and what must happen): each is refused by the static check, or contained in the sandbox worker —
False, with one recorded error line, within the worker's wall-clock deadline — and nothing outside
the sandbox changes (the state the checker saw, the working directory, the home directory)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from owl_bt.errors import UnsafeCodeError
from owl_bt.language.sandbox import CheckerSet
from owl_bt.language.sandbox_client import CALL_DEADLINE_S
from owl_bt.language.workspace import env_from_state

CORPUS = Path(__file__).parent / "hostile"
SENTINEL = "owl_sandbox_probe.txt"
START_SLACK_S = 20.0  # a fresh worker's start-up on a loaded machine (imports numpy, the catalogue)


def read_snippet(path: Path) -> dict[str, str]:
    """{'name', 'class', 'expect', 'why', 'source'} of a corpus file (its `# key: value` header)."""
    head: dict[str, str] = {}
    lines = path.read_text().splitlines(keepends=True)
    k = 0
    while k < len(lines) and lines[k].startswith("# ") and ":" in lines[k]:
        key, _, value = lines[k][2:].partition(":")
        head[key.strip()] = value.strip()
        k += 1
    head["source"] = "".join(lines[k:])
    return head


SNIPPETS = sorted(CORPUS.glob("*.checker"))


def test_the_corpus_is_large_and_each_file_says_what_must_happen():
    assert len(SNIPPETS) >= 80
    for path in SNIPPETS:
        s = read_snippet(path)
        assert s.get("expect") in ("refused", "false"), path.name
        assert s.get("class") and s.get("why") and s["source"].strip(), path.name


@pytest.mark.parametrize("path", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_snippet(path, berry_world, tmp_path, monkeypatch):
    s = read_snippet(path)
    monkeypatch.chdir(tmp_path)
    before = dict(berry_world.objects)
    env = env_from_state(berry_world)
    if s["expect"] == "refused":
        with pytest.raises(UnsafeCodeError) as exc:
            CheckerSet.compile(s["source"], berry_world, env)
        reason = exc.value.reason
        assert "line" in reason or "defines no function" in reason or "parse" in reason
    else:
        cs = CheckerSet.compile(s["source"], berry_world, env)
        t0 = time.monotonic()
        assert cs.evaluate("goal_check0", berry_world) is False
        took = time.monotonic() - t0
        assert took < CALL_DEADLINE_S + START_SLACK_S, f"{took:.1f} s"
        assert cs.errors and cs.errors[-1].startswith("goal_check0: ")
        assert "\n" not in cs.errors[-1] and len(cs.errors[-1]) < 800, cs.errors[-1][:200]
        if "stopped after" not in cs.errors[-1]:
            assert cs.last_cpu_s <= 2.0  # the worker's CPU time for the call
    assert berry_world.objects == before
    assert os.listdir(tmp_path) == []
    assert not os.path.exists(os.path.join(os.path.expanduser("~"), SENTINEL))
