"""Whether a thing fits a container's opening is judged before any sample is drawn: a box passes a
round opening only by its diagonal. On the real planning model; the whole run that needed it ("put
the power drill in the mug") is tests/e2e/test_fit_before_sampling.py."""

from __future__ import annotations


def test_a_box_passes_a_round_opening_only_by_its_diagonal(skills) -> None:
    """ "put the sponge in the red mug" (a 6.5 × 3 cm cross-section, 7.2 cm corner to corner, and a
    6.4 cm opening) drew 6,816 samples over ten minutes; the check compared the 6.5 cm side alone."""
    from owl_bt.tamp.planning_model import PlanningModel
    from tests.support.worlds import settled_state

    state = settled_state(
        ("mug", (0.5, 0.1, 0.046)),
        ("sponge", (0.5, -0.15, 0.016)),
        ("fork", (0.6, -0.1, 0.01)),
        ("golf_ball", (0.4, -0.1, 0.022)),
    )
    model = PlanningModel(state)
    try:
        never = skills["place_inside"].never
        why = never(model, ("sponge", "mug"))
        assert why is not None and why.startswith(
            "sponge does not fit into mug: 3.0 × 6.5 cm at its slimmest cross-section, "
            "7.2 cm corner to corner, wider than mug's opening"
        ), why
        assert never(model, ("fork", "mug")) is None and never(model, ("golf_ball", "mug")) is None
    finally:
        model.close()
