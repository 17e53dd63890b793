"""The planner's side of the sandbox worker (`owl_bt.language.sandbox_worker`): starts it, sends it
checker programs and states, and enforces a wall-clock deadline on every answer.

One persistent worker per planner process, started at the first checker program. A batch of states
is sent in one request and answered one reply per state; each reply must come within
`CALL_DEADLINE_S` (or a call's own larger deadline) of the previous one, or the worker is killed and
the remaining states go to a fresh one. The planner waits in `poll`, so Ctrl-C and SIGTERM reach it
at once whatever the checker does; an interrupted exchange kills the worker (the next call starts a
new one). A process forked from the planner starts its own worker.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from owl_bt.errors import OwlError
from owl_bt.language.sandbox_wire import (
    HEADER,
    REPLY_LIMIT,
    encode_state,
    write_frame,
)
from owl_bt.state import WorldState

CALL_DEADLINE_S = 2.0  # wall clock one checker call may take before its worker is killed
START_DEADLINE_S = 30.0  # wall clock a worker may take to import and report ready
ROOT = str(Path(__file__).resolve().parents[2])  # the directory holding owl_bt/ and sim/
# -I: no environment variables, no user site, no current directory on the path; -S: no site
# packages at all (the worker imports only the standard library and owl_bt's plain modules)
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from owl_bt.language.sandbox_worker import main; main()"
)
CLEAN_ENV: dict[str, str] = {}  # the worker's whole environment


class SandboxUnavailable(OwlError):
    """The sandbox worker could not be started."""

    exit_code = 1


class Killed(Exception):
    """The worker did not answer in time (or died): it has been killed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Process:
    popen: subprocess.Popen
    send: int
    recv: int
    pid_of_parent: int
    buffer: bytearray
    limits: dict


