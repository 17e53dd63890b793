"""The scaling family: N objects laid out on the table for any seed, the moved fruit in reach, and
the family standing for its four tasks in `--tasks`."""

from __future__ import annotations

import pytest

from owl_bt.bench.config import parse_tasks
from sim import tasks
from sim.catalog.layout import REACH, footprint, on_table, overlaps
from sim.tasks import scaling
from sim.world import SimWorld


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_twenty_four_objects_fit_on_the_table_apart_with_the_moved_fruit_in_reach(seed):
    task = tasks.get("scaling-n24")
    world = SimWorld()
    try:
        task.build(world, seed)
        states = world.object_states()
        names = [n for n in states if n != "table"]
        assert len(names) == 24 == task.objects
        boxes = {n: footprint(world.bodies[n].spec, states[n].pose) for n in names}
        for n, box in boxes.items():
            assert on_table(box), n
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                assert not overlaps(boxes[a], boxes[b]), (a, b)
        for fruit in scaling.MOVED:
            x, y, _ = states[fruit].pose.position
            assert REACH[0][0] <= x <= REACH[0][1] and REACH[1][0] <= y <= REACH[1][1]
        assert not task.detect(world).success  # nothing is on the plate yet
    finally:
        world.close()


def test_the_family_stands_for_its_tasks_and_all_stays_the_ten():
    assert parse_tasks("scaling") == ("scaling-n4", "scaling-n8", "scaling-n16", "scaling-n24")
    assert parse_tasks("berry1,scaling-n8") == ("berry1", "scaling-n8")
    assert len(parse_tasks("all")) == 10 and not any("scaling" in t for t in parse_tasks("all"))
    assert [len(scaling.distractors(n)) for n in scaling.SIZES] == [0, 4, 12, 20]
    assert tasks.get("Scaling-N16").moved == 3
