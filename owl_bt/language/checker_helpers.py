"""The helper functions the offline grounder's checkers call (on, inside, side, between, aligned,
far, upright, off, part, middle, tipped_over; and, in EXTRA, depth, apart and upside_down, put there only
when a checker calls them), as the source text put before its checkers: they run in the sandbox
with the codebook's functions (`get_obj_center`, `modify_pose_bounds_to_be_…`, `position_within_bounds`),
`state`, `init_state`, `env` and `init_bounds` in scope."""

from __future__ import annotations

import math

from owl_bt.language.perception_error import PERCEPTION_ERROR

# m: how far past the reference's edge across ("behind the bowl": the bowl's width in y) a thing beside it may
# still be, its centre: a person means the strip in line with the reference, not a diagonal 15 cm off
SIDE_SLACK = 0.03
SIDE_REACH = 0.12  # m from a movable reference's box a thing "left of" it may be, its centre
# a thing whose footprint is this many times longer than wide lies beside a reference along all its
# length: its whole box in the strip, not only its centre (a spoon "right of the plate" with its centre
# level with the plate's near rim stuck out 10 cm past it)
LONG_SIDE = 2.5
PART_MARGIN = 0.015  # m past an object's middle line a thing "on its left half" has its centre
# rad: the offline grounder's straight, parallel and perpendicular — 5 degrees inside the codebook's
# 15, so that a placement planned at the edge still reads so after execution and perception (a spoon
# planned 15 degrees off the fork came to rest 15.1 degrees off)
TURN_TOL = math.radians(10.0)
WHERE_WAS = 0.03  # m, x and y: how far from where a thing's centre was "where it was" may be
FAR_APART = 0.25  # m between the centres of a thing put "far from" another and that other (a third of the table's width)

RIM_MARGIN = 0.02  # m a centre "well inside" a round plate's or bowl's rim keeps from it

