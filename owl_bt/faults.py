"""Seeded fault injection in simulation (`owl-bt run/bench --faults … --fault-seed N`).

Five kinds, each with a rate in [0, 1]:

- `grasp-slip`: per step that starts with an object in the hand (a transport: place, pour), the
  chance that the object slips out of the gripper part-way along the step's longest motion (the
  fingers open and it falls clear of the hand; the arm, unaware, finishes that motion).
- `knock`: per executed step, the chance that afterwards one movable object the hand does not hold
  (not a region or a fixed object)
  is knocked 5–12 cm to a new resting pose (clear of the other objects and the arm) before the
  step's effects are observed.
- `knock-off`: per executed step, the chance that afterwards one such object is knocked off the
  table: it lies on the floor beside it, out of the camera's workspace, for the rest of the episode.
- `miss-detect`: per observation, the chance that perception misses one object (not the table,
  not the held object) in that frame.
- `arm-fault`: per executed step, the chance that the arm reports a fault part-way along one of
  the step's motions: it stops, holds what it holds and refuses every command until the fault is
  cleared (`SimArmBackend.clear_fault`); the executive's safety guard clears it and replans.

Every draw comes from a generator seeded by (fault seed, episode seed), one stream per kind, so an
episode's faults are reproducible and one kind's rate does not change another's draws. Every fault
that fires is logged (`fault_injected` event) and kept in `FaultInjector.injected`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from owl_bt.errors import UsageError

KINDS = (
    "grasp-slip",
    "knock",
    "miss-detect",
    "arm-fault",
    "knock-off",
)  # new kinds go last: seeds keep their draws
USAGE = (
    "--faults takes KIND=RATE pairs separated by commas, KIND one of "
    + ", ".join(KINDS)
    + " and RATE a number from 0 to 1, e.g. --faults grasp-slip=0.2,knock=0.1,miss-detect=0.1,arm-fault=0.05"
)
KNOCK_TRIES = 40  # spots tried for a knocked object
# numbers drawn per chance
DRAWS = {
    "grasp-slip": 2,
    "knock": 2 + 3 * KNOCK_TRIES,
    "miss-detect": 2,
    "arm-fault": 3,
    "knock-off": 2,
}
KNOCK_DISTANCE = (0.05, 0.12)  # m: how far a knocked object ends up from where it was
SLIP_FALL_S = 0.6  # s of physics at most for a slipped object to fall clear of the hand
KNOCK_SETTLE_S = 0.5  # s of physics after a knock, the arm holding still
FLOOR = (
    1.6,
    -0.8,
)  # m: where a knocked-off object lies (x, z), beyond the table's far edge, below its top


@dataclass(frozen=True)
class FaultSpec:
    """rates: kind → chance (only kinds with a rate above 0); seed: the fault seed."""

    rates: dict[str, float] = field(default_factory=dict)
    seed: int = 0

    def __bool__(self) -> bool:
        return any(r > 0 for r in self.rates.values())

    def text(self) -> str:
        """The canonical `--faults` text (kinds in KINDS order), '' when none."""
        return ",".join(f"{k}={_num(self.rates[k])}" for k in KINDS if self.rates.get(k, 0) > 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rates": {k: self.rates[k] for k in KINDS if k in self.rates},
            "seed": self.seed,
            "spec": self.text(),
        }


def _num(v: float) -> str:
    return f"{v:g}"


_RATE = re.compile(r"[-+]?[0-9]*\.?[0-9]+", re.ASCII)  # a plain decimal: 0.2, .5, 1


def parse_faults(spec: str | None, seed: int = 0) -> FaultSpec:
    """`grasp-slip=0.2,knock=0.1` → FaultSpec; None or '' → no faults. Raises UsageError (one line, exit 2)."""
    if seed is None or seed < 0:
        raise UsageError(f"--fault-seed must be 0 or more, got {seed}")
    if spec is None or not spec.strip():
        if spec is not None:
            raise UsageError(f"--faults is empty; {USAGE}")
        return FaultSpec({}, seed)
    rates: dict[str, float] = {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        kind, eq, value = item.partition("=")
        kind = kind.strip().lower()
        if not eq:
            raise UsageError(f"--faults: {item!r} has no rate; {USAGE}")
        if kind not in KINDS:
            raise UsageError(f"--faults: unknown fault kind {kind!r}; {USAGE}")
        if kind in rates:
            raise UsageError(f"--faults: {kind} is given twice; {USAGE}")
        try:
            if not _RATE.fullmatch(
                value.strip()
            ):  # (float() also takes "1_0", "１", "nan", "1e-1")
                raise ValueError(value)
            rate = float(value)
        except ValueError:
            raise UsageError(
                f"--faults: the rate of {kind} must be a number, got {value.strip()!r}; {USAGE}"
            ) from None
        if not (0.0 <= rate <= 1.0) or math.isnan(rate):
            raise UsageError(
                f"--faults: the rate of {kind} must be from 0 to 1, got {value.strip()}; {USAGE}"
            )
        rates[kind] = rate
    if not rates:
        raise UsageError(f"--faults is empty; {USAGE}")
    return FaultSpec(rates, seed)


@dataclass
class _Armed:
    """A fault planned for the current step: on its `motion`-th motion (0-based), at `fraction` of its waypoints."""

    kind: str
    motion: int
    fraction: float


class FaultInjector:
    """Injects `spec`'s faults into one simulated episode.

    world: the `SimWorld`; arm: its `SimArmBackend` (faults go into it, below the safety guard);
    log(event, **fields): the run's event log; episode_seed: mixed into the fault seed."""

    def __init__(
        self,
        spec: FaultSpec,
        world: Any,
        arm: Any,
        episode_seed: int = 0,
        log: Callable[..., None] = lambda event, **kw: None,
    ) -> None:
        self.spec, self.world, self.arm, self.log = spec, world, arm, log
        self.rng = _streams(spec.seed, episode_seed)
        self.injected: list[dict[str, Any]] = []
        self._armed: list[_Armed] = []
        self._motions = 0
        self._step = ""

    def rate(self, kind: str) -> float:
        return self.spec.rates.get(kind, 0.0)

    # -- hooks: the executive's step boundaries -------------------------------------------------
    def step_started(self, action: str, commands: Sequence[Any]) -> None:
        """Decide this step's in-motion faults (a slip, an arm fault)."""
        self._step, self._motions, self._armed = action, 0, []
        moves = [i for i, c in enumerate(commands) if hasattr(c, "waypoints")]
        u_slip, f_slip = self.rng["grasp-slip"].random(DRAWS["grasp-slip"])
        u_fault, f_fault, k_fault = self.rng["arm-fault"].random(DRAWS["arm-fault"])
        if self.arm.held is not None and moves:
            opened = next(
                (i for i, c in enumerate(commands) if getattr(c, "command", None) == "open"),
                len(commands),
            )
            carrying = [n for n, i in enumerate(moves) if i < opened]
            if carrying and u_slip < self.rate("grasp-slip"):
                longest = max(carrying, key=lambda n: (len(commands[moves[n]].waypoints), -n))
                self._armed.append(_Armed("grasp-slip", longest, 0.25 + 0.5 * f_slip))
        if moves and u_fault < self.rate("arm-fault"):
            self._armed.append(
                _Armed(
                    "arm-fault", min(int(k_fault * len(moves)), len(moves) - 1), 0.2 + 0.6 * f_fault
                )
            )

    def step_done(self, action: str) -> None:
        """Between steps: perhaps knock an object to a new pose, or off the table."""
        self._armed = []
        u, pick, *draws = self.rng["knock"].random(DRAWS["knock"])
        u_off, pick_off = self.rng["knock-off"].random(DRAWS["knock-off"])
        held = self.arm.held
        candidates = sorted(
            n
            for n, b in self.world.bodies.items()
            if not (b.spec.fixed or b.spec.region)
            and n != held
            and self.world.pose(n).z > FLOOR[1] + 0.1
        )
        if u < self.rate("knock") and candidates:
            self._knock(
                candidates[min(int(pick * len(candidates)), len(candidates) - 1)], action, draws
            )
        if u_off < self.rate("knock-off") and candidates:
            self._knock_off(
                candidates[min(int(pick_off * len(candidates)), len(candidates) - 1)], action
            )

    # -- in the arm -------------------------------------------------------------------------------
    def motion(self) -> _Armed | None:
        """Called at the start of each motion: the fault to fire part-way along it, if any."""
        n, self._motions = self._motions, self._motions + 1
        for armed in self._armed:
            if armed.motion == n:
                self._armed.remove(armed)
                return armed
        return None

    def fire(self, armed: _Armed) -> None:
        """Make `armed` happen now (the arm is part-way along a motion)."""
        if armed.kind == "grasp-slip":
            name = self.arm.release()
            if name is not None:
                at = _xy(self.world.pose(name))
                self._drop_clear(name)
                self._record("grasp-slip", object=name, at=at)
        elif armed.kind == "arm-fault":
            reason = (
                f"injected arm fault during {self._step}" if self._step else "injected arm fault"
            )
            self.arm.report_fault(reason)
            self._record("arm-fault", reason=reason, held=self.arm.held)

    def _drop_clear(self, name: str) -> None:
        """Let a slipped object fall out of the open hand: it passes through the fingers (no contact
        with the arm) until it is clear of them, up to SLIP_FALL_S of physics (the arm holds its
        waypoint meanwhile), so that it does not stay caught on a finger or the palm."""
        import pybullet as p

        cid, robot, body = self.world.cid, self.world.robot.body, self.world.body_id(name)
        links = range(-1, p.getNumJoints(robot, physicsClientId=cid))
        for link in links:
            p.setCollisionFilterPair(robot, body, link, -1, 0, physicsClientId=cid)
        try:
            for _ in range(int(SLIP_FALL_S * 240)):
                self.world.step(1)
                if not p.getClosestPoints(robot, body, 0.01, physicsClientId=cid):
                    break
        finally:
            for link in links:
                p.setCollisionFilterPair(robot, body, link, -1, 1, physicsClientId=cid)

    # -- in perception ------------------------------------------------------------------------------
    def perceived(self, obs: Any) -> Any:
        """One observation: perhaps with one object missed."""
        u, pick = self.rng["miss-detect"].random(DRAWS["miss-detect"])
        if u >= self.rate("miss-detect"):
            return obs
        held = obs.world.robot.held if obs.world.robot else None
        candidates = sorted(n for n in obs.world.objects if n not in ("table", held))
        if not candidates:
            return obs
        name = candidates[min(int(pick * len(candidates)), len(candidates) - 1)]
        from dataclasses import replace

        from owl_bt.state import WorldState

        w = obs.world
        world = WorldState({n: o for n, o in w.objects.items() if n != name}, w.robot, w.source)
        self._record("miss-detect", object=name)
        return replace(obs, world=world, missing=[*getattr(obs, "missing", []), name])

    # -- knocking -------------------------------------------------------------------------------------
    def _knock(self, name: str, action: str, draws: list[float]) -> None:
        import pybullet as p

        from sim.bullet import to_bullet
        from sim.catalog.layout import REACH, footprint, on_table, overlaps, resting_pose

        world, cid = self.world, self.world.cid
        spec, body = world.bodies[name].spec, world.body_id(name)
        old = world.pose(name)
        others = {
            n: _footprint_of(world, n)
            for n, b in world.bodies.items()
            if n != name and not b.spec.region
        }
        for k in range(0, 3 * KNOCK_TRIES, 3):
            angle = 2 * math.pi * draws[k]
            dist = KNOCK_DISTANCE[0] + (KNOCK_DISTANCE[1] - KNOCK_DISTANCE[0]) * draws[k + 1]
            x, y = old.x + dist * math.cos(angle), old.y + dist * math.sin(angle)
            if not (REACH[0][0] <= x <= REACH[0][1] and REACH[1][0] <= y <= REACH[1][1]):
                continue
            yaw = old.yaw + (draws[k + 2] - 0.5) * math.pi
            pose = resting_pose(
                spec, x, y, old.roll, old.pitch, yaw, support_z=_support_z(world, spec, x, y, old)
            )
            box = footprint(spec, pose)
            if not on_table(box) or any(overlaps(box, o, 0.01) for o in others.values()):
                continue
            pos, quat = to_bullet(pose)
            p.resetBasePositionAndOrientation(body, pos, quat, physicsClientId=cid)
            p.resetBaseVelocity(body, (0, 0, 0), (0, 0, 0), physicsClientId=cid)
            if p.getClosestPoints(world.robot.body, body, 0.02, physicsClientId=cid):
                continue  # too near the arm: try another spot
            world.settle(KNOCK_SETTLE_S)
            new = world.pose(name)
            self._record(
                "knock",
                object=name,
                after=action,
                frm=_xy(old),
                to=_xy(new),
                moved_m=round(math.dist(old.position[:2], new.position[:2]), 3),
            )
            return
        pos, quat = to_bullet(old)  # nowhere free to knock it to: leave it be
        p.resetBasePositionAndOrientation(body, pos, quat, physicsClientId=cid)

    def _knock_off(self, name: str, action: str) -> None:
        """`name` off the table: on the floor beyond its far edge (held there: the simulation has no floor)."""
        import pybullet as p

        body, old = self.world.body_id(name), self.world.pose(name)
        at = (FLOOR[0], old.y, FLOOR[1])
        p.resetBasePositionAndOrientation(body, at, (0, 0, 0, 1), physicsClientId=self.world.cid)
        p.resetBaseVelocity(body, (0, 0, 0), (0, 0, 0), physicsClientId=self.world.cid)
        p.changeDynamics(body, -1, mass=0.0, physicsClientId=self.world.cid)
        self._record(
            "knock-off",
            object=name,
            after=action,
            frm=_xy(old),
            to=[round(at[0], 3), round(at[1], 3)],
        )

    def _record(self, kind: str, **fields: Any) -> None:
        rec = {"kind": kind, "step": self._step, **fields}
        self.injected.append(rec)
        self.log("fault_injected", **rec)

    def counts(self) -> dict[str, int]:
        """Faults that fired, per kind (every kind of the spec, 0 when none fired)."""
        out = {k: 0 for k in KINDS if self.rate(k) > 0}
        for rec in self.injected:
            out[rec["kind"]] = out.get(rec["kind"], 0) + 1
        return out


