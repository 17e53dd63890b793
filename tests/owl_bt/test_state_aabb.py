"""A round thing's axis-aligned box (ObjectState.aabb) is the thing's, not its turned bounding box's
(a plate seen at some yaw had a box 29 cm wide, and "put the apple next to the plate" held
already for an apple 18 cm from the plate's rim). Checked against the parts' own surface points."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from owl_bt.language.backends import make_vlm
from owl_bt.language.constraints import generate
from owl_bt.state import Pose, rotation_matrix
from owl_bt.tamp.grounding import ground
from sim import catalog
from tests.support.worlds import task_state


def _surface(spec, pose: Pose) -> np.ndarray:
    """World points (N×3, m) densely on the parts of `spec` at `pose` (its box centre): box corners,
    64 points round each end of a cylinder."""
    lo, hi = spec.bounds()
    centre = (np.asarray(lo) + np.asarray(hi)) / 2
    pts = []
    for part in spec.parts:
        if part.kind == "cylinder":
            r, h = part.dims
            local = [
                (r * math.cos(a), r * math.sin(a), z)
                for a in np.linspace(0, 2 * math.pi, 64)
                for z in (-h / 2, h / 2)
            ]
        else:
            local = list(itertools.product(*[(-d / 2, d / 2) for d in part.dims]))
        rot = np.asarray(rotation_matrix(*part.rpy))
        pts += [np.asarray(part.offset) + rot @ np.asarray(v) - centre for v in local]
    return np.asarray(pts) @ np.asarray(rotation_matrix(*pose.euler)).T + np.asarray(pose.position)


@pytest.mark.parametrize(
    ("kind", "rpy", "slack"),
    [
        ("plate", (0.0, 0.0, 0.785), 0.001),
        ("plate", (0.0, 0.0, 0.3), 0.001),
        ("tomato_soup_can", (math.pi / 2, 0.0, 0.4), 0.003),
        ("bowl", (0.3, 0.2, 1.0), 0.02),
    ],
)
def test_a_round_things_box_bounds_the_thing_not_its_turned_box(kind, rpy, slack):
    spec, pose = catalog.make(kind), Pose(0.5, 0.1, 0.3, *rpy)
    pts = _surface(spec, pose)
    lo, hi = spec.to_state(pose).aabb()
    # it bounds it (within 2 mm: the walls are polygons of 16 boxes, whose corners stand out of the circle)
    assert all(
        lo[i] <= pts[:, i].min() + 2e-3 and hi[i] >= pts[:, i].max() - 2e-3 for i in range(3)
    )
    excess = max(max(pts[:, i].min() - lo[i], hi[i] - pts[:, i].max()) for i in range(3))
    assert excess <= slack, (
        excess
    )  # a turned plate's box stood 3.2 cm out (a tipped flared bowl's cylinder: 2 cm)


def test_next_to_a_round_plate_is_measured_from_its_rim(schemas):
    state = task_state("citrus", 0)
    plate, apple = state.get("plate"), state.get("apple")
    turned = state.with_pose("plate", plate.pose.__class__(*plate.pose.position, 0.0, 0.0, 0.785))
    assert np.allclose(turned.get("plate").aabb(), plate.aabb(), atol=1e-4)
    rim = math.dist(apple.pose.position[:2], plate.pose.position[:2]) - plate.size[0] / 2
    assert rim > 0.15  # (the scene: the apple is well away from the plate)
    g = ground(turned, schemas)
    gen = generate(
        make_vlm("offline"),
        turned,
        "put the apple next to the plate",
        schemas,
        g.ops,
        literals=g.initial,
    )
    assert [str(a.op) for a in gen.sketch.actions][:1] == [
        "pick(apple)"
    ]  # to be moved: not "already holds"