PRELUDE = """def within_rim(name, ref):
    # a round plate or bowl: the centre well inside its rim, not in the corners of its box (RIM_MARGIN m
    # from it, less the PERCEPTION_ERROR m an observed centre may be off: an orange resting near the
    # rim failed this after a perception error of a few mm)
    r = state.get(ref)
    w = min(r.size[0], r.size[1])
    if r.shape != "cylinder" or max(r.size[0], r.size[1]) > 1.1 * w:
        return True
    p, c = get_obj_center(state, env, name), get_obj_center(state, env, ref)
    return math.hypot(p[0] - c[0], p[1] - c[1]) <= w / 2 - RIM_MARGIN + PERCEPTION_ERROR

def on(name, surface):
    b = modify_pose_bounds_to_be_ontop_of_object(state, env, init_bounds, name, surface)
    if state.get(surface).shape == "region":
        # a flat mat or region: the thing on it, not straddling its edge (a centre 5 mm inside it left half
        # a strawberry off the region): at most a quarter of its width over the edge (on a strip narrower
        # than the thing, a red line, its centre on the strip's middle half)
        w = max(state.get(name).size[0], state.get(name).size[1]) / 4
        lo, hi = b
        k = [min(w, (hi[i] - lo[i]) / 4) for i in range(2)]
        b = ((lo[0] + k[0], lo[1] + k[1]) + lo[2:], (hi[0] - k[0], hi[1] - k[1]) + hi[2:])
    return position_within_bounds(get_obj_center(state, env, name), b) and within_rim(name, surface)

def inside(name, box):
    # centre over the container, lower end inside it (long things may stand out of it)
    lo, hi = modify_pose_bounds_to_be_inside_object(state, env, init_bounds, name, box)
    b = (lo, (hi[0], hi[1], hi[2] + 0.15, hi[3], hi[4], hi[5]))
    c = get_obj_center(state, env, name)
    olo, ohi = get_aabb_bounds(state, env, name)
    clo, chi = get_aabb_bounds(state, env, box)
    o = state.get(name)
    top = clo[2] + 0.75 * (chi[2] - clo[2])  # on its floor or low wall, not its rim
    if o.shape == "sphere":
        # a round thing lying tilted: its rotated box dips below it; its lowest point is at most half its length down
        low = clo[2] + 0.003 < max(olo[2], c[2] - max(o.size) / 2) < top
    else:
        # a long thing leaning in it on its rim has its centre within its walls (one leaning on it from
        # outside has its centre beside them) and touches down in its opening, well under the rim (one lying
        # across the rim, its handle on the table, touches down beside it); a camera sees a thing in a
        # container only in part: where it touches down is judged no finer than 1 cm across, 1.5 cm down
        m, s = get_obj_center(state, env, box), state.get(box).size
        walls = math.hypot(c[0] - m[0], c[1] - m[1]) <= min(s[0], s[1]) / 2
        end, mouth = get_lower_end(state, env, name), get_opening(state, env, box)
        if mouth is None:  # no known opening (a box of a thing): its box's lowest corner low in it
            low = walls and clo[2] - 0.015 < olo[2] < top
        else:
            x, y, r, floor, rim = mouth
            low = walls and math.hypot(end[0] - x, end[1] - y) <= r + 0.01 and floor - 0.015 < end[2] < top
    return position_within_bounds(c, b) and low and within_rim(name, box)

def side(name, relation, ref):
    b = init_bounds
    if relation == "left_of":
        b = modify_pose_bounds_to_be_left_of_object(state, env, b, ref)
    if relation == "right_of":
        b = modify_pose_bounds_to_be_right_of_object(state, env, b, ref)
    if relation == "behind":
        b = modify_pose_bounds_to_be_behind_object(state, env, b, ref)
    if relation == "in_front_of":
        b = modify_pose_bounds_to_be_in_front_of_object(state, env, b, ref)
    if relation == "near":
        b = modify_pose_bounds_to_be_near_object(state, env, b, ref, 0.15)
    if relation == "at_initial":
        # where ref's centre was at the start, within WHERE_WAS m in x and y (its box widened by 5 cm
        # let a swapped apple end 9 cm from the pear's old place)
        c = get_obj_center(init_state, env, ref)
        lo, hi = b
        b = (
            (max(lo[0], c[0] - WHERE_WAS), max(lo[1], c[1] - WHERE_WAS)) + lo[2:],
            (min(hi[0], c[0] + WHERE_WAS), min(hi[1], c[1] + WHERE_WAS)) + hi[2:],
        )
    p = get_obj_center(state, env, name)
    if relation in ("left_of", "right_of", "behind", "in_front_of"):
        # on that side and across from it: the centre in the strip as wide as the reference (plus SIDE_SLACK m
        # either side), not anywhere in the half of the table past it nor diagonally off it
        # (one box, so that a sampler guided by the bounds checked draws from the strip)
        k = 0 if relation in ("left_of", "right_of") else 1
        lo, hi = get_aabb_bounds(state, env, ref)
        blo, bhi = b
        b = (blo[:k] + (max(blo[k], lo[k] - SIDE_SLACK),) + blo[k + 1:], bhi[:k] + (min(bhi[k], hi[k] + SIDE_SLACK),) + bhi[k + 1:])
        if not state.get(ref).fixed:
            # beside it: within SIDE_REACH m of its box (the fork "left of the plate" lies next to it, not
            # across the table); a fixed marker (a line, a region) divides the table: all its side counts
            b = modify_pose_bounds_to_be_near_object(state, env, b, ref, SIDE_REACH)
            olo, ohi = get_aabb_bounds(state, env, name)
            dx, dy = ohi[0] - olo[0], ohi[1] - olo[1]
            if max(dx, dy) > LONG_SIDE * min(dx, dy) and not (lo[k] - SIDE_SLACK <= olo[k] and ohi[k] <= hi[k] + SIDE_SLACK):
                return False  # a long thing: along all its length
    return position_within_bounds(p, b)

def between(name, a, c):
    # on the stretch between the two centres: its middle 70 %, within 5 cm of the line joining them
    # (the box around both centres also held for a corner of it, far off the line)
    pa, pc = get_obj_center(state, env, a), get_obj_center(state, env, c)
    lo = (min(pa[0], pc[0]) - 0.05, min(pa[1], pc[1]) - 0.05, -1.0, -4.0, -4.0, -4.0)
    hi = (max(pa[0], pc[0]) + 0.05, max(pa[1], pc[1]) + 0.05, 3.0, 4.0, 4.0, 4.0)
    p = get_obj_center(state, env, name)
    dx, dy = pc[0] - pa[0], pc[1] - pa[1]
    span = math.hypot(dx, dy)
    if span < 1e-6:
        return False
    t = ((p[0] - pa[0]) * dx + (p[1] - pa[1]) * dy) / span ** 2
    off = abs((p[0] - pa[0]) * dy - (p[1] - pa[1]) * dx) / span
    return position_within_bounds(p, (lo, hi)) and 0.15 <= t <= 0.85 and off <= 0.05

def aligned(name, ref):
    r = get_obj_center(init_state, env, ref)
    b = ((r[0] - 0.03, -9.0, -1.0, -4.0, -4.0, -4.0), (r[0] + 0.03, 9.0, 3.0, 4.0, 4.0, 4.0))
    return position_within_bounds(get_obj_center(state, env, name), b)

def far(name, left):
    w = env.table_upper[1] - env.table_lower[1]
    lo, hi = init_bounds
    if left:
        b = ((lo[0], env.table_upper[1] - 0.3 * w) + lo[2:], hi)
    else:
        b = (lo, (hi[0], env.table_lower[1] + 0.3 * w) + hi[2:])
    return position_within_bounds(get_obj_center(state, env, name), b)

def upright(name):
    p = get_obj_center(state, env, name)
    return math.cos(p[3]) * math.cos(p[4]) > 0.95

def off(name, surface):
    lo, hi = get_aabb_bounds(state, env, name)
    slo, shi = get_aabb_bounds(state, env, surface)
    return hi[0] + 0.03 < slo[0] or lo[0] - 0.03 > shi[0] or hi[1] + 0.03 < slo[1] or lo[1] - 0.03 > shi[1]

def part(name, surface, relation):
    # on that half of the surface (the other half left free); of a container, that half of its opening
    p, c = get_obj_center(state, env, name), get_obj_center(state, env, surface)
    mouth = get_opening(state, env, surface)
    if mouth is not None:  # (a pan's box reaches out along its handle; its opening's centre does not)
        c = (mouth[0], mouth[1])
    # the centre PART_MARGIN m past the middle line: a round thing set on the line may roll across it
    if relation == "left_of":
        return p[1] > c[1] + PART_MARGIN
    if relation == "right_of":
        return p[1] < c[1] - PART_MARGIN
    if relation == "behind":
        return p[0] > c[0] + PART_MARGIN
    return p[0] < c[0] - PART_MARGIN

def middle(name, surface):
    # the centre on the middle fifth of the surface each way (at least 3 cm either side)
    p = get_obj_center(state, env, name)
    lo, hi = get_aabb_bounds(state, env, surface)
    return all(abs(p[k] - (lo[k] + hi[k]) / 2) <= max(0.03, 0.1 * (hi[k] - lo[k])) for k in (0, 1))

def tipped_over(name, target, cos_max):
    # over the target and tipped past 120 degrees; into a container past ~134 (cos_max -0.7): a can
    # poured at 122 degrees kept its soup on the arm
    b = modify_pose_bounds_to_be_above_object(state, env, init_bounds, target)
    p = get_obj_center(state, env, name)
    return position_within_bounds(p, b) and math.cos(p[3]) * math.cos(p[4]) < cos_max
"""
for _name, _value in (
    ("SIDE_SLACK", SIDE_SLACK),
    ("WHERE_WAS", WHERE_WAS),
    ("RIM_MARGIN", RIM_MARGIN),
    ("PERCEPTION_ERROR", PERCEPTION_ERROR),
    ("PART_MARGIN", PART_MARGIN),
    ("SIDE_REACH", SIDE_REACH),
    ("LONG_SIDE", LONG_SIDE),
):
    PRELUDE = PRELUDE.replace(_name, repr(_value))

