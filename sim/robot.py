"""The UR5e arm with a Robotiq 2F-85 gripper, as one pybullet body.

Both models come from `airo-models`; we join them at the UR's `tool0` flange and add a `tcp` link
between the finger pads (0.145 m along the flange z axis). The gripper's mimic joints are not
honoured by pybullet, so `RobotModel` drives all six finger joints from the one `finger_joint`
value in code (multipliers from the Robotiq URDF).
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache

import airo_models
import pybullet as p
from airo_models.urdf import read_urdf, write_urdf_to_file

from sim.quiet import quiet

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
PAD_ORIGIN_OFFSET = 0.007  # metres: the pads' link origins sit this much wider apart than their surfaces
# Where on the table the arm works comfortably (x, y lower and upper, metres, world frame): samplers
# put objects down only here, however large the surface (edges near the base or far away are
# reachable only in awkward poses from which the next pick fails).
WORKSPACE = ((0.32, -0.32), (0.76, 0.32))


@lru_cache(maxsize=1)
def ur5e_robotiq_urdf() -> str:
    """Path of the merged UR5e + Robotiq 2F-85 URDF (written once into a per-user cache dir)."""
    arm_path = airo_models.get_urdf_path("ur5e")
    grip_path = airo_models.get_urdf_path("robotiq_2f_85")
    arm = read_urdf(arm_path)
    grip = read_urdf(grip_path)
    from airo_models.urdf import make_paths_absolute

    make_paths_absolute(arm, arm_path)
    make_paths_absolute(grip, grip_path)
    robot = arm["robot"]
    g = grip["robot"]
    _prefix_clashing_names(robot, g, "gripper_")
    robot["link"] = _as_list(robot["link"]) + _as_list(g["link"])
    joints = _as_list(robot["joint"]) + _as_list(g["joint"])
    joints.append(_fixed_joint("tool0_to_gripper", "tool0", "gripper_base_link", (0, 0, 0)))
    robot["link"].append({"@name": "tcp"})
    joints.append(_fixed_joint("gripper_to_tcp", "gripper_base_link", "tcp", (0, 0, TCP_OFFSET)))
    robot["joint"] = joints
    if "material" in g:
        robot["material"] = _as_list(robot.get("material", [])) + _as_list(g["material"])
    digest = hashlib.sha1(repr(arm).encode() + repr(grip).encode()).hexdigest()[:10]
    cache = os.path.join(tempfile.gettempdir(), f"owl-bt-{os.getuid()}")
    os.makedirs(cache, exist_ok=True)
    out = os.path.join(cache, f"ur5e_robotiq_{digest}.urdf")
    if not os.path.exists(out):
        tmp = out + f".{os.getpid()}.tmp"
        write_urdf_to_file(arm, tmp)
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
    _openings: tuple[tuple[float, float], ...] = ()  # (finger angle rad, pad-origin distance m), angle rising

    @classmethod
    def load(cls, cid: int, base: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> RobotModel:
        """Load the merged URDF at `base` (metres, world frame), at HOME with the gripper open."""
        with quiet():
            body = p.loadURDF(
                ur5e_robotiq_urdf(),
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
        model = cls(
            cid=cid,
            body=body,
            arm=tuple(by_name[n] for n in ARM_JOINTS),
            fingers={by_name[n]: m for n, m in FINGER_MIMIC.items()},
            tcp=links["tcp"],
            pads=(links["left_inner_finger_pad"], links["right_inner_finger_pad"]),
        )
        model.gripper_links = tuple(range(by_name["tool0_to_gripper"], model.tcp + 1))
        for j in range(p.getNumJoints(body, physicsClientId=cid)):
            p.changeDynamics(body, j, lateralFriction=1.0, physicsClientId=cid)
        model.reset_arm(HOME)
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
        for j, v in zip(self.arm, q, strict=True):
            p.resetJointState(self.body, j, v, physicsClientId=self.cid)

    def reset_fingers(self, angle: float) -> None:
        for j, m in self.fingers.items():
            p.resetJointState(self.body, j, angle * m, physicsClientId=self.cid)

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
        s = p.getLinkState(self.body, self.tcp, computeForwardKinematics=True, physicsClientId=self.cid)
        return s[4], s[5]

    # -- motor control (physics) -----------------------------------------------------------
    def command_arm(self, q: tuple[float, ...] | list[float], max_velocity: float = 2.0) -> None:
        for j, v in zip(self.arm, q, strict=True):
            p.setJointMotorControl2(
                self.body, j, p.POSITION_CONTROL, targetPosition=v, force=300.0,
                maxVelocity=max_velocity, physicsClientId=self.cid,
            )

    def command_fingers(self, angle: float, force: float = 40.0) -> None:
        for j, m in self.fingers.items():
            p.setJointMotorControl2(
                self.body, j, p.POSITION_CONTROL, targetPosition=angle * m, force=force,
                maxVelocity=1.5, physicsClientId=self.cid,
            )
