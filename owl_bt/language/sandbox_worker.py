"""The sandbox worker: a separate process that runs generated checker code behind limits the
operating system enforces (started and fed by `owl_bt.language.sandbox_client`).

Before it reads the first request the worker imports everything checker code can reach, then:
- RLIMIT_AS: its address space may grow by at most MEMORY_BYTES past what the imports took;
- RLIMIT_NOFILE: no file descriptor beyond its two pipes and /dev/null (stdin, stdout, stderr) can
  be opened — no file, socket or pipe — and RLIMIT_NPROC 0: it cannot start a process;
- RLIMIT_CPU: before each checker call the soft limit is set CPU_BACKSTOP_S past the CPU time used
  so far, so a call stuck in C is killed by the kernel even if nobody is waiting for it;
- when the kernel allows it, a new user and network namespace: no network interface but loopback.
It runs `python -I -S` (the standard library and owl_bt's plain modules only: no site packages,
no numpy) with an empty environment, Ctrl-C from the terminal does not reach it (the planner ends
it), and it exits when its input pipe closes.

Requests and replies: `owl_bt.language.sandbox_wire`.
"""

from __future__ import annotations

import ast
import ctypes
import math
import os
import pickle
import resource
import signal
import sys
import time

import owl_bt.language.codebook_shape as shape
from owl_bt.language import codebook, codebook_args, codebook_parts
from owl_bt.language.sandbox_exec import Program
from owl_bt.language.sandbox_wire import (
    REQUEST_LIMIT,
    WireError,
    decode_state,
    dump_reply,
    read_frame,
    write_frame,
)
from owl_bt.tamp import bounds_record

MEMORY_BYTES = 512 << 20  # address space a worker may add past its imports
CPU_BACKSTOP_S = 2  # CPU seconds one call may use before the kernel ends the worker
PLAIN_DEPTH = 8  # nesting of a value a function may return (a plan: steps of tuples)
PLAIN_ITEMS = 20_000  # numbers, strings … in such a value
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000


def _warm_up() -> None:
    """Load what checker code may reach lazily: nothing can be opened once the limits are set. (The
    object catalogue's container shapes come from the planner: `("setup", cavities)`.)"""
    codebook.sample_ravenpose_uniformly_within_bounds(((0.0,) * 6, (1.0,) * 6))
    codebook_args.quoted([(1.0,)])


def _no_network() -> bool:
    """Enter a new user and network namespace (only loopback, down) when the kernel allows it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0
    except (OSError, AttributeError):
        return False


def _vm_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _limit_self() -> dict:
    """Set the process limits; what was set, for the hello line."""
    netns = _no_network()
    memory = _vm_bytes() + MEMORY_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    os.closerange(3, 1 << 16)
    resource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    except (ValueError, OSError):
        pass
    return {"memory": memory, "netns": netns}


def _cpu_backstop() -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    soft = math.ceil(spent) + CPU_BACKSTOP_S
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


class NotPlain(Exception):
    pass


def to_plain(value: object, drawn: dict[int, tuple], budget: list[int], depth: int = 0) -> object:
    """`value` as JSON data: numbers, strings, None, lists; a tuple a recording sampler drew is
    {"drawn": pose, "bounds": [lower, upper]}, a Pose its six numbers. Raises NotPlain."""
    budget[0] -= 1
    if budget[0] < 0 or depth > PLAIN_DEPTH:
        raise NotPlain("a value too large or too deeply nested")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        return float(value) if isinstance(value, float) or abs(value) > 2**53 else value
    if id(value) in drawn:
        lo, hi = drawn[id(value)]
        return {"drawn": [float(v) for v in value], "bounds": [list(lo), list(hi)]}
    if isinstance(value, codebook.Pose):
        return list(value.as_tuple())
    if isinstance(value, list | tuple):
        return [to_plain(v, drawn, budget, depth + 1) for v in value]
    raise NotPlain(f"a value of type {type(value).__name__}")


def _plain_bounds(bounds: object) -> list | None:
    try:
        lo, hi = bounds  # type: ignore[misc]
        return [[float(v) for v in lo][:6], [float(v) for v in hi][:6]]
    except (TypeError, ValueError):
        return None


class Worker:
    def __init__(self) -> None:
        self.programs: dict[int, Program] = {}

    def load(self, set_id: int, source: str, init_plain: tuple, env: tuple) -> dict:
        tree = ast.parse(source)  # vetted by the parent (`sandbox.check_source`)
        init = decode_state(init_plain, {})
        self.programs[set_id] = Program(tree, source, init, codebook.Env(*env))
        return {"ok": True}

    def evaluate(self, set_id: int, limit: float, record: bool, items: list) -> None:
        program = self.programs[set_id]
        memo: dict = {}
        for name, plain in items:
            state = decode_state(plain, memo)
            _cpu_backstop()
            t0 = time.thread_time()
            if record:
                with bounds_record.record_bounds() as found:
                    value, failure = program.call(name, state, (), limit)
            else:
                value, failure, found = *program.call(name, state, (), limit), []
            reply: dict = {"c": time.thread_time() - t0}
            if failure is not None:
                reply.update(e=failure.message, k=list(failure.key))
            elif isinstance(value, bool | int) or type(value).__name__ == "bool_":
                reply["v"] = bool(value)
            else:
                reply["nb"] = type(value).__name__
            if found:
                reply["f"] = [
                    [str(o), b] for o, raw in found if (b := _plain_bounds(raw)) is not None
                ]
            write_frame(1, dump_reply(reply))

    def call(self, set_id: int, name: str, plain: tuple, limit: float, record: bool) -> dict:
        program = self.programs[set_id]
        state = decode_state(plain, {})
        drawn: dict[int, tuple] = {}
        sampler = codebook.sample_ravenpose_uniformly_within_bounds

        def recording_sampler(bounds, rng=None):
            pose = sampler(bounds, rng)
            drawn[id(pose)] = bounds
            return pose

        if record:
            program.globals["sample_ravenpose_uniformly_within_bounds"] = recording_sampler
        _cpu_backstop()
        try:
            value, failure = program.call(name, state, (program.globals["init_state"],), limit)
        finally:
            program.globals["sample_ravenpose_uniformly_within_bounds"] = sampler
        if failure is not None:
            return {"e": failure.message, "k": list(failure.key)}
        try:
            return {"p": to_plain(value, drawn, [PLAIN_ITEMS])}
        except NotPlain as exc:
            return {"e": f"{name}: returned {exc}, not plain data", "k": [name, None, "plain"]}

    def serve(self) -> None:
        while True:
            try:
                request = pickle.loads(read_frame(0, REQUEST_LIMIT))
            except WireError:
                return
            op, args = request[0], request[1:]
            if op == "eval":
                self.evaluate(*args)
                continue
            if op == "setup":
                shape.CAVITIES = {k: (tuple(a), tuple(b)) for k, (a, b) in args[0].items()}
                if len(args) > 1:  # the catalogue's named ends (codebook_parts)
                    codebook_parts.ENDS = {k: dict(v) for k, v in args[1].items()}
                continue
            if op == "drop":
                for set_id in args[0]:
                    self.programs.pop(set_id, None)
                continue
            if op == "load":
                reply = self.load(*args)
            elif op == "call":
                reply = self.call(*args)
            else:
                reply = {"pong": os.getpid()}
            write_frame(1, dump_reply(reply))


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _warm_up()
    limits = _limit_self()
    write_frame(1, dump_reply({"ready": os.getpid(), **limits}))
    sys.stdout = sys.stderr  # nothing but frames on the reply pipe
    Worker().serve()


if __name__ == "__main__":
    main()