# helpers put before the checkers only when a checker calls them (the prelude of the other answers stays as it was)
EXTRA = {
    "depth": """def depth(name, back):
    # robot frame (base at the origin, +x away from it, metres): the third of the table farthest from the
    # robot ("at the back", "far from the robot") or nearest it ("at the front", "near the robot")
    d = env.table_upper[0] - env.table_lower[0]
    lo, hi = init_bounds
    if back:
        b = ((env.table_upper[0] - 0.3 * d,) + lo[1:], hi)
    else:
        b = (lo, (env.table_lower[0] + 0.3 * d,) + hi[1:])
    return position_within_bounds(get_obj_center(state, env, name), b)

""",
    "apart": """def apart(name, ref):
    # "far from": the centres at least FAR_APART m apart across the table
    p, r = get_obj_center(state, env, name), get_obj_center(state, env, ref)
    return math.hypot(p[0] - r[0], p[1] - r[1]) >= FAR_APART

""".replace("FAR_APART", repr(FAR_APART)),
    "straight": """def straight(name):
    # lying flat, its long side along x (away from the robot) within 10 degrees
    return is_upright(state, env, name) and is_straight(state, env, name, TURN_TOL)

""".replace("TURN_TOL", repr(TURN_TOL)),
    "points": """def points(name, end, direction):
    # its end `end` (the catalogue's ends; 'front') pointing along direction within 20 degrees; lying
    # flat (standing as in the catalogue) unless the direction is up or down
    flat = abs(direction[2]) > 0.5 or is_upright(state, env, name)
    return flat and points_towards(state, env, name, end, direction)

""",
    "parallel": """def parallel(name, ref):
    # lying flat, its long side and ref's within 10 degrees of each other, seen from above
    return is_upright(state, env, name) and is_parallel(state, env, name, ref, TURN_TOL)

""".replace("TURN_TOL", repr(TURN_TOL)),
    "perpendicular": """def perpendicular(name, ref):
    # lying flat, its long side within 10 degrees of square to ref's, seen from above
    a, b = get_long_axis_yaw(state, env, name), get_long_axis_yaw(state, env, ref)
    return is_upright(state, env, name) and yaw_difference(a, b) >= math.pi / 2 - TURN_TOL

""".replace("TURN_TOL", repr(TURN_TOL)),
    "held": """def held(name):
    # in the gripper now (the robot state's held object)
    return state.robot is not None and state.robot.held == name

""",
    "upside_down": """def upside_down(name):
    # the opposite of upright: its own +z axis within ~18 degrees of straight down
    p = get_obj_center(state, env, name)
    return math.cos(p[3]) * math.cos(p[4]) < -0.95

""",
}
