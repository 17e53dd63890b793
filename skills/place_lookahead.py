"""The place skill's look-ahead from the pick before it (`grasp_fits`): can the object, held as the
pick just gripped it, be set down the way the place's checkers want? Mixed into the place skills
(skills/place.py), whose `sample`, `_resting_pose`, `_fits_opening` and `faces` it uses.

Frames: world (m, rad); grasps as the planning model keeps them (object pose in the TCP frame).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from owl_bt.state import Pose
from owl_bt.tamp.guidance import guide
from owl_bt.tamp.judge import judge
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import PlaceHint, StepContext, context
from skills.motions import reach

CLEAN_TRIES = (
    12  # ways the table alone lets the hand reach, tried for one clear of everything as the hint
)
YAW_TURNS = 24  # yaws a face is turned through for checkers that ask for a heading (15° apart)


class PlaceLookAhead:
    """`grasp_fits` for a place skill (refinement hook, see owl_bt/tamp/grasp_lookahead.py)."""

    def grasp_fits(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        checks=(),
        region=None,
        step: StepContext | None = None,
    ) -> str | None:
        """Refinement hook, asked of the pick just before this place of the same object (args: the
        place's arguments, checks: its checkers): None when, from the grasp just made, some
        orientation the checkers accept (resting at the object's present spot — over the middle of a
        container's opening for place_inside — or three spots the sampler draws, any of 8 yaws) can
        be reached with the hand not pointing up and the arm clear of the table (and of the container
        for place_inside); else why not. No
        opinion (None) without checkers or when no orientation passes them at that first spot (they are
        about where, not how).

        `region` ((lower xyz), (upper xyz), world frame, m): asked of a pick before a pour and then this
        place (the refiner's hint of where the checkers want o): the orientations are judged at three
        spots drawn in it instead of o's present spot (where "near the mustard bottle" fails), and only
        its resting faces (the pour leaves o turned in the hand: "as it hangs" means nothing yet).

        `step`: the refinement's context; its `place_hint` is cleared, and set to the way down
        found (one clear of everything where there is one) for the place's sampler."""
        o, s = args
        ctx = context(step)
        state = model.state()
        ctx.place_hint = None
        if not checks or model.held != o or state.get(o).shape == "sphere":
            return None
        x, y = state.get(o).pose.x, state.get(o).pose.y
        draws = np.random.default_rng(len(model.objects))
        if region is not None:
            x, y = (float(draws.uniform(region[0][i], region[1][i])) for i in range(2))
        cavity = model.cavity(s) if self.inside else None
        if (
            cavity is not None
        ):  # into an opening: judged over its middle (at o's present spot, on the table,
            # no face is inside it, and the look-ahead would never help a fork into a mug)
            x, y = cavity[0][0], cavity[0][1]
        # roll and pitch of a resting pose do not change with its yaw: judge each face once, at yaw 0
        options = ((None,) if region is None else ()) + self.resting_faces(state.get(o))
        resting = [
            state.with_pose(
                o, self._resting_pose(state, o, s, {"face": f, "dyaw": 0.0, "x": x, "y": y})
            )
            for f in options
        ]
        faces = [f for f, ok in zip(options, judge(checks, resting), strict=True) if ok]
        if cavity is not None:  # into an opening: only the orientations that pass through it
            faces = [
                f
                for f in faces
                if self._fits_opening(state.get(o), {"face": f, "dyaw": 0.0}, cavity)
            ] or faces
        turns = None  # face → the yaws the checkers accept (None: any yaw)
        if not faces and cavity is None:
            found = self._turns(state, o, s, options, checks, region)
            if found is None:
                return None
            (x, y), turns, region = found
            faces = list(turns)
        if not faces:
            return None
        # at its present spot, then at three the sampler draws (a level hand low beside a mug stood up
        # may meet the table at one spot and clear it at another, where the arm reaches differently)
        if region is None:
            spots = [
                (x, y),
                *(
                    (d["x"], d["y"])
                    for d in (self.sample(model, args, draws, step=ctx) for _ in range(3))
                ),
            ]
        else:
            spots = [
                (x, y),
                *(
                    (
                        float(draws.uniform(region[0][0], region[1][0])),
                        float(draws.uniform(region[0][1], region[1][1])),
                    )
                    for _ in range(2)
                ),
            ]
        wanted = [
            {"face": f, "dyaw": float(d), "x": sx, "y": sy}
            for sx, sy in spots
            for f in faces
            for d in (
                np.linspace(-math.pi, math.pi, 8, endpoint=False) if turns is None else turns[f]
            )
        ]
        q0 = model.robot.arm_q()
        # judged against the table alone, and a container it goes into (standing the fork in the mug by its
        # gripped end, the hand would go in too, and a fork let go from above the rim bounces out)
        movable = tuple(
            n
            for n, obj in model.objects.items()
            if not obj.fixed and not (cavity is not None and n == s)
        )
        inside = (
            tuple(model.contents(s)) if cavity is not None else ()
        )  # (a hinted draw goes beside them)
        fits = clean = None
        unclean = 0
        try:
            for params in wanted:
                rest = self._resting_pose(state, o, s, params)
                target = model.tcp_for_object(
                    Pose(rest.x, rest.y, rest.z + 0.01, *rest.euler), model.grasp
                )
                m = p.getMatrixFromQuaternion(target[1])
                if (
                    m[8] > 0.3 or target[0][2] < 0.02
                ):  # the fingers would point up, or the hand sit in the table
                    continue
                q = reach(model, target, seed=q0)
                # the wrist of a hand held level low beside a mug stood up meets the table
                if q is None or model.in_collision(q, ignore=movable) is not None:
                    continue
                fits = fits or params
                # the hint for the place's sampler (REACHABLE_SHARE): one clear of everything, of CLEAN_TRIES
                # that fit (draws around a hint whose hand meets another object are spent in vain)
                if model.in_collision(q, ignore=inside) is None:
                    clean = params
                    break
                unclean += 1
                if unclean >= CLEAN_TRIES:
                    break
        finally:
            model.set_arm(q0)
        if fits is not None:
            ctx.place_hint = PlaceHint(o, model.grasp, clean or fits)
            return None
        return f"from this grasp {o} cannot be set down on {s} the way the next step needs"

    def _turns(self, state, o: str, s: str, options, checks, region):
        """Orientation guidance for checkers that ask for a heading ("tips forward", "parallel to
        the board"), which no face meets at yaw 0 at o's present spot: at a spot in the region the
        checkers want o in (`region`, else the one they test o's centre against), each face turned
        in YAW_TURNS steps. ((x, y) of that spot, face → the yaws the checkers accept there, the
        region) — None when no face passes at any yaw, or every passing face at every yaw (the
        checkers are not about the heading)."""
        if region is None:
            region = guide(state, o, checks)
        if region is None:
            return None
        x = (region[0][0] + region[1][0]) / 2
        y = (region[0][1] + region[1][1]) / 2
        yaws = np.linspace(-math.pi, math.pi, YAW_TURNS, endpoint=False)
        pairs = [(f, float(d)) for f in options for d in yaws]
        resting = [
            state.with_pose(
                o, self._resting_pose(state, o, s, {"face": f, "dyaw": d, "x": x, "y": y})
            )
            for f, d in pairs
        ]
        turns: dict = {}
        for (f, d), ok in zip(pairs, judge(checks, resting), strict=True):
            if ok:
                turns.setdefault(f, []).append(d)
        if not turns or all(len(v) == len(yaws) for v in turns.values()):
            return None  # not about the heading: the look-ahead stays out of it, as before
        return (x, y), turns, region
