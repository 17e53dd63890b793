"""place_ontop(o, s) and place_inside(o, c): put the held object down.

Sampler (deliberately broad): the object's centre anywhere over the target's box (1.5 cm in
from its edge; inside a container, clear of its walls), released 3–12 mm above resting height (up
to 5 cm into a container, dropped in over walls the fingers cannot reach past), and
an orientation that is either the one it hangs in now turned about z, or one of its resting faces
(upright, upside down, on a side) with any yaw — which is how a mug lying on its side gets stood
up, or a fork gets stood in a mug (reorientation). Controller: free motion to 10 cm above, straight
descent, open, straight retreat; then physics settles the object in the planning model and the
engineered constraints are checked: it comes to rest, on (or inside) the target, and on the table
1 cm clear of other movable things. Generated checkers are evaluated by the refiner on the
resulting state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pybullet as p

from owl_bt.state import ObjectState, Pose, rotation_matrix
from owl_bt.tamp.hand_sweep import hand_sweep
from owl_bt.tamp.judge import judge
from owl_bt.tamp.operators import OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import Checker, PlaceHint, StepContext, context
from sim.bullet import from_bullet
from sim.robot import MAX_OPENING, WORKSPACE
from skills.base import Grip, Move, Outcome, Skill
from skills.motions import (
    APPROACH,
    RELEASE_PRESS,
    backed,
    cartesian,
    cuts_into,
    pointing_down,
    raised,
    reach,
    straight,
    transit,
)
from skills.place_geometry import FACES, gap_to_box, stands_on_end, target_orientation
from skills.place_lookahead import PlaceLookAhead
from skills.place_opening import PlaceOpening

REST_SPEED = 0.02  # m/s: slower than this after settling counts as at rest
CAVITY_SHARE = (
    0.8  # share of place_inside samples drawn over the container's opening (the rest: its box)
)
ROOM_TRIES = 3  # spots drawn on a surface; the one farthest from other objects is kept ...
ROOM_SHARE = (
    0.5  # ... for this share of the samples (the rest: one spot, so that "near X" stays likely)
)
FIT_MARGIN = 0.004  # m an object may seem wider than a container's opening (perceived sizes) and still be tried
STAND_DROP = 0.025  # m: a fork stood on end in the mug let go 3.7-5 cm up bounces out over the rim, or tips the mug
RELEASE_ROOM = (
    0.02  # m the fingers open wider than the grip to let go in a container (1 cm a side) …
)
MIN_RELEASE = (
    0.004  # m … and at least this much, or the release is refused (2 mm a side lets a grip go)
)
TABLE_GAP = 0.01  # m: set down on the table, an object comes to rest at least this far from other movable things
ELONGATED = 1.5  # a longest side this many times the next makes a thing long (its yaw matters)
YAW_STEPS = (
    12  # yaws (evenly spaced) orientation guidance tries when the drawn one fails the checkers
)
KEEP_SHARE = 0.5  # share of samples that keep the hanging orientation (the rest try resting faces)
REACHABLE_SHARE = (
    0.5  # share of samples drawn around what the look-ahead found reachable from this grasp ...
)
REACHABLE_SPREAD = (
    0.03,
    0.3,
)  # ... within these metres of its spot and radians of its yaw, until ...
HINT_MISSES = 20  # ... this many of those draws were refused (a hint whose retreat is blocked)


class _PlaceSkill(PlaceOpening, PlaceLookAhead, Skill):
    inside = False
    faces = FACES  # (the look-ahead's)

    def resting_faces(self, obj: ObjectState) -> tuple[int, ...]:
        """The faces (indices into FACES) `obj` may be set down on: all six into a container (cutlery
        stands in a holder), none that stands it on end on a surface (`stands_on_end`: a knife left on
        its handle beside a plate is no sane way to put it down, however still it stands)."""
        return tuple(f for f in range(len(FACES)) if self.inside or not stands_on_end(obj, f))

    def sample(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        rng: np.random.Generator,
        step: StepContext | None = None,
    ) -> dict:
        o, s = args
        state = model.state()
        obj = state.get(o)
        allowed = self.resting_faces(obj)
        face = (
            None
            if obj.shape == "sphere" or rng.random() < KEEP_SHARE
            else allowed[int(rng.integers(len(allowed)))]
        )
        drop = rng.uniform(0.003, 0.05 if self.inside else 0.012)
        params = {"face": face, "dyaw": rng.uniform(-math.pi, math.pi), "clearance": drop}
        near = self._reachable(model, o, rng, context(step).place_hint)
        cavity = model.cavity(s) if self.inside else None
        if near is not None:
            if cavity is not None:  # (the hint's own spot is the opening's middle)
                return self._hinted_in_opening(model, state, o, s, {**params, **near}, cavity, rng)
            return {**params, **near}
        lo, hi = state.get(s).aabb()
        if cavity is not None and not self._fits_opening(obj, params, cavity):
            # into an opening: only orientations whose footprint passes through it (a knife on end)
            fitting = [
                f
                for f in (None, *range(len(FACES)))
                if self._fits_opening(obj, {**params, "face": f}, cavity)
            ]
            if fitting:
                params["face"] = fitting[int(rng.integers(len(fitting)))]
        if (
            cavity is not None and rng.random() < CAVITY_SHARE
        ):  # over the container's opening, off its wall
            return self._spot_in_opening(model, state, o, s, params, cavity, rng)
        if self.inside:  # keep the object's footprint (in its new orientation) off the walls
            olo, ohi = obj.moved(
                from_bullet(obj.pose.position, target_orientation(obj, params))
            ).aabb()
            mx, my = (ohi[0] - olo[0]) / 2 + 0.005, (ohi[1] - olo[1]) / 2 + 0.005
        elif (
            state.get(s).shape == "region"
        ):  # a flat mat or region: all of the footprint on it, with room to
            # roll half a centimetre (at most a quarter of the region in): a strawberry let go with its
            # centre 1.6 cm in can roll to 5 mm from the edge, half off the region
            half = max(obj.size[0], obj.size[1]) / 2 + 0.005
            mx, my = min(half, (hi[0] - lo[0]) / 4), min(half, (hi[1] - lo[1]) / 4)
        else:  # keep the centre 1.5 cm (at most a quarter of the surface) in from the edge
            mx = my = min(0.015, (hi[0] - lo[0]) / 4, (hi[1] - lo[1]) / 4)
        lo = (max(lo[0], WORKSPACE[0][0] - mx), max(lo[1], WORKSPACE[0][1] - my))
        hi = (min(hi[0], WORKSPACE[1][0] + mx), min(hi[1], WORKSPACE[1][1] + my))
        cx, cy = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
        # Often, of ROOM_TRIES spots, the one with the most room around it: a mug set down hard by the
        # mustard bottle left no way for the hand to put the fork into it later.
        others = [
            state.get(n).aabb() for n in model.objects if n not in (o, s) and not state.get(n).fixed
        ]
        best = -math.inf
        for _ in range(ROOM_TRIES if rng.random() < ROOM_SHARE else 1):
            x = rng.uniform(min(cx, lo[0] + mx), max(cx, hi[0] - mx))
            y = rng.uniform(min(cy, lo[1] + my), max(cy, hi[1] - my))
            room = min((gap_to_box(x, y, b) for b in others), default=math.inf)
            if room > best:
                best, params["x"], params["y"] = room, x, y
        return params

    @staticmethod
    def _reachable(
        model: PlanningModel, o: str, rng: np.random.Generator, hint: PlaceHint | None
    ) -> dict | None:
        """For REACHABLE_SHARE of the samples, when the pick just before found from this very grasp an
        orientation and spot the arm reaches (`grasp_fits`, `hint`): that face, its yaw and spot
        jittered by REACHABLE_SPREAD (a mug held by its side may stand upright only in a narrow band
        of yaws, which broad draws seldom hit), until HINT_MISSES of them were refused; else None."""
        if (
            hint is None
            or hint.obj != o
            or hint.grasp != model.grasp
            or model.held != o
            or rng.random() >= REACHABLE_SHARE
            or hint.misses >= HINT_MISSES
        ):
            return None
        d, a = REACHABLE_SPREAD
        h = hint.params
        return {
            "face": h["face"],
            "dyaw": h["dyaw"] + rng.uniform(-a, a),
            "x": h["x"] + rng.uniform(-d, d),
            "y": h["y"] + rng.uniform(-d, d),
            "reachable": True,
        }

    def orient(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        rng: np.random.Generator,
        step: StepContext | None = None,
    ) -> dict:
        """Orientation guidance (ours, beyond the reference), applied by the refiner once the spot is
        drawn: of the hanging orientation and the six resting faces, in random order, the first
        whose resting pose at that spot passes the step's checkers (a checker asking for an upright
        mug rules out the lying faces without a sample spent on each). Unchanged when none passes,
        when the step has no checkers (`step.checks`), or for a ball."""
        o, s = args
        checks = context(step).checks
        state = model.state()
        params = self._into_opening(model, state, o, s, params)
        if not checks or state.get(o).shape == "sphere":
            return params
        options = [None, *self.resting_faces(state.get(o))]
        if params.get("reachable"):  # (the face the arm reaches from this grasp first)
            options = [params["face"]] + [f for f in options if f != params["face"]]
        cavity = model.cavity(s) if self.inside else None
        if cavity is not None:  # into an opening: only what passes through it is worth judging
            options = [
                f
                for f in options
                if self._fits_opening(state.get(o), {**params, "face": f}, cavity)
            ] or options
        order = rng.permutation(len(options))
        if params.get("reachable"):
            order = [0] + [k for k in order if k != 0]
        faces = [options[int(k)] for k in order]
        resting = [
            state.with_pose(o, self._resting_pose(state, o, s, {**params, "face": face}))
            for face in faces
        ]  # (a new face: its own footprint), all judged in one batch
        passing = judge(checks, resting)
        for face, ok in zip(faces, passing, strict=True):
            if ok:
                return self._into_opening(model, state, o, s, {**params, "face": face})
        # none at the drawn yaw: for a long thing set on a surface, the same faces turned in YAW_STEPS
        # steps (cutlery "straight, tips forward" holds in a band of about 1/12 of the yaws, which
        # random draws seldom hit)
        size = sorted(state.get(o).size, reverse=True)
        if self.inside or size[0] < ELONGATED * size[1]:
            return params
        for step in range(1, YAW_STEPS):
            dyaw = params["dyaw"] + 2 * math.pi * step / YAW_STEPS
            for k in order:
                turned = {**params, "face": options[int(k)], "dyaw": dyaw}
                resting = state.with_pose(o, self._resting_pose(state, o, s, turned))
                if all(check(resting) for _, check in checks):
                    return self._into_opening(model, state, o, s, turned)
        return params

    def _resting_pose(self, state, o: str, s: str, params: dict) -> Pose:
        """Where o would rest (world frame) when released per `params` and nothing moved on landing."""
        obj = state.get(o)
        turned = obj.moved(from_bullet(obj.pose.position, target_orientation(obj, params)))
        lo, _ = turned.aabb()
        s_lo, s_hi = state.get(s).aabb()
        floor = s_lo[2] + 0.006 if self.inside else s_hi[2]
        return Pose(params["x"], params["y"], floor + turned.pose.z - lo[2], *turned.pose.euler)

    def simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        step: StepContext | None = None,
    ) -> Outcome:
        ctx = context(step)
        out = self._simulate(model, args, params, ctx.checks)
        if params.get("reachable") and not out.ok and ctx.place_hint is not None:
            ctx.place_hint.misses += 1
        return out

    def _simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        checks: Sequence[tuple[str, Checker]],
    ) -> Outcome:
        """The controller; `checks`: the step's checkers (see `StepContext.checks`)."""
        o, s = args
        if model.held != o:
            return Outcome.fail(f"{o} is not held", o)
        rest = self._resting_pose(model.state(), o, s, params)
        drop = self._drop(model.state(), o, params)
        goal = Pose(rest.x, rest.y, rest.z + drop, *rest.euler)
        target = model.tcp_for_object(goal, model.grasp)
        q0 = model.robot.arm_q()
        q_place = reach(model, target, seed=q0)
        if q_place is None:
            return Outcome.fail(f"no inverse-kinematics solution to put {o} there", s)
        hit = model.in_collision(q_place)
        cavity = model.cavity(s) if self.inside else None
        if (
            hit
            and cavity is not None
            and hit.split("↔")[-1] == s
            and self._fits_opening(model.state().get(o), params, cavity)
            and not _on_end(model.state(), o, params)
        ):  # (a fork on end let go from high bounces out: STAND_DROP)
            above = self._over_rim(
                model, o, s, goal, q0
            )  # the hand does not fit in: let go from above the rim
            if above is not None:
                goal, q_place, lift = above
                target, drop, hit = model.tcp_for_object(goal, model.grasp), drop + lift, None
        if hit:
            return Outcome.fail(f"placing {o} there collides with {hit}", hit.split("↔")[-1])
        sweep = hand_sweep(model.robot.spec.name, model.objects)
        width, open_to = None, 0.0  # fully open
        grip = sweep.width(model.grip_angle)
        if self.inside and grip + RELEASE_ROOM < MAX_OPENING - 0.005:
            # in a container, open only the grip's width + RELEASE_ROOM, and only as far as its walls leave room
            width = sweep.room(
                q_place,
                model.grip_angle,
                model.robot.angle_for_opening(grip + RELEASE_ROOM),
                model.state().get(s),
            )
            if width < grip + MIN_RELEASE:
                return Outcome.fail(
                    f"letting go of {o} there, the fingers cannot open {MIN_RELEASE * 1000:.0f} mm "
                    f"without pressing into {s}'s walls",
                    s,
                )
            open_to = model.robot.angle_for_opening(width)
        jam = sweep.cuts(q_place, model.grip_angle, open_to)
        if jam:
            return Outcome.fail(f"letting go of {o} there, a finger would open into the {jam}", s)
        # A first, cheap look: the step's checkers on the object come to rest right under the release
        # pose (the drop itself is judged after physics).
        resting = model.state().with_pose(o, Pose(goal.x, goal.y, goal.z - drop, *goal.euler))
        failed = [name for name, check in checks if not check(resting)]
        if failed:
            return Outcome.fail(
                f"constraint {', '.join(failed)} not satisfied where {o} would rest", s
            )
        q_pre = reach(model, raised(target, APPROACH), seed=q_place)
        if q_pre is None:
            return Outcome.fail(f"no inverse-kinematics solution above {s}", s)
        # Let go and back out the way the fingers point from: for a hand held sideways (a mug
        # stood up from lying) straight up would drag the object along between the fingers.
        q_back = (
            q_pre
            if pointing_down(target)
            else reach(model, backed(target, APPROACH), seed=q_place) or q_pre
        )
        # Cheap before dear: the straight ways in and out first (a fork set in the mug whose hand cannot
        # back out is refused before its release is simulated and a motion there planned), then release
        # and settle, judge the result (engineered constraints and the step's generated checkers), and
        # plan the free motion only for a result worth having.
        descent = straight(model, q_pre, q_place)
        retreat = straight(model, q_place, q_back, ignore=(o,)) if descent is not None else None
        if descent is not None and retreat is None and not pointing_down(target):
            # a joint-space segment can swing the level wrist, held low beside the stood-up mug, through
            # the table; back out along a straight line instead. (Judged, as the joint-space one, with the
            # object still in the hand: judged let go, a retreat may pass where the object still is on
            # the arm and lift it off the table.)
            retreat = cartesian(model, q_place, target, backed(target, APPROACH), ignore=(o,))
        if descent is None:
            return Outcome.fail(f"the descent onto {s} is blocked", s)
        if retreat is None:
            return Outcome.fail(f"cannot retreat from {o}", o)
        before = model.snapshot()
        verdict = self._release_and_judge(model, o, s, goal, q_place, q_back, checks, open_to)
        after = model.snapshot()
        model.restore(before)
        model.drop_snapshot(before)
        if verdict is not None:
            model.drop_snapshot(after)
            return Outcome.fail(*verdict)
        path = transit(model, q0, q_pre)
        # the released object stays put (at its release pose) as the hand leaves
        model.set_arm(q_place)
        model.detach()
        if width is not None:
            model.robot.reset_fingers(open_to)
        # Opened where it let go, a finger may press a few millimetres on something that stands
        # (a stood-up mug's wall or handle: it is nudged, no more), not on something that rolls (a
        # mug on its side rolled into the next approach); then the hand must come clear, or it drags it.
        press = 0.002 if _rolls(model.state().get(o), rest) else RELEASE_PRESS
        if cuts_into(model, o, retreat[:1], depth=press) or cuts_into(model, o, retreat[1:]):
            retreat = None
        model.restore(after)
        model.drop_snapshot(after)
        if retreat is not None:
            model.set_arm(
                retreat[-1]
            )  # (a straight-line retreat ends at q_back's pose by other joints)
        if width is not None:  # opened fully once clear, as the commands end
            model.robot.reset_fingers(0.0)
        if retreat is None:
            return Outcome.fail(f"cannot retreat from {o}", o)
        if path is None:
            return Outcome.fail(f"no collision-free motion to above {s} holding {o}", s)
        final = model.state().get(o)
        opened = (
            [Grip("open")] if width is not None else []
        )  # the rest of the way, clear of the container
        return Outcome(
            ok=True,
            commands=[
                Move(path),
                Move(descent, guarded=True),
                Grip("open", width=width),
                Move(retreat),
                *opened,
            ],
            expected={o: final.pose},
        )

    def _drop(self, state, o: str, params: dict) -> float:
        """How far above its resting pose (metres) o is let go: the sampled clearance, but at most
        STAND_DROP for a thing stood on its end in a container (taller than twice its footprint)."""
        if not self.inside:
            return params["clearance"]
        return (
            min(params["clearance"], STAND_DROP)
            if _on_end(state, o, params)
            else params["clearance"]
        )

    def _release_and_judge(
        self,
        model: PlanningModel,
        o: str,
        s: str,
        goal: Pose,
        q_place,
        q_pre,
        checks: Sequence[tuple[str, Checker]],
        open_to: float = 0.0,
    ) -> tuple | None:
        """Open at q_place (the fingers to driver angle `open_to`, radians; 0: fully), retreat to q_pre, let
        physics settle; None when the result meets the engineered constraints and the step's generated
        checkers (`checks`), else (reason, blamed object)."""
        model.release(q_place, q_pre, open_to=open_to)
        model.settle()
        final = model.state().get(o)
        if model.object_velocity(o) > REST_SPEED:
            return (f"{o} does not come to rest on {s}", s)
        if not self.inside and math.dist(final.pose.position[:2], goal.position[:2]) > 0.03:
            return (f"{o} slides or rolls off where it was put on {s}", s)
        verdict = self.engineered(model, o, s)
        if verdict:
            return (verdict, s)
        crowded = (
            None if self.inside or model.state().get(s).category != "table" else _crowded(model, o)
        )
        if crowded:
            return (
                f"{o} would come to rest less than {TABLE_GAP * 100:.0f} cm from {crowded}",
                crowded,
            )
        state = model.state()
        failed = [name for name, check in checks if not check(state)]
        if failed:
            return (f"constraint {', '.join(failed)} not satisfied", s)
        return None

    def engineered(self, model: PlanningModel, o: str, s: str) -> str | None:
        """The operator's own effect, checked after settling; None when it holds, else the reason."""
        state = model.state()
        if not model.touching(o, s) and not (
            state.get(s).category == "table" and _on_a_marker(model, o)
        ):
            return f"{o} does not end up resting on {s}"
        if not state.get(s).over_footprint(*state.get(o).pose.position[:2]):
            return f"{o} ends up on the edge of {s}, its centre not over it"
        return None


