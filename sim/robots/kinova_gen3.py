"""A Kinova Gen3 7-DoF arm with a Robotiq 2F-85 gripper, as one URDF written from the published
kinematics (Kinova's Gen3 user guide and its `kortex_description` model): joint origins and axes,
joint limits and velocity limits below. Links are simple cylinders of about the actuators' size
(large actuators j1–j4 ⌀ 9 cm, small ones j5–j7 ⌀ 7 cm) with the published masses.

Frames: the base frame has z up through joint 1; at q = 0 the arm stands straight up and the
`end_effector_link` (the tool flange, z pointing out of it) is 1.1874 m above the base. The
gripper (`airo-models`' Robotiq 2F-85, as on the UR5e) is mounted on `end_effector_link` with no
offset, and a `tcp` link sits between the finger pads 0.145 m along the flange's z axis. The
endless joints j1, j3, j5, j7 are written as revolute joints with a ±4π range (`ENDLESS_RANGE`).
"""

from __future__ import annotations

import math

PI = math.pi
# (joint, parent link, child link, origin xyz (m), origin rpy (rad), type, limit (rad), velocity (rad/s))
JOINTS: tuple[tuple, ...] = (
    (
        "joint_1",
        "base_link",
        "shoulder_link",
        (0, 0, 0.15643),
        (PI, 0, 0),
        "continuous",
        None,
        1.3963,
    ),
    (
        "joint_2",
        "shoulder_link",
        "half_arm_1_link",
        (0, 0.005375, -0.12838),
        (PI / 2, 0, 0),
        "revolute",
        2.24,
        1.3963,
    ),
    (
        "joint_3",
        "half_arm_1_link",
        "half_arm_2_link",
        (0, -0.21038, -0.006375),
        (-PI / 2, 0, 0),
        "continuous",
        None,
        1.3963,
    ),
    (
        "joint_4",
        "half_arm_2_link",
        "forearm_link",
        (0, 0.006375, -0.21038),
        (PI / 2, 0, 0),
        "revolute",
        2.57,
        1.3963,
    ),
    (
        "joint_5",
        "forearm_link",
        "spherical_wrist_1_link",
        (0, -0.20843, -0.006375),
        (-PI / 2, 0, 0),
        "continuous",
        None,
        1.2218,
    ),
    (
        "joint_6",
        "spherical_wrist_1_link",
        "spherical_wrist_2_link",
        (0, 0.00017505, -0.10593),
        (PI / 2, 0, 0),
        "revolute",
        2.09,
        1.2218,
    ),
    (
        "joint_7",
        "spherical_wrist_2_link",
        "bracelet_link",
        (0, -0.10593, -0.00017505),
        (-PI / 2, 0, 0),
        "continuous",
        None,
        1.2218,
    ),
)
END_EFFECTOR = ("end_effector", "bracelet_link", "end_effector_link", (0, 0, -0.061525), (PI, 0, 0))
ARM_JOINTS = tuple(j[0] for j in JOINTS)
VELOCITY_LIMITS = tuple(j[7] for j in JOINTS)
# Published link masses (kg), base first.
MASSES = {
    "base_link": 1.697,
    "shoulder_link": 1.3773,
    "half_arm_1_link": 1.1636,
    "half_arm_2_link": 1.1636,
    "forearm_link": 0.9302,
    "spherical_wrist_1_link": 0.6781,
    "spherical_wrist_2_link": 0.6781,
    "bracelet_link": 0.5006,
}
RADII = {
    "base_link": 0.05,
    "shoulder_link": 0.046,
    "half_arm_1_link": 0.046,
    "half_arm_2_link": 0.046,
    "forearm_link": 0.046,
    "spherical_wrist_1_link": 0.036,
    "spherical_wrist_2_link": 0.036,
    "bracelet_link": 0.036,
}
# The four endless joints (j1, j3, j5, j7) are declared revolute with this range (rad), wider than any
# window we plan in: pybullet simulates a URDF "continuous" joint differently from a limited one, and
# with them the gripper's finger contacts drifted (one side closed further than the other, and 7 in 40
# lemon lifts stalled against the grasp constraint; with limits, as on the UR5e, none did).
ENDLESS_RANGE = 4 * PI
FLANGE_HEIGHT_AT_ZERO = (
    0.15643 + 0.12838 + 0.21038 + 0.21038 + 0.20843 + 0.10593 + 0.10593 + 0.061525
)  # = 1.187385 m


