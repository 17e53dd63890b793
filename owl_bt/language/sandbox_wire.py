"""What goes over the pipe between the planner and the sandbox worker.

Frames are a 4-byte big-endian length and a body. Requests (planner → worker) are pickled tuples of
plain data; the worker trusts its parent. Replies (worker → planner) are JSON, so nothing the
checker code returned can make the planner run code when it is read, and at most REPLY_LIMIT bytes.

World states travel as plain tuples (`encode_state` / `decode_state`): an object state is
(name, category, pose 6-tuple, size 3-tuple, shape, rgba, mass, friction, fixed, colour, kind). Within
one request, an object state shared by several states is encoded once (pickle keeps one copy of a
tuple referred to twice), so a batch of candidate states differing in one object's pose stays small.
"""

from __future__ import annotations

import json
import os
import struct

from owl_bt.state import ObjectState, Pose, RobotState, WorldState

HEADER = struct.Struct(">I")
REQUEST_LIMIT = 1 << 30
REPLY_LIMIT = 4 << 20  # bytes of one reply: a checker's answer is a verdict, a plan, an error line


class WireError(Exception):
    """The other end closed the pipe or sent a frame that is not one."""


def encode_state(state: WorldState, memo: dict[int, tuple]) -> tuple:
    """`state` as plain tuples; `memo` (id of an ObjectState → its tuple) shares repeated objects."""
    objects = []
    for obj in state.objects.values():
        got = memo.get(id(obj))
        if got is None:
            got = (
                obj.name,
                obj.category,
                obj.pose.as_tuple(),
                tuple(obj.size),
                obj.shape,
                tuple(obj.rgba),
                obj.mass,
                obj.friction,
                obj.fixed,
                obj.colour,
                obj.kind,
            )
            memo[id(obj)] = got
        objects.append(got)
    r = state.robot
    robot = None if r is None else (tuple(r.joints), r.gripper_width, r.held, r.arm)
    return (tuple(objects), robot, state.source)


def decode_state(plain: tuple, memo: dict[int, ObjectState]) -> WorldState:
    """The WorldState of `encode_state`'s tuples; `memo` (id of a tuple → ObjectState) decodes a
    shared object once."""
    objects, robot, source = plain
    out = {}
    for t in objects:
        obj = memo.get(id(t))
        if obj is None:
            name, category, pose, size, shape, rgba, mass, friction, fixed, colour, kind = t
            obj = ObjectState(
                name, category, Pose(*pose), size, shape, rgba, mass, friction, fixed, colour, kind
            )
            memo[id(t)] = obj
        out[obj.name] = obj
    rs = None if robot is None else RobotState(*robot)
    return WorldState(objects=out, robot=rs, source=source)


def write_frame(fd: int, body: bytes) -> None:
    """Write one frame to `fd` (blocking, whole)."""
    data = HEADER.pack(len(body)) + body
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_exact(fd: int, n: int) -> bytes:
    """Exactly `n` bytes from `fd` (blocking); raises WireError at end of file."""
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise WireError("the pipe closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, limit: int) -> bytes:
    """One frame's body from `fd` (blocking); raises WireError on end of file or an oversize frame."""
    (n,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if n > limit:
        raise WireError(f"a frame of {n} bytes, over the limit of {limit}")
    return read_exact(fd, n)


def dump_reply(reply: dict) -> bytes:
    return json.dumps(reply, separators=(",", ":")).encode()
