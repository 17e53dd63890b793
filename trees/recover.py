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

from owl_bt.state import WorldState
from owl_bt.tamp.motion import densify, plan_motion
from owl_bt.tamp.planning_model import PlanningModel
from skills.backend import ArmFault

TOUCH = 0.005  # metres: an object this close to the arm or hand counts as touching it
CAUGHT_NEAR = 0.02  # m: a thing this close to the arm or hand may hang on it (the camera sees it only in part)
CAUGHT_FREE = 0.01  # m: … when nothing else (the table, another object) is this close to carry it


def caught_on_hand(world: WorldState) -> tuple[str, ...]:
    """Objects that hang on the arm or hand, or on what it holds (a mug that came away on the open
    fingers as they left the strawberry put in it; a mug lifted with the orange wedged in its mouth):
    within CAUGHT_NEAR of the robot (or CAUGHT_FREE of what it holds), and carried by nothing fixed —
    no chain of things each within CAUGHT_FREE of the next (what is in the mug is carried with it)
    leads from it to the table or to what rides on the held object (its centre over the held object's
    footprint and above its bottom: the soup in a held can). The held object carries nothing else: a
    thing that hangs below it hangs on the hand. A scene with one is not at rest: no goal holds in it,
    and no skill can set the thing down."""
    model = PlanningModel(world)
    try:

        def near(a: int, b: int, d: float) -> bool:
            return bool(p.getClosestPoints(a, b, d, physicsClientId=model.cid))

        bodies = model.bodies
        held = bodies.get(model.held) if model.held is not None else None
        at_hand = [
            n
            for n, b in bodies.items()
            if n != model.held
            and not world.get(n).fixed
            and (
                near(model.robot.body, b, CAUGHT_NEAR)
                or (held is not None and near(held, b, CAUGHT_FREE))
            )
        ]
        if not at_hand:
            return ()
        # the table, regions and what rides on the held object carry what rests on (or in) them
        carried = {n for n in bodies if world.get(n).fixed} | set(_riders(world, model.held))
        grew = True
        while grew:
            new = {
                n
                for n, b in bodies.items()
                if n not in carried and any(near(b, bodies[c], CAUGHT_FREE) for c in carried)
            }
            carried |= new
            grew = bool(new)
        return tuple(n for n in at_hand if n not in carried)
    finally:
        model.close()


def leaning_on_hand(world: WorldState, hold: str | None = None) -> tuple[str, ...]:
    """Objects other than `hold` (the one the plan ends holding) within TOUCH of the arm or hand in
    the observed `world`, the robot at its observed joints: at a plan's end the hand should have left
    everything it put down (a banana stood on end that tipped against the open fingers is not at
    rest on its own, however the goal checkers judge it)."""
    model = PlanningModel(world)
    try:
        return model.near_robot(TOUCH, skip=(hold,) if hold else ())
    finally:
        model.close()


def _riders(world: WorldState, held: str | None) -> list[str]:
    """Movable objects whose centre is over the held object's footprint (its box in x, y) and above its
    bottom: what it carries (the soup in a held can, a fork leaning in a held mug). World frame."""
    if held is None:
        return []
    (ax, ay, az), (bx, by, _) = world.get(held).aabb()
    return [
        n
        for n, o in world.objects.items()
        if n != held
        and not o.fixed
        and ax <= o.pose.x <= bx
        and ay <= o.pose.y <= by
        and o.pose.z > az
    ]


def hanging(caught: tuple[str, ...], when: str, held: str | None = None) -> str:
    """The one-line reason for objects caught on the hand (or on the held object `held`)."""
    things = " and ".join(caught)
    verb = "hang" if len(caught) > 1 else "hangs"
    if held is not None:
        return (
            f"{things} {verb} on the {held} in the gripper {when} (it came away with it); no skill here can "
            f"set {'them' if len(caught) > 1 else 'it'} down: take it off and run again"
        )
    return (
        f"{things} {verb} on the gripper {when}, though it holds nothing "
        "(it came away with the fingers); no skill here can set it down: take it off the gripper and run again"
    )


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
        touching = model.near_robot(TOUCH, skip=(model.held,) if model.held else ())
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