def _on_a_marker(model: PlanningModel, o: str) -> bool:
    """Does o rest on a flat marker (a region, mat or line lying on the table)? On the table, then: "the
    middle of the table" may be where a light-grey region lies."""
    state = model.state()
    return any(
        t.shape == "region" and t.fixed and model.touching(o, n) for n, t in state.objects.items()
    )


class PlaceOntopSkill(_PlaceSkill):
    schema = OperatorSchema(
        name="place_ontop",
        params=(("o", "Movable"), ("s", "Surface")),
        pre=(("AtGrasp", ("o",)),),
        add=(("On", ("o", "s")), ("HandEmpty", ())),
        delete=(("AtGrasp", ("o",)),),
        description=(
            "place_ontop(o, s): places the held object o stably atop the surface s (a table, a plate, a "
            "flat region). Say in the description where on s and how the object should end up."
        ),
        open_world=True,
    )


class PlaceInsideSkill(_PlaceSkill):
    inside = True
    schema = OperatorSchema(
        name="place_inside",
        params=(("o", "Movable"), ("c", "Container")),
        pre=(("AtGrasp", ("o",)),),
        add=(("Inside", ("o", "c")), ("HandEmpty", ())),
        delete=(("AtGrasp", ("o",)),),
        description=(
            "place_inside(o, c): lowers the held object o into the container c (a bowl, a mug, a bin) "
            "and releases it. Say in the description how the object should sit inside c."
        ),
        open_world=True,
    )

    def never(self, model: PlanningModel, args: tuple[str, ...]) -> str | None:
        """Refinement hook, asked before any sample is drawn: why no draw can put o into c (o's two
        smaller extents, its slimmest cross-section, do not pass c's round opening, m), else None."""
        o, c = args
        opening = model.opening(c)  # however c lies now (a mug on its side is stood up first)
        obj = model.state().get(o)
        a, b = sorted(obj.size)[:2]
        # a rectangle passes a circle only by its diagonal (a 6.5 × 3 cm sponge never enters a 6.4 cm
        # mug); a round cross-section (a ball, a can on end) by its width
        rect = obj.shape == "box" or obj.shape == "cylinder" and obj.size[2] <= min(obj.size[:2])
        need = math.hypot(a, b) if rect else b
        if opening is not None and need > 2 * opening[2] + FIT_MARGIN:  # in no orientation at all
            wide = 2 * opening[2] + FIT_MARGIN
            across = (
                f"{a * 100:.1f} cm across at its narrowest, wider than"
                if a > wide
                else f"{a * 100:.1f} × {b * 100:.1f} cm at its slimmest cross-section, "
                + (
                    f"whose {b * 100:.1f} cm side cannot pass"
                    if b > wide
                    else f"{need * 100:.1f} cm corner to corner, wider than"
                )
            )
            return f"{o} does not fit into {c}: {across} {c}'s opening, {2 * opening[2] * 100:.1f} cm across"
        return None

    def simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        step: StepContext | None = None,
    ) -> Outcome:
        why = self.never(model, args)
        if why:
            return Outcome.hopeless_fail(why)
        return super().simulate(model, args, params, step)

    def engineered(self, model: PlanningModel, o: str, s: str) -> str | None:
        inside = model.in_cavity(o, s)  # by the container's real opening, where it has one
        if inside is None:
            inside = is_inside(model.state(), o, s)
        return None if inside else f"{o} does not end up inside {s}"


