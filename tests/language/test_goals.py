"""Goal text as the grounder reads it: full-width letters are read as letters, zero-width characters
ignored."""

from __future__ import annotations

import pytest


def test_the_grounder_reads_fullwidth_letters_and_ignores_zero_width_characters():
    """Break-it: a zero-width space pasted inside "strawberry" gave `did you mean "str"?` (a builtin's name from the
    vocabulary module's globals), and fullwidth letters were unknown words."""
    from owl_bt.errors import GroundingError
    from owl_bt.language.offline import SceneObject, ground
    from owl_bt.language.suggest import vocabulary_words

    objs = [
        SceneObject("strawberry", "strawberry"),
        SceneObject("plate", "plate"),
        SceneObject("table", "table"),
    ]
    for goal in ("put the straw\u200bberry on the plate", "ｐｕｔ the strawberry on the plate"):
        assert [(g.obj, g.how, g.support) for g in ground(goal, objs)] == [
            ("strawberry", "ontop", "plate")
        ], goal
    assert not {"str", "int", "print"} & vocabulary_words()
    with pytest.raises(GroundingError, match='did you mean "put"'):
        ground("puut the strawberry on the plate", objs)
