"""The arm with a Robotiq 2F-85 gripper, as one pybullet body: the UR5e (default) or a Kinova Gen3.

The UR5e and the gripper come from `airo-models`; we join them at the UR's `tool0` flange and add a
`tcp` link between the finger pads (0.145 m along the flange z axis). The Kinova Gen3 is written by
us from its published kinematics (`sim/robots/kinova_gen3.py`) and carries the same gripper on its
`end_effector_link`. The gripper's mimic joints are not honoured by pybullet, so `RobotModel` drives
all six finger joints from the one `finger_joint` value in code (multipliers from the Robotiq URDF).

Which arm: `RobotModel.load(cid, robot=NAME)` with a name from `ROBOTS` (`robot_spec` accepts the
aliases in `ALIASES`); each `RobotSpec` carries that arm's joint names, home pose, planning and
velocity limits. The module constants `ARM_JOINTS`, `HOME` and `PLANNING_LIMITS` are the UR5e's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache

import airo_models
import pybullet as p
from airo_models.urdf import read_urdf, write_urdf_to_file

from sim.quiet import quiet
from sim.robots import kinova_gen3

ARM_JOINTS = (
    "shoulder_pan_joint",
    "shoulder_lift_joint",
    "elbow_joint",
    "wrist_1_joint",
    "wrist_2_joint",
    "wrist_3_joint",
)
# finger_joint is the driver; the others follow with these multipliers (Robotiq URDF <mimic>).
FINGER_MIMIC = {
    "finger_joint": 1.0,
    "left_inner_knuckle_joint": 1.0,
    "left_inner_finger_joint": -1.0,
    "right_outer_knuckle_joint": 1.0,
    "right_inner_knuckle_joint": 1.0,
    "right_inner_finger_joint": -1.0,
}
FINGER_CLOSED = 0.8  # finger_joint at fully closed, radians
FINGER_SPEED = 1.5  # rad/s: the finger motors' speed limit
TCP_OFFSET = 0.145  # metres from the gripper base to the middle of the finger pads
HOME = (0.0, -1.9, 1.9, -1.571, -1.571, 0.0)  # tool pointing down above the table, radians
# Joint limits we plan within (tighter than the UR's ±2π so that paths stay sensible).
PLANNING_LIMITS = (
    (-math.pi, math.pi),
    (-math.pi, 0.0),
    (-math.pi, math.pi),
    (-2 * math.pi, math.pi),
    (-2 * math.pi, math.pi / 2),
    (-2 * math.pi, 2 * math.pi),
)
MAX_OPENING = 0.085  # metres between the pads when open
PAD_ORIGIN_OFFSET = (
    0.007  # metres: the pads' link origins sit this much wider apart than their surfaces
)
# Where on the table the arm works comfortably (x, y lower and upper, metres, world frame): samplers
# put objects down only here, however large the surface (edges near the base or far away are
# reachable only in awkward poses from which the next pick fails).
WORKSPACE = ((0.32, -0.32), (0.76, 0.32))
UR_VELOCITY_LIMITS = (math.pi,) * 6  # rad/s, every UR5e (and UR5) joint


@dataclass(frozen=True)
class RobotSpec:
    """One arm model. urdf: returns the path of its arm + gripper URDF; arm_joints: in the robot's
    order; home: tool down above the table (rad); limits: the (lower, upper) joint window we plan
    and move within (rad), inside the arm's own limits; velocity_limits: rad/s per joint at 100 %;
    base_links: the links near the base that the wrist and gripper must never touch; mount: where
    its base stands in the world frame (m; the table's near edge is at x = 0.2); position_gain: the
    simulated joints' position-loop gain (pybullet's `positionGain`; None: pybullet's default, 0.1);
    closed_form_ik: the arm's module in `ur_analytic_ik` (every closed-form IK solution of the flange,
    in UR's base frame), or None: pybullet's iterative IK (`owl_bt.tamp.kinematics`)."""

    name: str
    urdf: Callable[[], str]
    arm_joints: tuple[str, ...]
    home: tuple[float, ...]
    limits: tuple[tuple[float, float], ...]
    velocity_limits: tuple[float, ...]
    base_links: tuple[str, ...]
    mount: tuple[float, float, float] = (0.0, 0.0, 0.0)
    position_gain: float | None = None
    closed_form_ik: str | None = None

    @property
    def dof(self) -> int:
        return len(self.arm_joints)


UR5E = RobotSpec(
    "ur5e",
    lambda: ur5e_robotiq_urdf(),
    ARM_JOINTS,
    HOME,
    PLANNING_LIMITS,
    UR_VELOCITY_LIMITS,
    ("base_link", "base_link_inertia", "shoulder_link", "upper_arm_link"),
    closed_form_ik="ur5e",
)
# Tool pointing straight down 0.31 m above the table, 0.22 m in front of the base, fingers closing
# along y as the UR5e's home (joints 1, 3, 5 at zero: the arm in its x-z plane, elbow up).
GEN3_HOME = (0.0, -0.2, 0.0, 2.0, 0.0, math.pi - 1.8, math.pi / 2)
# The Gen3 with a top-down Robotiq reaches about 0.64 m from its base (the UR5e about 0.80 m), so it
# stands 0.14 m nearer the table than the UR5e, just clear of the table's near edge (x = 0.2 m).
GEN3_MOUNT = (0.14, 0.0, 0.0)
GEN3_LIMITS = (
    (-math.pi, math.pi),  # joint_1 (continuous)
    (-2.24, 2.24),
    (-math.pi, math.pi),  # joint_3 (continuous)
    (-2.57, 2.57),
    (-math.pi, math.pi),  # joint_5 (continuous)
    (-2.09, 2.09),
    (
        -2 * math.pi,
        2 * math.pi,
    ),  # joint_7 (continuous): the wrist may turn a whole way round, as the UR's
)
# The Gen3's light links (0.5–1.4 kg) under pybullet's default position loop were still turning the
# wrist by up to 0.02 rad after a waypoint counted as reached, i.e. while the fingers closed, and a
# grasp taken that way pressed the object into the table on the lift (2 in 30 cans, 1 in 30 apples);
# a stiffer loop (as the real arm's joint controllers are) settles before the grasp: 0 in 30 each.
GEN3_POSITION_GAIN = 0.3
KINOVA_GEN3 = RobotSpec(
    "kinova-gen3",
    lambda: kinova_gen3_robotiq_urdf(),
    kinova_gen3.ARM_JOINTS,
    GEN3_HOME,
    GEN3_LIMITS,
    kinova_gen3.VELOCITY_LIMITS,
    ("base_link", "shoulder_link", "half_arm_1_link"),
    GEN3_MOUNT,
    GEN3_POSITION_GAIN,
)
# The UR5 (CB3) shares the UR5e's joint layout, limits, speeds and home, not its lengths: its
# shoulder stands 7.3 cm lower, its wrists are shorter (`ur5_robotiq_urdf`).
UR5 = dataclasses.replace(UR5E, name="ur5", urdf=lambda: ur5_robotiq_urdf(), closed_form_ik="ur5")
ROBOTS: dict[str, RobotSpec] = {r.name: r for r in (UR5E, UR5, KINOVA_GEN3)}
ALIASES = {"ur5-cb3": "ur5", "ur": "ur5e", "gen3": "kinova-gen3", "kinova": "kinova-gen3"}
DEFAULT_ROBOT = "ur5e"


def robot_spec(name: str | RobotSpec = DEFAULT_ROBOT) -> RobotSpec:
    """The RobotSpec called `name` (or an alias); raises KeyError listing the known names."""
    if isinstance(name, RobotSpec):
        return name
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in ROBOTS:
        raise KeyError(
            f"unknown robot {name!r}; available: {', '.join(ROBOTS)} (aliases: {', '.join(ALIASES)})"
        )
    return ROBOTS[key]


@lru_cache(maxsize=1)
def ur5e_robotiq_urdf() -> str:
    """Path of the merged UR5e + Robotiq 2F-85 URDF (written once into a per-user cache dir)."""
    from airo_models.urdf import make_paths_absolute

    arm_path = airo_models.get_urdf_path("ur5e")
    arm = read_urdf(arm_path)
    make_paths_absolute(arm, arm_path)
    return _with_gripper(arm, "tool0", "ur5e_robotiq")


# Where the UR5 (CB3)'s joints sit on their parents (m), from UR's published DH parameters
# (d1 0.089159, a2 −0.425, a3 −0.39225, d4 0.10915, d5 0.09465, d6 0.0823), in the UR5e URDF's
# own joint frames (its d1 0.1625, a3 −0.3922, d4 0.1333, d5 0.0997, d6 0.0996).
UR5_JOINT_ORIGINS = {
    "shoulder_pan_joint": "0 0 0.089159",
    "elbow_joint": "-0.425 0 0",
    "wrist_1_joint": "-0.39225 0 0.10915",
    "wrist_2_joint": "0 -0.09465 0",
    "wrist_3_joint": "0 0.0823 0",
}


@lru_cache(maxsize=1)
def ur5_robotiq_urdf() -> str:
    """Path of the UR5 (CB3) + Robotiq 2F-85 URDF: the UR5e's with the UR5's joint offsets
    (`UR5_JOINT_ORIGINS`); the link meshes stay the UR5e's (a few millimetres off, seen only by the
    simulated camera)."""
    from airo_models.urdf import make_paths_absolute

    arm_path = airo_models.get_urdf_path("ur5e")
    arm = read_urdf(arm_path)
    make_paths_absolute(arm, arm_path)
    for joint in _as_list(arm["robot"]["joint"]):
        xyz = UR5_JOINT_ORIGINS.get(joint["@name"])
        if xyz is not None:
            joint["origin"]["@xyz"] = xyz
    arm["robot"]["@name"] = "ur5"
    return _with_gripper(arm, "tool0", "ur5_robotiq")


@lru_cache(maxsize=1)
def kinova_gen3_robotiq_urdf() -> str:
    """Path of the Kinova Gen3 (our URDF from the published kinematics) + Robotiq 2F-85 URDF."""
    return _with_gripper(kinova_gen3.arm_urdf(), "end_effector_link", "kinova_gen3_robotiq")


def _with_gripper(arm: dict, flange: str, stem: str) -> str:
    """Join the Robotiq 2F-85 to `arm` (an xmltodict URDF) at link `flange`, add the `tcp` link and
    write the result once into a per-user cache dir; returns its path."""
    from airo_models.urdf import make_paths_absolute

    grip_path = airo_models.get_urdf_path("robotiq_2f_85")
    grip = read_urdf(grip_path)
    make_paths_absolute(grip, grip_path)
    robot = arm["robot"]
    g = grip["robot"]
    _prefix_clashing_names(robot, g, "gripper_")
    robot["link"] = _as_list(robot["link"]) + _as_list(g["link"])
    joints = _as_list(robot["joint"]) + _as_list(g["joint"])
    joints.append(_fixed_joint("tool0_to_gripper", flange, "gripper_base_link", (0, 0, 0)))
    robot["link"].append({"@name": "tcp"})
    joints.append(_fixed_joint("gripper_to_tcp", "gripper_base_link", "tcp", (0, 0, TCP_OFFSET)))
    robot["joint"] = joints
    if "material" in g:
        robot["material"] = _as_list(robot.get("material", [])) + _as_list(g["material"])
    digest = hashlib.sha1(repr(arm).encode() + repr(grip).encode()).hexdigest()[:10]
    cache = os.path.join(tempfile.gettempdir(), f"owl-bt-{os.getuid()}")
    os.makedirs(cache, exist_ok=True)
    return _write_once(arm, os.path.join(cache, f"{stem}_{digest}.urdf"))


@cache
def collision_only(urdf: str) -> str:
    """Path of a copy of the URDF at `urdf` without its <visual> elements, written once beside it. For
    the bodies never rendered (the planner's, the hand sweep's, the safety guard's): pybullet loads the
    UR5e + Robotiq's in 0.03-0.04 s instead of 0.1-0.3 s (the visual meshes are parsed), eight times an
    episode (six planning models, the sweep, the guard); links, joints, collision shapes, inertias the same."""
    doc = read_urdf(urdf)
    for link in _as_list(doc["robot"]["link"]):
        link.pop("visual", None)
    return _write_once(doc, urdf.removesuffix(".urdf") + "_collision.urdf")


@cache
def collision_as_visual(urdf: str) -> str:
    """Path of a copy of the URDF at `urdf` whose links are drawn as their collision shapes, written
    once beside it. For a camera that needs the arm's outline, not its detail (the run's video): the
    UR5e + Robotiq's visual meshes have about 140,000 triangles and its collision meshes about 15,000,
    and pybullet's CPU renderer takes time in proportion. Links, joints and collision shapes the same."""
    doc = read_urdf(urdf)
    for link in _as_list(doc["robot"]["link"]):
        shapes = [
            {k: v for k, v in c.items() if k in ("origin", "geometry")}
            for c in _as_list(link.get("collision"))
        ]
        link.pop("visual", None)
        if shapes:
            link["visual"] = shapes
    return _write_once(doc, urdf.removesuffix(".urdf") + "_outline.urdf")


