"""The place skills' container openings (mixed into skills/place.py's place skills): a spot over a
container's opening for the object turned as drawn, whether its footprint passes through the opening,
and a spot drawn over the wall pulled in over the opening.

Frames: world (m, rad); `cavity` as PlanningModel.cavity gives it: (floor point, radius, depth).
"""

from __future__ import annotations

import math

import numpy as np

from owl_bt.state import ObjectState, Pose
from owl_bt.tamp.planning_model import PlanningModel
from sim.bullet import from_bullet
from skills.motions import reach
from skills.place_geometry import footprint_axis, reach_in_opening, target_orientation

WALL_SIDE = 0.4  # inside a container, spots are drawn over the outer part of the disc (r² ≥ this share of the reach²)
RIM_LIFT_STEP = (
    0.01  # m: a hand that meets the container's rim is raised by this much at a time ...
)
RIM_LIFT_MAX = 0.12  # ... up to this far, to let go from above the rim (a golf ball into a mug: the fingers round it do not fit)


class PlaceOpening:
    """Opening helpers of a place skill (`inside` says whether it places into a container)."""

    inside = False

    @staticmethod
    def _spot_in_opening(
        model: PlanningModel, state, o: str, s: str, params: dict, cavity, rng: np.random.Generator
    ) -> dict:
        """A spot (x, y, world frame, m) and yaw over container s's opening for o, turned as `params`
        say: its footprint's long side along the wall, towards the wall (as things put in a cup
        lean: the middle stays free for the next), on the side away from what is already inside (a
        knife opposite the fork). `state`: the model's state now. Returns params with x, y and dyaw set."""
        floor, radius, _ = cavity
        obj = state.get(o)
        axis = footprint_axis(obj, {**params, "dyaw": 0.0})
        away = PlaceOpening._away(model, state, o, s, floor)
        a = (
            rng.uniform(-math.pi, math.pi)
            if away is None
            else away + rng.uniform(-math.pi / 4, math.pi / 4)
        )
        turn = a + math.pi / 2 - axis + (math.pi if rng.random() < 0.5 else 0.0)
        params = {**params, "dyaw": math.atan2(math.sin(turn), math.cos(turn))}
        r = reach_in_opening(obj, params, radius, a) * math.sqrt(rng.uniform(WALL_SIDE, 1.0))
        params["x"], params["y"] = floor[0] + r * math.cos(a), floor[1] + r * math.sin(a)
        return params

    @staticmethod
    def _hinted_in_opening(
        model: PlanningModel, state, o: str, s: str, params: dict, cavity, rng: np.random.Generator
    ) -> dict:
        """A spot (x, y, world frame, m) over container s's opening for o turned as a look-ahead hint
        says (its face and dyaw kept): of the two sides where o's footprint's long side runs along the
        wall, the one away from what is already inside (either, at random, in an empty container).
        The hint's own spot is the opening's middle, where an earlier piece of cutlery stands when
        the next one comes."""
        floor, radius, _ = cavity
        obj = state.get(o)
        tangent = footprint_axis(obj, {**params, "dyaw": 0.0}) + params["dyaw"]
        sides = (tangent - math.pi / 2, tangent + math.pi / 2)
        away = PlaceOpening._away(model, state, o, s, floor)
        a = (
            max(sides, key=lambda v: math.cos(v - away))
            if away is not None
            else sides[int(rng.integers(2))]
        )
        r = reach_in_opening(obj, params, radius, a) * math.sqrt(rng.uniform(WALL_SIDE, 1.0))
        return {**params, "x": floor[0] + r * math.cos(a), "y": floor[1] + r * math.sin(a)}

    @staticmethod
    def _away(model: PlanningModel, state, o: str, s: str, floor) -> float | None:
        """Direction (rad, world frame) from container s's axis (through `floor`) away from where what is
        already inside it stands (averaged); None when nothing is, or it stands on the axis."""
        inside = [n for n in model.objects if n not in (o, s) and model.in_cavity(n, s)]
        if not inside:
            return None
        dx = (
            sum(model.lowest_point(n)[0] + state.get(n).pose.x for n in inside) / (2 * len(inside))
            - floor[0]
        )
        dy = (
            sum(model.lowest_point(n)[1] + state.get(n).pose.y for n in inside) / (2 * len(inside))
            - floor[1]
        )
        return math.atan2(-dy, -dx) if math.hypot(dx, dy) > 0.003 else None

    @staticmethod
    def _fits_opening(obj: ObjectState, params: dict, cavity) -> bool:
        """Does obj, turned as `params` say (face, dyaw), have a horizontal footprint (its box, world
        axes) that passes through the container opening `cavity` (PlanningModel.cavity) with 5 mm
        to spare on each side? A ball's footprint is its round one (by its box's diagonal, a 4.2 cm golf
        ball would never fit a mug's 6.4 cm opening)."""
        if obj.shape == "sphere":
            return max(obj.size) <= 2 * cavity[1] - 0.01
        olo, ohi = obj.moved(from_bullet(obj.pose.position, target_orientation(obj, params))).aabb()
        return math.hypot(ohi[0] - olo[0], ohi[1] - olo[1]) <= 2 * cavity[1] - 0.01

    def _into_opening(self, model: PlanningModel, state, o: str, s: str, params: dict) -> dict:
        """Into a container with an opening: a spot the guided sampler drew inside the container's
        box but off its opening (by the handle, over the wall) is pulled in towards the axis until
        o's footprint clears the wall; else params unchanged (a fork released over the wall
        leaned on the mug's outside)."""
        cavity = model.cavity(s) if self.inside else None
        if cavity is None or "x" not in params:
            return params
        floor, radius, _ = cavity
        dx, dy = params["x"] - floor[0], params["y"] - floor[1]
        r = math.hypot(dx, dy)
        reach_r = reach_in_opening(state.get(o), params, radius, math.atan2(dy, dx))
        if r <= reach_r:
            return params
        k = reach_r / r
        return {**params, "x": floor[0] + dx * k, "y": floor[1] + dy * k}

    @staticmethod
    def _over_rim(
        model: PlanningModel, o: str, s: str, goal: Pose, q0
    ) -> tuple[Pose, tuple, float] | None:
        """The hand at `goal` (o's release pose, world frame) meets container s: the release pose raised by
        RIM_LIFT_STEP at a time until the arm and o touch nothing (within RIM_LIFT_MAX), as (goal, q, lift
        in metres); None when none is. A ball held round its middle: the fingers are wider than the mug's
        opening, so it is let go from above the rim and falls in (judged after physics, as every release)."""
        for k in range(1, int(round(RIM_LIFT_MAX / RIM_LIFT_STEP)) + 1):
            lift = k * RIM_LIFT_STEP
            up = Pose(goal.x, goal.y, goal.z + lift, *goal.euler)
            q = reach(model, model.tcp_for_object(up, model.grasp), seed=q0)
            if q is None:
                return None
            hit = model.in_collision(q)
            if hit is None:
                return up, q, lift
            if hit.split("↔")[-1] != s:
                return None
        return None
