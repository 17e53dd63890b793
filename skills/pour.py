"""pour(o, t): tilt the held object o above t so that what is inside o falls out into (or onto) t.

The pour pose is four numbers — the position (x, y, z) of o's centre, metres, world
frame, and the tilt of the hand, radians in [-π, π]; the open-world predicate VLMConstraint2 (the
generated checker) judges the state at the tilted pose, after the contents have fallen.

Sampler (broad): o's centre over t's box (inner three quarters), 1–2 heights of o above
t's top, any pour direction (`dyaw`) and any tilt. Ours, beyond it: the tilt keeps the fingers from
pointing up (the wrist would hang under the hand), o's centre is raised until the hand stays
HAND_CLEARANCE above the table all through the tilt (but at most MAX_RISE), over a surface the spot
is the roomiest of ROOM_TRIES, and into a container the mouth is aimed at its opening.
Controller: free motion to the upright pose, then a slow tilt about the horizontal axis across the
pour direction (24 waypoints, 2 s), then a 1 s dwell while physics empties o. The hand keeps holding
o; the next action moves on from the tilt. Engineered constraints: the hand does not sit over o's
mouth (what falls out would land in the palm); the tilt takes the mouth below the horizon; o's mouth
ends over t, 3 cm inside its rim; whatever was inside o has left it (physics); into a container, the
contents pass its rim at least RIM_MARGIN inside it, both at the full tilt and at SAG_SHARE of it (a
grasp that sags on the arm lets them go sooner). The cheap ones are judged before the physics.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pybullet as p

from owl_bt.state import WorldState
from owl_bt.tamp.operators import OperatorSchema
from owl_bt.tamp.planning_model import PlanningModel
from owl_bt.tamp.step_context import Checker, StepContext, context
from sim.bullet import from_bullet, to_bullet
from sim.robot import WORKSPACE
from skills.base import Move, Outcome, Skill
from skills.motions import reach, transit
from skills.place_geometry import gap_to_box
from skills.pour_grasp import (
    MAX_FINGERS_UP,
    MIN_MOUTH_DOWN,
    MOUTH_COVERED,
    PASS_SHARE,
    can_tip,
    finger_inside,
    hand_over_mouth,
    hand_sweep,
    mouth_passage,
    tilted,
)

TILT_WAYPOINTS = 24
TILT_SECONDS = 2.0
DWELL_SECONDS = 1.0
MOUTH_INSET = 0.03  # metres the poured object's mouth stays inside the target's rim
AIM_SHARE = 0.4  # of a container's inner radius: how far off its axis a pour into it aims the mouth
RIM_MARGIN = 0.015  # metres inside its rim (beyond their own radius) that poured contents must fall into a container
REST_SPEED = 0.01  # m/s: poured contents slower than this ...
REST_STEPS = (
    24  # ... for this many physics steps in a row (0.1 s) have come to rest: the pour's dwell ends
)
SAG_SHARE = (
    0.9  # a pour is judged also at this share of its tilt (the grasp may sag): its checkers, and
)
# a full object's contents leaving it
MAX_JOINT_JUMP = 0.6  # radians between neighbouring tilt waypoints: more means IK flipped branch
HAND_CLEARANCE = (
    0.12  # m the TCP and the hand behind it stay above the table all through a tilt (the wrist
)
# and forearm of a level hand hang lower: at 4 cm, a third of a mug's pours meet the table with them)
TURN_TRIES = 8  # tilts drawn for one sample: the first within MAX_FINGERS_UP and MAX_RISE is kept
MAX_RISE = 0.25  # m: the highest a pour holds o's centre over t's top
ROOM_TRIES = (
    3  # spots drawn for a pour onto a surface: the one farthest from other movable things is kept
)


class PourSkill(Skill):
    schema = OperatorSchema(
        name="pour",
        params=(("o", "Movable"), ("t", "Receptacle")),
        pre=(("AtGrasp", ("o",)),),
        add=(("Poured", ("o", "t")),),
        delete=(),
        description=(
            "pour(o, t): holding o, moves it above t and tilts it so that whatever is inside o falls into or "
            "onto t (a bowl, a cup, the table); o stays in the hand, tilted. Say in the description where "
            "above t to pour and how far to tilt."
        ),
        open_world=True,
    )

    def grasp_fits(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        checks=(),
        step: StepContext | None = None,
    ) -> str | None:
        """Refinement hook, asked of the pick just before a pour of the same object (args: the
        pour's arguments; `step` unused): None when the grasp leaves o's mouth free, else why not (looking ahead
        saves whole pours per grasp)."""
        o = args[0]
        inside = list(model.carried) or model.contents(o)
        if not inside:  # nothing to pour out: any grasp does
            return None
        if hand_over_mouth(model, o):
            return MOUTH_COVERED.format(o)
        if finger_inside(model, o):
            return f"a finger inside {o} would trap what is to be poured out"
        widest = max(min(model.state().get(c).size) for c in inside)
        if mouth_passage(model, o) < PASS_SHARE * widest:
            return f"the hand over the mouth of {o} would leave {', '.join(inside)} too narrow a way out"
        if not can_tip(model, o):
            return f"tipping {o} far enough to empty it would turn the fingers up at this grasp"
        return None

    def effect_seen(self, world: WorldState, args: tuple[str, ...]) -> bool:
        """The pour's lasting effect, seen in `world` once its checkers (judging the tilted moment)
        no longer can be: nothing is inside o (no movable object's centre within o's box)."""
        o = args[0]
        if o not in world.objects:
            return False
        lo, hi = world.get(o).aabb()
        return not any(
            all(lo[i] < world.get(n).pose.position[i] < hi[i] for i in range(3))
            for n in world.movable()
            if n != o
        )

    def sample(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        rng: np.random.Generator,
        step: StepContext | None = None,
    ) -> dict:
        o, t = args
        state = model.state()
        lo, hi = state.get(t).aabb()
        height = state.get(o).size[2]
        qx, qy = (hi[0] - lo[0]) / 8, (hi[1] - lo[1]) / 8
        lo = (max(lo[0] + qx, WORKSPACE[0][0]), max(lo[1] + qy, WORKSPACE[0][1]), lo[2])
        hi = (min(hi[0] - qx, WORKSPACE[1][0]), min(hi[1] - qy, WORKSPACE[1][1]), hi[2])
        # A tilt that never turns the fingers up (the wrist would then hang under the hand and meet
        # the table), the other way round if this way does, and o's centre high
        # enough that the hand, swinging round o, stays HAND_CLEARANCE above the table: of TURN_TRIES, the
        # first whose height for that is at most MAX_RISE (poured from 40 cm up, a golf ball bounces off)
        # With something in o, the turn must also end with o's mouth below the horizon (drawn so already
        # for an upright o; for one held tipped by an earlier pour, half the turns would bring its mouth
        # up again and be spent as samples).
        floor = _floor(state, t)
        full = bool(model.carried or model.contents(o))
        for _ in range(TURN_TRIES):
            params = {"dyaw": rng.uniform(-math.pi, math.pi), "tilt": self._tilt(model, o, rng)}
            lowest, up = hand_sweep(model, o, params["dyaw"], params["tilt"])
            if up > MAX_FINGERS_UP:
                params["tilt"] = -params["tilt"]
                lowest, up = hand_sweep(model, o, params["dyaw"], params["tilt"])
            lift = floor + HAND_CLEARANCE - lowest - hi[2]
            down = (
                not full
                or p.getMatrixFromQuaternion(
                    tilted(state.get(o).pose, params["dyaw"], params["tilt"])
                )[8]
                <= -MIN_MOUTH_DOWN
            )
            if up <= MAX_FINGERS_UP and lift <= MAX_RISE and down:
                break
        params["z"] = hi[2] + min(max(rng.uniform(1.0, 2.0) * height, lift), MAX_RISE)
        # Over a surface, the spot of ROOM_TRIES with most room (a pour drawn at random meets the things
        # beside its target about 1 time in 5)
        inside = set(model.carried) | set(model.contents(o))
        others = [
            state.get(n).aabb()
            for n in model.objects
            if n not in (o, t) and n not in inside and not state.get(n).fixed
        ]
        cav = model.cavity(t)
        aimed = cav is not None and bool(inside)
        best = -math.inf
        for _ in range(ROOM_TRIES if others and not aimed else 1):
            x, y = rng.uniform(lo[0], max(lo[0], hi[0])), rng.uniform(lo[1], max(lo[1], hi[1]))
            room = min((gap_to_box(x, y, b) for b in others), default=math.inf)
            if room > best:
                best, params["x"], params["y"] = room, x, y
        if aimed:
            # Into a container: o's mouth ends over the middle of t's opening (within AIM_SHARE of its
            # radius), o's centre wherever that puts it; drawn over t's whole box, what falls out
            # mostly met the rim.
            (fx, fy, _), radius, _ = cav
            r, a = AIM_SHARE * radius * math.sqrt(rng.random()), rng.uniform(-math.pi, math.pi)
            rot = p.getMatrixFromQuaternion(
                tilted(state.get(o).pose, params["dyaw"], params["tilt"])
            )
            half = state.get(o).size[2] / 2
            params["x"] = fx + r * math.cos(a) - rot[2] * half
            params["y"] = fy + r * math.sin(a) - rot[5] * half
        return params

    @staticmethod
    def _tilt(model: PlanningModel, o: str, rng: np.random.Generator) -> float:
        """A tilt (radians, about a horizontal axis): for a container with something in it, one that
        turns its mouth below the horizon (anything less cannot empty it: no sample spent on it);
        otherwise any."""
        if not (model.carried or model.contents(o)):
            return float(rng.uniform(-math.pi, math.pi))
        if p.getMatrixFromQuaternion(to_bullet(model.state().get(o).pose)[1])[8] < 0.5:
            return float(
                rng.uniform(-math.pi, math.pi)
            )  # held tipped already (a pour left it so): any turn may do
        least = math.acos(-MIN_MOUTH_DOWN) + 0.05
        return float(rng.choice((-1.0, 1.0)) * rng.uniform(least, math.pi))

    def simulate(
        self,
        model: PlanningModel,
        args: tuple[str, ...],
        params: dict,
        step: StepContext | None = None,
    ) -> Outcome:
        o, t = args
        checks = context(step).checks
        if model.held != o:
            return Outcome.fail(f"{o} is not held", o)
        obj = model.state().get(o)
        contents = list(model.carried) or model.contents(o)
        if contents and hand_over_mouth(
            model, o
        ):  # cheap before dear: no physics for a blocked mouth
            return Outcome.fail(f"the hand covers the mouth of {o} at this grasp", o)
        quat0 = tilted(obj.pose, params["dyaw"], 0.0)
        pos = (params["x"], params["y"], params["z"])
        axis = (
            -math.sin(params["dyaw"]),
            math.cos(params["dyaw"]),
            0.0,
        )  # across the pour direction

        def path(
            share: float,
        ) -> list[tuple]:  # the object's own path to `share` of the tilt, finer than the arm's
            turns = (
                p.getQuaternionFromAxisAngle(
                    axis, share * params["tilt"] * k / (4 * TILT_WAYPOINTS)
                )
                for k in range(4 * TILT_WAYPOINTS + 1)
            )
            return [
                (pos, p.multiplyTransforms((0, 0, 0), turn, (0, 0, 0), quat0)[1]) for turn in turns
            ]

        poses = path(1.0)
        # The mouth (the middle of o's top face) must end over t, well inside its rim, so that what
        # falls out falls into t however it tumbles on the way (judged before any inverse kinematics).
        rot = p.getMatrixFromQuaternion(poses[-1][1])
        if contents and rot[8] > -MIN_MOUTH_DOWN:  # the mouth must end facing below the horizon
            return Outcome.fail(f"{o} is not tilted far enough to empty it", o)
        half = obj.size[2] / 2
        mouth = (pos[0] + rot[2] * half, pos[1] + rot[5] * half)
        lo, hi = model.state().get(t).aabb()
        inset = min(MOUTH_INSET, (hi[0] - lo[0]) / 4, (hi[1] - lo[1]) / 4)
        if not (
            lo[0] + inset <= mouth[0] <= hi[0] - inset
            and lo[1] + inset <= mouth[1] <= hi[1] - inset
        ):
            return Outcome.fail(f"the mouth of {o} would not be over {t}", t)
        if not contents and checks:
            # Nothing inside o: the pour moves o alone, so the state after it is o at its tilted pose,
            # judged before any inverse kinematics (a replan after a spill spent minutes of IK on
            # pours of the empty can whose checker wanted the spilt soup in the bowl).
            failed = _failed_checks(model, o, poses, checks)
            if failed:
                return Outcome.fail(
                    f"constraint {', '.join(failed)} not satisfied ({o} is empty)", t
                )
        q0 = model.robot.arm_q()
        waypoints = []
        seed = q0
        for k in range(TILT_WAYPOINTS + 1):
            turn = p.getQuaternionFromAxisAngle(axis, params["tilt"] * k / TILT_WAYPOINTS)
            quat = p.multiplyTransforms((0, 0, 0), turn, (0, 0, 0), quat0)[1]
            q = reach(model, model.tcp_for_object(from_bullet(pos, quat), model.grasp), seed=seed)
            if q is None:
                return Outcome.fail(f"no inverse-kinematics solution to tilt {o} above {t}", t)
            if k and max(abs(a - b) for a, b in zip(q, seed, strict=True)) > MAX_JOINT_JUMP:
                return Outcome.fail(f"tilting {o} above {t} needs a jump of the arm", t)
            hit = model.in_collision(q, ignore=tuple(contents)) or _arm_meets_held(model, o)
            if hit:
                return Outcome.fail(
                    f"pouring {o} above {t} collides with {hit}", hit.split("↔")[-1]
                )
            waypoints.append(q)
            seed = q
        # The pour's physics before the motion to it (each a third of a sample's time): most samples
        # are lost to where the contents land, and need no motion planned. The motion there is then
        # planned with the contents back in o (kept upright on the way) and they are put back where
        # they landed.
        carried = dict(model.carried)
        before = model.snapshot()
        try:
            left_inside, crossed = _poured(model, o, path(1.0), waypoints, 1.0, contents, t)
            if left_inside:
                # (mostly the grasp's doing: a finger or the palm in the way keeps the contents in at
                # every tilt, where another grasp pours them out at once)
                return Outcome.fail(
                    f"{', '.join(left_inside)} stays inside {o} when it is tilted", o, regrasp=True
                )
            if contents:
                # Not only just: what leaves only at the full tilt stays in on the arm, where the held mug
                # sags and turns a few degrees in the fingers (a pour planned at 114° may tip to 108°).
                after = model.snapshot()
                model.restore(before)
                model.carried = dict(carried)
                stayed, sagged = _poured(
                    model, o, path(SAG_SHARE), waypoints, SAG_SHARE, contents, t
                )
                model.restore(after)
                model.drop_snapshot(after)
                if stayed:
                    return Outcome.fail(
                        f"{', '.join(stayed)} stays inside {o} if it is tilted "
                        f"{round(100 * (1 - SAG_SHARE))} % less",
                        o,
                    )
                # and what leaves earlier, at the lesser tilt, must fall as well inside t's rim: the
                # arm's pour lets the contents go sooner and farther out than the model's
                crossed = {c: ok and sagged.get(c, True) for c, ok in crossed.items()}
        finally:
            model.drop_snapshot(before)
        near_rim = [c for c, ok in crossed.items() if not ok]
        if near_rim:
            return Outcome.fail(
                f"{', '.join(near_rim)} would fall into {t} too close to its rim", t
            )
        failed = _failed_checks(
            model, o, poses, checks
        )  # the contents where they landed, o at both tilts
        if failed:
            return Outcome.fail(f"constraint {', '.join(failed)} not satisfied", t)
        landed = {c: model.pose(c) for c in contents}
        model.carried = (
            carried  # on the way there the contents are still in o: no tilt that spills them
        )
        model.set_arm(q0)
        path = transit(model, q0, waypoints[0], ignore=tuple(contents))
        model.release_contents()
        for c, pose in landed.items():
            model.set_pose(c, pose)
        model.set_arm(waypoints[-1])
        if path is None:
            return Outcome.fail(f"no collision-free motion to above {t} holding {o}", t)
        step = TILT_SECONDS / TILT_WAYPOINTS
        times = tuple(step * (k + 1) for k in range(len(waypoints) - 1))
        # Tilt at the planned pace, then hold the last tilt while the contents fall out. Where they
        # land is judged by the generated checkers, not by a planned pose.
        return Outcome(
            ok=True,
            commands=[
                Move(path),
                Move(tuple(waypoints[1:]), times),
                Move((waypoints[-1],), (DWELL_SECONDS,)),
            ],
        )


def _failed_checks(
    model: PlanningModel, o: str, poses: list[tuple], checks: Sequence[tuple[str, Checker]]
) -> list[str]:
    """Names of the step's `checks` that fail with o at the end of its tilt path `poses` ((position,
    quaternion), world frame), or else at SAG_SHARE of it; o is put back where it was. On the arm a
    mug planned just past its checker's tilt sags in the fingers and ends a degree short of it."""
    before = model.pose(o)
    failed: list[str] = []
    try:
        for at in (len(poses) - 1, round(SAG_SHARE * (len(poses) - 1))):
            model.set_pose(o, from_bullet(*poses[at]))
            state = model.state()
            failed = [name for name, check in checks if not check(state)]
            if failed:
                break
    finally:
        model.set_pose(o, before)
    return failed