def _crowded(model: PlanningModel, o: str) -> str | None:
    """The movable object (not one inside o) that o, at rest in the planning model, is within TABLE_GAP
    of, else None. The table has room, and a perception error of a few millimetres turns a near miss
    into touching, and an object set down on another's end is tipped over when that one is lifted."""
    inside = set(model.contents(o))
    for other, bid in model.bodies.items():
        if other == o or other in inside or model.objects[other].fixed:
            continue
        if p.getClosestPoints(model.bodies[o], bid, TABLE_GAP, physicsClientId=model.cid):
            return other
    return None


def _rolls(obj: ObjectState, pose: Pose) -> bool:
    """Would `obj`, resting as `pose` says (world frame), roll when nudged: a ball, or a cylinder lying
    on its side?"""
    if obj.shape == "sphere":
        return True
    return obj.shape == "cylinder" and abs(rotation_matrix(*pose.euler)[2][2]) < 0.9


def _on_end(state, o: str, params: dict) -> bool:
    """Would o, turned as `params` say, stand taller than twice its footprint (a fork on end)?"""
    obj = state.get(o)
    lo, hi = obj.moved(from_bullet(obj.pose.position, target_orientation(obj, params))).aabb()
    return hi[2] - lo[2] > 2 * max(hi[0] - lo[0], hi[1] - lo[1])


def is_inside(state, o: str, c: str) -> bool:
    """o's centre is over c's footprint and o's lowest point is below c's rim (world frame)."""
    obj, cont = state.get(o), state.get(c)
    lo, hi = cont.aabb()
    olo, _ = obj.aabb()
    x, y, _ = obj.pose.position
    return lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1] and olo[2] < hi[2] - 0.01
