"""The command line's consoles print text as given."""

from __future__ import annotations

import pytest

from owl_bt.report.console import make_console


@pytest.mark.parametrize("stderr", [False, True])
def test_colon_words_are_printed_as_they_are_not_as_emoji(capsys, stderr):
    """A run folder, goal or address holding ':fire:' is printed with it, not with an emoji."""
    console = make_console(stderr=stderr)
    console.print("run folder: /tmp/a:fire:b", markup=False)
    console.print("the Gen3 at 10.0.0.1:abc: no answer", markup=False)
    got = capsys.readouterr()
    text = got.err if stderr else got.out
    assert "/tmp/a:fire:b" in text and "10.0.0.1:abc:" in text