def _floor(state: WorldState, t: str) -> float:
    """Height (m, world frame) of the table top under a pour onto or into t (t's own top without a table)."""
    tops = [state.get(n).aabb()[1][2] for n in state.objects if state.get(n).category == "table"]
    return max(tops) if tops else state.get(t).aabb()[1][2]


def _arm_meets_held(model: PlanningModel, o: str) -> str | None:
    """'the arm' when a link of the arm other than the gripper's touches the held object o at the
    arm's current joints, else None. The arm swings round o as it tilts it, and the forearm can meet
    o and shove it along the fingers, which the planning model's collision check (the held object
    against the scene) does not see."""
    gripper = set(model.robot.gripper_links)
    for c in p.getClosestPoints(model.bodies[o], model.robot.body, 0.0, physicsClientId=model.cid):
        if c[4] not in gripper:
            return f"{o}↔the arm"
    return None


def _rim_watch(model: PlanningModel, contents: list[str], t: str) -> tuple[dict[str, bool], object]:
    """For a pour into a container t that stands upright (it has an opening): a watch for the pour's
    physics that records, for each of `contents`, whether its centre drops below t's rim within
    RIM_MARGIN (plus its own radius) inside the opening. What passes the rim that far in lands in t
    even when the arm pours a little differently from the planning model; what only just clears it
    may land on the rim on the arm. Returns (verdict by content, filled in
    as they pass — those still missing at the end never passed, i.e. not ok —, the watch or None)."""
    cav = model.cavity(t)
    verdict = {c: False for c in contents}
    if cav is None or not contents:
        return {}, None
    (fx, fy, fz), radius, depth = cav
    rim = fz + depth
    state = model.state()
    reach_ok = {c: radius - min(state.get(c).size) / 2 - RIM_MARGIN for c in contents}
    bodies = {c: model.bodies[c] for c in contents}
    passed: set[str] = set()

    def watch() -> None:
        for c, body in bodies.items():
            if c in passed:
                continue
            (x, y, z), _ = p.getBasePositionAndOrientation(body, physicsClientId=model.cid)
            if z < rim:
                passed.add(c)
                verdict[c] = math.hypot(x - fx, y - fy) <= reach_ok[c]

    return verdict, watch