class SandboxWorker:
    """A handle on the (re)startable worker process. Thread-safe: one exchange at a time."""

    def __init__(self) -> None:
        self._proc: _Process | None = None
        self._lock = threading.RLock()
        self._loaded: set[int] = set()  # program ids the running worker holds
        self._dropped: list[int] = []
        self.starts = 0
        self.kills = 0
        self.stopping = False  # the run is stopping: no checker runs (see stop)

    # -- process ------------------------------------------------------------------------------
    def _spawn(self) -> _Process:
        popen = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", BOOT, ROOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            env=dict(CLEAN_ENV),
            cwd="/",
            start_new_session=True,
        )
        proc = _Process(
            popen, popen.stdin.fileno(), popen.stdout.fileno(), os.getpid(), bytearray(), {}
        )
        self._proc = proc
        self._loaded = set()
        self.starts += 1
        write_frame(proc.send, pickle.dumps(("setup", _cavities(), _ends())))
        return proc

    def _ready(self, proc: _Process) -> _Process:
        if not proc.limits:
            try:
                proc.limits = self._reply(time.monotonic() + START_DEADLINE_S)
            except Killed as exc:
                raise SandboxUnavailable(
                    f"the checker sandbox did not start: {exc.reason}"
                ) from None
        return proc

    def _current(self) -> _Process | None:
        proc = self._proc
        if proc is not None and proc.pid_of_parent != os.getpid():
            self._proc = None  # forked: that worker is the parent's
            proc = None
        if proc is not None and proc.popen.poll() is not None:
            self._discard()
            proc = None
        return proc

    def prestart(self) -> None:
        """Start the worker now without waiting for it (its imports overlap the caller's work)."""
        with self._lock:
            if self._current() is None:
                self._spawn()

    def process(self) -> _Process:
        """The running worker, started (and waited for) if need be."""
        proc = self._current()
        return self._ready(proc if proc is not None else self._spawn())

    def _discard(self) -> None:
        proc, self._proc = self._proc, None
        self._loaded = set()
        if proc is None:
            return
        try:
            proc.popen.kill()
        except OSError:
            pass
        for f in (proc.popen.stdin, proc.popen.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            proc.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def kill(self) -> None:
        """End the worker now (a new one starts at the next call)."""
        with self._lock:
            if self._proc is not None and self._proc.pid_of_parent == os.getpid():
                self._discard()
            self._proc = None

    def stop(self) -> None:
        """The run is stopping (Ctrl-C, SIGTERM): kill the worker now, without waiting for a
        thread's exchange to end, and answer every call {"stopping": True} until `resume`. Safe to
        call from a signal handler (takes no lock)."""
        self.stopping = True
        proc = self._proc
        if proc is not None and proc.pid_of_parent == os.getpid():
            try:
                os.kill(proc.popen.pid, signal.SIGKILL)
            except OSError:
                pass

    def resume(self) -> None:
        """Run checkers again (a new run starts)."""
        self.stopping = False

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return None if proc is None else proc.popen.pid

    # -- frames -------------------------------------------------------------------------------
    def _send(self, request: tuple) -> None:
        proc = self.process()
        try:
            write_frame(proc.send, pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            self._fail("it had died")

    def _reply(self, deadline: float) -> dict:
        proc = self._proc
        assert proc is not None
        buf = proc.buffer
        poller = select.poll()
        poller.register(proc.recv, select.POLLIN | select.POLLHUP | select.POLLERR)
        while True:
            if len(buf) >= HEADER.size:
                (n,) = HEADER.unpack_from(buf)
                if n > REPLY_LIMIT:
                    self._fail("it sent an oversized reply")
                if len(buf) >= HEADER.size + n:
                    body = bytes(buf[HEADER.size : HEADER.size + n])
                    del buf[: HEADER.size + n]
                    try:
                        return json.loads(body)
                    except ValueError:
                        self._fail("it sent a reply that is not one")
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail(None)
            if not poller.poll(max(1, int(left * 1000))):
                continue
            chunk = os.read(proc.recv, 1 << 16)
            if not chunk:
                code = proc.popen.wait()
                self._fail(_death(code))
            buf += chunk

    def _fail(self, reason: str | None) -> None:
        self.kills += 1
        self._discard()
        raise Killed(reason or "no answer within the deadline")

    # -- requests -----------------------------------------------------------------------------
    def ensure(self, program_id: int, source: str, init_state: WorldState, env: tuple) -> None:
        """Have the running worker hold program `program_id` (compiled from vetted `source`)."""
        with self._lock:
            self.process()
            if self._dropped:
                self._send(("drop", self._dropped))
                self._dropped = []
            if program_id in self._loaded:
                return
            self._exchange(("load", program_id, source, encode_state(init_state, {}), env))
            self._loaded.add(program_id)

    def drop(self, program_id: int) -> None:
        """Forget program `program_id` (sent with the next request)."""
        if program_id in self._loaded:
            self._loaded.discard(program_id)
            self._dropped.append(program_id)

    def _exchange(self, request: tuple, deadline_s: float = CALL_DEADLINE_S) -> dict:
        try:
            self._send(request)
            return self._reply(time.monotonic() + deadline_s)
        except BaseException as exc:
            if not isinstance(exc, Killed):
                self._discard()  # interrupted mid-exchange: the stream is out of step
            raise

    def evaluate(
        self,
        program: tuple[int, str, WorldState, tuple],
        items: Sequence[tuple[str, WorldState]],
        time_limit_s: float,
        record: bool,
        deadline_s: float = CALL_DEADLINE_S,
    ) -> list[dict]:
        """One reply per (checker name, state) of `items`, in order: {"v": bool} | {"nb": type name}
        | {"e": error line, "k": key} | {"killed": reason}, with "f" the recorded (object, bounds)
        when `record`, "c" the call's CPU seconds. A killed call's worker is replaced and the
        remaining items go to the new one."""
        if self.stopping:
            return [{"stopping": True}] * len(items)
        memo: dict[int, tuple] = {}
        plain = [(name, encode_state(state, memo)) for name, state in items]
        out: list[dict] = []
        with self._lock:
            while len(out) < len(plain):
                if self.stopping:
                    return out + [{"stopping": True}] * (len(plain) - len(out))
                self.ensure(*program)
                batch = plain[len(out) :]
                try:
                    self._send(("eval", program[0], time_limit_s, record, batch))
                    for _ in batch:
                        out.append(self._reply(time.monotonic() + deadline_s))
                except Killed as exc:
                    out.append({"stopping": True} if self.stopping else {"killed": exc.reason})
                except BaseException:
                    self._discard()
                    raise
        return out

    def call(
        self,
        program: tuple[int, str, WorldState, tuple],
        name: str,
        state: WorldState,
        time_limit_s: float,
        record_draws: bool,
    ) -> dict:
        """`name(init_state)` on `state`: {"p": plain value} | {"e": …, "k": …} | {"killed": …}."""
        if self.stopping:
            return {"stopping": True}
        with self._lock:
            self.ensure(*program)
            request = (
                "call",
                program[0],
                name,
                encode_state(state, {}),
                time_limit_s,
                record_draws,
            )
            try:
                return self._exchange(request, max(CALL_DEADLINE_S, time_limit_s + 1.0))
            except Killed as exc:
                return {"stopping": True} if self.stopping else {"killed": exc.reason}

    def ping(self) -> dict:
        """One empty round trip (for measuring the overhead)."""
        with self._lock:
            return self._exchange(("ping",))


def _death(code: int | None) -> str:
    if code is None or code >= 0:
        return f"it exited (code {code})"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = str(-code)
    what = {"SIGXCPU": "its CPU limit", "SIGKILL": "a kill", "SIGSEGV": "a crash"}.get(name, name)
    return f"it was ended by {what} ({name})"


@functools.cache
def _cavities() -> dict[str, tuple]:
    from owl_bt.language.codebook_shape import cavity_table

    return cavity_table()


@functools.cache
def _ends() -> dict[str, dict]:
    from owl_bt.language.codebook_parts import ends_table

    return ends_table()


_SHARED: SandboxWorker | None = None


def shared() -> SandboxWorker:
    """The process's worker handle."""
    global _SHARED
    if _SHARED is None:
        _SHARED = SandboxWorker()
        atexit.register(_SHARED.kill)
    return _SHARED
