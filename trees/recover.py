"""Recovery after a failed or off-plan step: take the arm home, clear of the scene, before the next
observation — so that the replan sees the objects as they rest on their own (not leaning on a
finger) and starts from a free configuration.

The motion is planned in a planning model built from a fresh observation; objects the hand is
touching now are ignored for the start of the motion (the hand leaves them). What the hand holds
stays held. A recovery that finds no motion leaves the arm where it is (the replan then plans from
there); it never raises.
"""

from __future__ import annotations

import pybullet as p

from owl_bt.tamp.motion import densify, plan_motion
from owl_bt.tamp.planning_model import PlanningModel
from skills.backend import ArmFault

TOUCH = 0.005  # metres: an object this close to the arm or hand counts as touching it


def retreat_home(services, known: tuple[str, ...] = ()) -> bool:
    """Move the arm home along a collision-free path (radians, the robot's joint order); True when
    it got there. `services`: the executive's services (backend, perception, log); `known`: objects
    seen before (a look that misses one looks again: the path must not run through it)."""
    from trees.observe import confirmed_observation

    backend = services.backend
    try:
        world = confirmed_observation(services.perception, known)[0].world
    except Exception as exc:  # an observation failing here is reported by the next perceive
        services.log("recover", outcome="no observation", reason=str(exc))
        return False
    model = PlanningModel(world)
    try:
        q0 = model.robot.arm_q()
        touching = tuple(name for name, body in model.bodies.items() if name not in (model.held, "table") and p.getClosestPoints(
            model.robot.body, body, TOUCH, physicsClientId=model.cid))
        path = plan_motion(model, q0, model.robot.home, ignore=touching)
    finally:
        model.close()
    if path is None:
        services.log("recover", outcome="no path home", touching=list(touching))
        return False
    try:
        backend.execute_trajectory(densify(path))
    except ArmFault as exc:
        services.log("recover", outcome="stopped", reason=str(exc))
        return False
    services.log("recover", outcome="home", touching=list(touching))
    return True