def _streams(fault_seed: int, episode_seed: int) -> dict[str, np.random.Generator]:
    streams = np.random.SeedSequence([fault_seed, episode_seed]).spawn(len(KINDS))
    return {k: np.random.default_rng(s) for k, s in zip(KINDS, streams, strict=True)}


def chances(
    kind: str, rate: float, fault_seed: int, episode_seed: int = 0, n: int = 8
) -> list[bool]:
    """Whether each of the first `n` chances of `kind` comes up (a step for grasp-slip, knock and
    arm-fault; an observation for miss-detect) under these seeds — before the scene decides whether
    there is anything to slip or knock. For picking seeds that inject a fault exactly where wanted."""
    rng = _streams(fault_seed, episode_seed)[kind]
    return [bool(rng.random(DRAWS[kind])[0] < rate) for _ in range(n)]


def seed_for(
    kind: str,
    rate: float,
    pattern: Sequence[bool | None],
    episode_seed: int = 0,
    limit: int = 10_000,
    start: int = 0,
) -> int:
    """The first fault seed from `start` on whose chances of `kind` follow `pattern` (None: either way)."""
    for seed in range(start, limit):
        got = chances(kind, rate, seed, episode_seed, len(pattern))
        if all(want is None or want == g for want, g in zip(pattern, got, strict=True)):
            return seed
    raise ValueError(f"no fault seed below {limit} gives {kind} the pattern {list(pattern)}")