def _write_once(doc: dict, out: str) -> str:
    """Write the URDF `doc` (xmltodict) to the path `out` unless it is there already (atomically: a
    concurrent writer never leaves a half-written file); returns `out`."""
    if not os.path.exists(out):
        tmp = out + f".{os.getpid()}.tmp"
        write_urdf_to_file(doc, tmp)
        os.replace(tmp, out)
    return out


def _prefix_clashing_names(arm: dict, grip: dict, prefix: str) -> None:
    """Rename gripper links and joints whose names the arm already uses (both have base_link)."""
    arm_names = {x["@name"] for x in _as_list(arm["link"]) + _as_list(arm["joint"])}
    renamed = {}
    for item in _as_list(grip["link"]) + _as_list(grip["joint"]):
        if item["@name"] in arm_names:
            renamed[item["@name"]] = prefix + item["@name"]
            item["@name"] = renamed[item["@name"]]
    for joint in _as_list(grip["joint"]):
        for end in ("parent", "child"):
            joint[end]["@link"] = renamed.get(joint[end]["@link"], joint[end]["@link"])


def _as_list(v: object) -> list:
    if v is None:
        return []
    return list(v) if isinstance(v, list) else [v]


def _fixed_joint(name: str, parent: str, child: str, xyz: tuple[float, float, float]) -> dict:
    return {
        "@name": name,
        "@type": "fixed",
        "parent": {"@link": parent},
        "child": {"@link": child},
        "origin": {"@xyz": " ".join(str(v) for v in xyz), "@rpy": "0 0 0"},
    }