def _vec(xyz) -> str:
    return " ".join(f"{v:.10g}" for v in xyz)


def _cylinder_link(name: str, segment: tuple[float, float, float]) -> dict:
    """A link whose shape is a cylinder from its origin to `segment` (its child joint's origin, m)."""
    length = math.sqrt(sum(v * v for v in segment))
    pitch = math.atan2(math.hypot(segment[0], segment[1]), segment[2])
    yaw = math.atan2(segment[1], segment[0])
    centre = tuple(v / 2 for v in segment)
    radius, mass = RADII[name], MASSES[name]
    ixx = mass * (3 * radius**2 + length**2) / 12
    izz = mass * radius**2 / 2
    geometry = {"cylinder": {"@radius": f"{radius}", "@length": f"{length:.6f}"}}
    origin = {"@xyz": _vec(centre), "@rpy": _vec((0.0, pitch, yaw))}
    return {
        "@name": name,
        "inertial": {
            "origin": origin,
            "mass": {"@value": f"{mass}"},
            "inertia": {
                "@ixx": f"{ixx:.6g}",
                "@ixy": "0",
                "@ixz": "0",
                "@iyy": f"{ixx:.6g}",
                "@iyz": "0",
                "@izz": f"{izz:.6g}",
            },
        },
        "visual": {"origin": origin, "geometry": geometry, "material": {"@name": "kinova_grey"}},
        "collision": {"origin": origin, "geometry": geometry},
    }


def _child_offset(link: str) -> tuple[float, float, float]:
    for joint in (*JOINTS, END_EFFECTOR):
        if joint[1] == link:
            xyz = joint[3]
            return (
                xyz if link != "bracelet_link" else (0.0, 0.0, -0.045)
            )  # the bracelet's body, not the flange
    raise KeyError(link)


def arm_urdf() -> dict:
    """The bare arm (base_link … end_effector_link) as an xmltodict URDF document; the continuous
    joints of `JOINTS` are written as revolute within ±`ENDLESS_RANGE` (see there)."""
    links = [_cylinder_link(name, _child_offset(name)) for name in MASSES]
    links.append(
        {
            "@name": "end_effector_link",  # a frame, not a body: a token mass (pybullet would add 1 kg)
            "inertial": {
                "mass": {"@value": "0.001"},
                "inertia": {
                    "@ixx": "1e-7",
                    "@ixy": "0",
                    "@ixz": "0",
                    "@iyy": "1e-7",
                    "@iyz": "0",
                    "@izz": "1e-7",
                },
            },
        }
    )
    joints = []
    for name, parent, child, xyz, rpy, kind, limit, velocity in JOINTS:
        if kind == "continuous":
            kind, limit = "revolute", ENDLESS_RANGE
        joint = {
            "@name": name,
            "@type": kind,
            "parent": {"@link": parent},
            "child": {"@link": child},
            "origin": {"@xyz": _vec(xyz), "@rpy": _vec(rpy)},
            "axis": {"@xyz": "0 0 1"},
            "limit": {"@effort": "39" if velocity > 1.3 else "9", "@velocity": f"{velocity}"},
        }
        if limit is not None:
            joint["limit"].update({"@lower": f"{-limit}", "@upper": f"{limit}"})
        joints.append(joint)
    name, parent, child, xyz, rpy = END_EFFECTOR
    joints.append(
        {
            "@name": name,
            "@type": "fixed",
            "parent": {"@link": parent},
            "child": {"@link": child},
            "origin": {"@xyz": _vec(xyz), "@rpy": _vec(rpy)},
        }
    )
    return {
        "robot": {
            "@name": "kinova_gen3",
            "material": [{"@name": "kinova_grey", "color": {"@rgba": "0.6 0.6 0.62 1"}}],
            "link": links,
            "joint": joints,
        }
    }
