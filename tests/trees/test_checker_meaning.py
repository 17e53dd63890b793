"""A monitor failure names what a failed checker tests, not only its name ("action_check1 no longer
holds" told the user and the replan nothing): the objects a failed checker is about come from the
sketch, and several broken checkers are said in one sentence. The whole run with a knock injected is
tests/e2e/test_monitor_runs.py."""

from __future__ import annotations


def test_the_objects_a_failed_checker_is_about_come_from_the_sketch() -> None:
    from types import SimpleNamespace

    from owl_bt.language.parser import parse_sketch
    from owl_bt.tamp.operators import GroundOp
    from trees.execute import Execute

    ops = [GroundOp("pick", (n,)) for n in ("plum", "pear")] + [
        GroundOp("place_ontop", (n, "plate")) for n in ("plum", "pear")
    ]
    sketch = parse_sketch(
        "Plan:\npick(pear); a\nplace_ontop(pear, plate); b\npick(plum); c\nplace_ontop(plum, plate); d\n"
        "achieve_goal(pear, plum); both on the plate\n",
        ops,
        ["plum", "pear", "plate"],
    )
    monitor = SimpleNamespace(_constraints=SimpleNamespace(sketch=sketch))
    assert Execute._checked(monitor, ["action_check1"]) == ["pear"]
    assert Execute._checked(monitor, ["action_check3", "goal_check0", "action_check1"]) == [
        "plum",
        "pear",
    ]
    assert Execute._checked(SimpleNamespace(_constraints=None), ["action_check1"]) == []


def test_several_broken_checkers_no_longer_hold_one_no_longer_holds() -> None:
    # "action_check5 (put the fork into the mug), action_check3 (…) no longer holds"
    from types import SimpleNamespace

    from trees.execute import Execute

    plain = SimpleNamespace(_constraints=None)
    assert Execute._broken(plain, ["action_check5"]) == "action_check5 no longer holds"
    assert (
        Execute._broken(plain, ["action_check5", "action_check3"])
        == "action_check5, action_check3 no longer hold"
    )