@dataclass
class RobotModel:
    """A loaded arm+gripper body in one pybullet client, with its joint and link indices."""

    cid: int
    body: int
    arm: tuple[int, ...] = ()
    fingers: dict[int, float] = field(default_factory=dict)
    tcp: int = -1
    pads: tuple[int, int] = (-1, -1)
    gripper_links: tuple[int, ...] = ()
    _openings: tuple[
        tuple[float, float], ...
    ] = ()  # (finger angle rad, pad-origin distance m), angle rising

    spec: RobotSpec = UR5E
    base_links: tuple[int, ...] = (-1, 0, 1, 2)

    @property
    def home(self) -> tuple[float, ...]:
        return self.spec.home

    @property
    def limits(self) -> tuple[tuple[float, float], ...]:
        return self.spec.limits

    @classmethod
    def load(
        cls,
        cid: int,
        base: tuple[float, float, float] | None = None,
        robot: str | RobotSpec = DEFAULT_ROBOT,
        visual: bool = True,
    ) -> RobotModel:
        """Load `robot`'s arm + gripper URDF with its base at `base` (metres, world frame; default its
        spec's mount), at its home pose with the gripper open; visual=False: without its visual meshes
        (`collision_only`), for a body no camera sees. Raises KeyError for an unknown robot."""
        spec = robot_spec(robot)
        base = spec.mount if base is None else base
        with quiet():
            body = p.loadURDF(
                spec.urdf() if visual else collision_only(spec.urdf()),
                base,
                useFixedBase=True,
                flags=p.URDF_USE_SELF_COLLISION_EXCLUDE_ALL_PARENTS,
                physicsClientId=cid,
            )
        by_name: dict[str, int] = {}
        links: dict[str, int] = {}
        for j in range(p.getNumJoints(body, physicsClientId=cid)):
            info = p.getJointInfo(body, j, physicsClientId=cid)
            by_name[info[1].decode()] = j
            links[info[12].decode()] = j
        links[p.getBodyInfo(body, physicsClientId=cid)[0].decode()] = -1
        model = cls(
            cid=cid,
            body=body,
            arm=tuple(by_name[n] for n in spec.arm_joints),
            fingers={by_name[n]: m for n, m in FINGER_MIMIC.items()},
            tcp=links["tcp"],
            pads=(links["left_inner_finger_pad"], links["right_inner_finger_pad"]),
            spec=spec,
            base_links=tuple(links[n] for n in spec.base_links),
        )
        model.gripper_links = tuple(range(by_name["tool0_to_gripper"], model.tcp + 1))
        for j in range(p.getNumJoints(body, physicsClientId=cid)):
            p.changeDynamics(body, j, lateralFriction=1.0, physicsClientId=cid)
        model.reset_arm(spec.home)
        table = []
        for i in range(33):  # the opening as a function of the finger angle, once (for pre-shaping)
            model.reset_fingers(FINGER_CLOSED * i / 32)
            table.append((FINGER_CLOSED * i / 32, model.opening()))
        model._openings = tuple(table)
        model.reset_fingers(0.0)
        return model

    def angle_for_opening(self, width: float) -> float:
        """The finger angle (radians) at which the pads' surfaces are `width` metres apart (clipped
        to fully open .. closed), interpolated from a table made at load time."""
        gap = width + PAD_ORIGIN_OFFSET
        table = self._openings
        if gap >= table[0][1]:
            return 0.0
        for (a0, w0), (a1, w1) in zip(table, table[1:], strict=False):
            if w1 <= gap <= w0:
                return a0 + (a1 - a0) * (w0 - gap) / (w0 - w1)
        return table[-1][0]

    # -- kinematic setting (planning model and initial state) --------------------------------
    def reset_arm(self, q: tuple[float, ...] | list[float]) -> None:
        """Set the arm joints to q (radians) at rest, in one call: one forward-kinematics update
        instead of one per joint (5-6x faster; the planner sets the arm for every collision check)."""
        self._reset(self.arm, q)

    def reset_fingers(self, angle: float | tuple[float, ...]) -> None:
        """Set the finger joints: one driver angle (radians; the others by the mimic ratios) or, as
        `finger_joints()` returns them, every joint's own angle."""
        self._reset(tuple(self.fingers), self._finger_values(angle))

    def _reset(
        self, joints: tuple[int, ...] | list[int], values: tuple[float, ...] | list[float]
    ) -> None:
        if len(joints) != len(values):
            raise ValueError(f"{len(values)} values for {len(joints)} joints")
        p.resetJointStatesMultiDof(
            self.body,
            list(joints),
            [[float(v)] for v in values],
            targetVelocities=[[0.0]] * len(joints),
            physicsClientId=self.cid,
        )

    def finger_joints(self) -> tuple[float, ...]:
        """Every finger joint's angle now (radians, in the order of `fingers`). Closed on an object
        they leave the mimic ratios (a pad stopped on a can's wall while its knuckle turns on), so a
        grip is held at these: held at `finger_angle()` alone the pads swung 1-2 cm further in,
        through the wall of the can they held and into its cavity, where they caught the soup."""
        return tuple(
            s[0] for s in p.getJointStates(self.body, list(self.fingers), physicsClientId=self.cid)
        )

    def _finger_values(self, angle: float | tuple[float, ...]) -> tuple[float, ...]:
        if isinstance(angle, tuple):
            return angle
        return tuple(angle * m for m in self.fingers.values())

    def gripper_inside(self, body: int, depth: float = 0.001) -> bool:
        """Does any gripper link sit more than `depth` metres inside `body` (possible only while
        their contacts are switched off, as for a held object)?"""
        return any(
            c[8] < -depth
            for link in self.gripper_links
            for c in p.getClosestPoints(
                self.body, body, 0.0, linkIndexA=link, physicsClientId=self.cid
            )
        )

    def finger_links(self) -> tuple[set[int], set[int]]:
        """The link indices of the left and the right finger (outer and inner finger, pad): an object
        touching both sides after a close is held."""
        names = {
            p.getJointInfo(self.body, j, physicsClientId=self.cid)[12].decode(): j
            for j in range(p.getNumJoints(self.body, physicsClientId=self.cid))
        }
        return tuple(
            {names[f"{side}_{n}"] for n in ("inner_finger", "inner_finger_pad", "outer_finger")}
            for side in ("left", "right")
        )

    def arm_q(self) -> tuple[float, ...]:
        return tuple(s[0] for s in p.getJointStates(self.body, self.arm, physicsClientId=self.cid))

    def finger_angle(self) -> float:
        j = next(iter(self.fingers))
        return p.getJointState(self.body, j, physicsClientId=self.cid)[0]

    def opening(self) -> float:
        """Distance between the finger pads, metres (≈ 0.085 open, ≈ 0.008 closed on nothing)."""
        a = p.getLinkState(self.body, self.pads[0], physicsClientId=self.cid)[4]
        b = p.getLinkState(self.body, self.pads[1], physicsClientId=self.cid)[4]
        return math.dist(a, b)

    def tcp_pose(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """TCP (position, quaternion xyzw), world frame, from forward kinematics."""
        s = p.getLinkState(
            self.body, self.tcp, computeForwardKinematics=True, physicsClientId=self.cid
        )
        return s[4], s[5]

    # -- motor control (physics) -----------------------------------------------------------
    def command_arm(
        self,
        q: tuple[float, ...] | list[float],
        max_velocity: float = 2.0,
        velocities: tuple[float, ...] | None = None,
    ) -> None:
        """Position targets (rad); each joint no faster than max_velocity or its own limit (rad/s),
        or than its entry of `velocities` (rad/s) when given — joints slowed in proportion to how
        far each has to go arrive together, so the arm moves along the straight joint-space segment."""
        gain = {} if self.spec.position_gain is None else {"positionGain": self.spec.position_gain}
        velocities = velocities or (max_velocity,) * len(self.arm)
        for j, v, vmax, vj in zip(self.arm, q, self.spec.velocity_limits, velocities, strict=True):
            p.setJointMotorControl2(
                self.body,
                j,
                p.POSITION_CONTROL,
                targetPosition=v,
                force=300.0,
                maxVelocity=min(max_velocity, vmax, vj),
                physicsClientId=self.cid,
                **gain,
            )

    def command_fingers(self, angle: float | tuple[float, ...], force: float = 40.0) -> None:
        """Drive the finger joints to one driver angle (radians, mimic ratios) or to every joint's
        own angle (a tuple as `finger_joints()` returns), with at most `force` (N·m) each."""
        for j, v in zip(self.fingers, self._finger_values(angle), strict=True):
            p.setJointMotorControl2(
                self.body,
                j,
                p.POSITION_CONTROL,
                targetPosition=v,
                force=force,
                maxVelocity=FINGER_SPEED,
                physicsClientId=self.cid,
            )