def _poured(
    model: PlanningModel,
    o: str,
    poses: list[tuple],
    waypoints: list[tuple[float, ...]],
    share: float,
    contents: list[str],
    t: str,
) -> tuple[list[str], dict[str, bool]]:
    """Pour the held o along `poses` (its body's path, world frame) with physics, the hand turning with it
    along `share` of the arm's tilt `waypoints`, from the first waypoint; the arm left at the last. Returns
    (the contents still inside o, the rim verdict of `_rim_watch`)."""
    model.set_arm(waypoints[0])
    model.release_contents()
    fine = len(poses) - 1  # the arm's waypoints, interpolated to the object's finer path
    arm = [_lerp(waypoints, share * k * TILT_WAYPOINTS / fine) for k in range(fine + 1)]
    crossed, watch = _rim_watch(model, contents, t)
    model.pour_motion(
        poses,
        TILT_SECONDS * share,
        DWELL_SECONDS,
        arm=arm,
        watch=watch,
        settled=_at_rest(model, contents),
    )
    model.set_arm(waypoints[-1])
    return [c for c in contents if c in model.contents(o)], crossed


def _at_rest(model: PlanningModel, contents: list[str]) -> Callable[[], bool]:
    """A check, called once per physics step, that is True once every one of `contents` has moved slower
    than REST_SPEED for REST_STEPS steps in a row: the held object stands still through a pour's dwell,
    so what has come to rest then stays (in it or where it fell), and the rest of the dwell would only
    cost physics (about a third of each pour's steps)."""
    bodies = [model.bodies[c] for c in contents]
    calm = 0

    def settled() -> bool:
        nonlocal calm
        still = all(
            math.hypot(*p.getBaseVelocity(b, physicsClientId=model.cid)[0]) < REST_SPEED
            for b in bodies
        )
        calm = calm + 1 if still else 0
        return calm >= REST_STEPS

    return settled


def _lerp(waypoints: list[tuple[float, ...]], at: float) -> tuple[float, ...]:
    """Joint values (radians) at fractional waypoint index `at`, linearly between neighbours."""
    i = min(int(at), len(waypoints) - 2)
    f = at - i
    return tuple(a + (b - a) * f for a, b in zip(waypoints[i], waypoints[i + 1], strict=True))