def _xy(pose: Any) -> list[float]:
    return [round(pose.x, 3), round(pose.y, 3)]


def _footprint_of(world: Any, name: str):
    import pybullet as p

    lo, hi = p.getAABB(world.body_id(name), physicsClientId=world.cid)
    return ((lo[0], lo[1]), (hi[0], hi[1]))


def _support_z(world: Any, spec: Any, x: float, y: float, old: Any) -> float:
    """The top of a flat region under (x, y), else the table top (m)."""
    import pybullet as p

    from sim.catalog.layout import TABLE_TOP_Z

    top = TABLE_TOP_Z
    for b in world.bodies.values():
        if b.spec.region:
            lo, hi = p.getAABB(b.id, physicsClientId=world.cid)
            if lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]:
                top = max(top, hi[2])
    return top


class FaultyBackend:
    """The simulated arm (`inner`, a SimArmBackend) with the injector's in-motion faults: a motion the
    injector picks is split where the fault fires; a slip lets go and the motion goes on, an arm fault
    stops it (ArmFaulted). Everything else is the inner backend's."""

    def __init__(self, inner: Any, injector: FaultInjector) -> None:
        self.inner, self.injector = inner, injector

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def execute_trajectory(
        self,
        waypoints: Sequence[Sequence[float]],
        times: Sequence[float] | None = None,
        guarded: bool = False,
    ) -> None:
        armed = self.injector.motion()
        if armed is None:
            return self.inner.execute_trajectory(waypoints, times, guarded=guarded)
        from skills.sim_backend import ArmFaulted

        cut = min(max(1, round(armed.fraction * len(waypoints))), len(waypoints))
        self.inner.execute_trajectory(
            waypoints[:cut], None if times is None else times[:cut], guarded=guarded
        )
        self.injector.fire(armed)
        if armed.kind == "arm-fault":
            raise ArmFaulted(f"the arm reported a fault ({self.arm_fault_reason()})")
        if cut < len(waypoints):
            rest = None if times is None else [t - times[cut - 1] for t in times[cut:]]
            self.inner.execute_trajectory(waypoints[cut:], rest, guarded=guarded)
        return None

    def arm_fault_reason(self) -> str:
        return self.inner.fault or "fault"

    def gripper(self, command: str, width: float | None = None):
        return (
            self.inner.gripper(command)
            if width is None
            else self.inner.gripper(command, width=width)
        )

    def state(self):
        return self.inner.state()

    def stop(self) -> None:
        self.inner.stop()


class FaultyPerception:
    """A perception source whose observations pass through the injector (missed objects)."""

    def __init__(self, inner: Any, injector: FaultInjector) -> None:
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "injector", injector)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.inner, name, value)  # out_dir and the like belong to the source

    def observe(self):
        return self.injector.perceived(self.inner.observe())
