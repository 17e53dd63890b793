"""An in-process fake UR at the `ur_rtde` boundary (`rtde_control`, `rtde_receive`, `dashboard_client`)
and a Robotiq 2F-85 URCap on a real TCP socket on 127.0.0.1.

`FakeControl.moveJ(path, asynchronous)` moves the arm as a UR does: the leading joint of each entry
follows a speed profile limited by the entry's acceleration, the arm comes to rest at every waypoint
whose blend radius is 0 and passes blended ones at speed (integrated in 1 ms steps; `modelled_s`
holds each path's arm time). Time runs `time_scale` times faster than the arm's. The watchdog is the
controller's: once set, kicks slower than its frequency end the control script and stop the arm.
Scenarios play how the next moveJ goes: 'end', 'refuse', 'never', 'protective' ('protective-once':
the moves after it go well), 'disconnect',
'contact' (the tool force rises 25 N halfway, the path then runs on unless stopped).

`RobotiqServer` speaks the URCap's socket protocol (SET … / GET …): a request is taken (PRE echoes
it, OBJ goes 0) after `take_s`, the fingers then move at a finite speed (GET POS is the measured
position) and stop at the request (OBJ 3) or on an object at `object_at` (OBJ 2); `drop()` lets the
held object slip out (the fingers close on, OBJ 3), and `drop_on_carry` does so during the next
motion that starts while the hand holds something.
"""

from __future__ import annotations

import math
import socketserver
import sys
import threading
import time
import types

from sim.robot import HOME

DT = 0.001  # s: the fake arm's integration step


def arm_time(start, path) -> tuple[float, list[float]]:
    """The fake arm's time (s) for a moveJ path and the time at which it reaches each waypoint:
    per run between stops, the leading joint's speed rises and falls at the entry's acceleration,
    never above the entry's speed, and reaches 0 at each unblended waypoint."""
    t, prev, reached, run = 0.0, list(start), [], []
    for k, entry in enumerate(path):
        q = list(entry[:6])
        run.append((max(abs(a - b) for a, b in zip(q, prev, strict=True)), entry[6], entry[7]))
        prev = q
        if entry[8] <= 0.0 or k == len(path) - 1:
            for dt in _integrate(run):
                t += dt
                reached.append(t)
            run = []
    return t, reached


def _integrate(run) -> list[float]:
    """Seconds spent on each segment of one run (1-D, from rest to rest)."""
    lengths = [seg for seg, _, _ in run]
    left_after = [sum(lengths[i + 1 :]) for i in range(len(run))]
    times, speed = [], 0.0
    for (length, vmax, acc), after in zip(run, left_after, strict=True):
        s, spent = 0.0, 0.0
        while s < length - 1e-12:
            to_stop = length - s + after
            limit = min(vmax, math.sqrt(max(0.0, 2 * acc * to_stop)))
            speed = min(limit, speed + acc * DT) if speed < limit else max(limit, speed - acc * DT)
            speed = max(speed, acc * DT)  # creep on the last millimetre
            s += speed * DT
            spent += DT
        times.append(spent)
    return times


class FakeReceive:
    """`rtde_receive.RTDEReceiveInterface`'s methods the backend reads."""

    def __init__(self, *args) -> None:
        self.q = list(HOME)
        self.connected, self.protective, self.emergency = True, False, False
        self.force = [0.5, 0.0, -3.0, 0.0, 0.0, 0.0]  # N, N·m: a small resting offset

    def getActualQ(self):  # noqa: N802 - ur_rtde's names
        return list(self.q)

    def isConnected(self):  # noqa: N802
        return self.connected

    def getActualTCPForce(self):  # noqa: N802
        return list(self.force)

    def isProtectiveStopped(self):  # noqa: N802
        return self.protective

    def isEmergencyStopped(self):  # noqa: N802
        return self.emergency

    def disconnect(self) -> None:
        self.connected = False


class FakeControl:
    """`rtde_control.RTDEControlInterface`'s methods; see the module docstring."""

    def __init__(self, receive: FakeReceive, scenario: str = "end", time_scale: float = 0.02):
        self.r, self.scenario, self.time_scale = receive, scenario, time_scale
        self.paths: list[list[list[float]]] = []
        self.modelled_s: list[float] = []
        self.stops: list[float] = []
        self.program_running, self.uploads = True, 0
        self.watchdog_hz: float | None = None
        self.kicks = 0
        self.on_move = None  # called with the path when a moveJ starts
        self._last_kick = time.monotonic()
        self._running = False
        self._halt = threading.Event()
        self._alive = True

    # -- the controller's watchdog ----------------------------------------------------------------
    def setWatchdog(self, min_frequency=10.0):  # noqa: N802
        if self.watchdog_hz is None:
            threading.Thread(target=self._watch, daemon=True).start()
        self.watchdog_hz, self._last_kick = min_frequency, time.monotonic()
        return True

    def kickWatchdog(self):  # noqa: N802
        self.kicks += 1
        self._last_kick = time.monotonic()
        return True

    def _watch(self) -> None:
        while self._alive:
            time.sleep(0.01)
            if self.watchdog_hz and self.program_running:
                if time.monotonic() - self._last_kick > 1.0 / self.watchdog_hz:
                    self.program_running = False  # the script ends: the arm stops
                    self._halt.set()

    # -- the control script -------------------------------------------------------------------------
    def isConnected(self):  # noqa: N802
        return self.r.connected

    def isProgramRunning(self):  # noqa: N802
        return self.program_running

    def reuploadScript(self):  # noqa: N802
        if self.r.protective or self.r.emergency:
            return False
        self.uploads += 1
        self.program_running, self._last_kick = True, time.monotonic()
        return True

    def moveJ(self, path, asynchronous=False):  # noqa: N802
        if self.scenario == "refuse" or not self.program_running or self.r.protective:
            return False
        path = [list(e) for e in path]
        modelled, reached = arm_time(self.r.q, path)
        self.paths.append(path)
        self.modelled_s.append(modelled)
        self._halt.clear()
        self._running = True
        if self.on_move is not None:
            self.on_move(path)
        threading.Thread(target=self._run, args=(path, reached), daemon=True).start()
        return True

    def _run(self, path, reached) -> None:
        t_prev = 0.0
        for k, (entry, t) in enumerate(zip(path, reached, strict=True)):
            if self.scenario == "contact" and k == len(path) // 2:
                self.r.force[2] += 25.0
                if self._halt.wait(0.5):  # the slow last centimetres: long enough to be seen
                    self._running = False
                    return
            if self._halt.wait((t - t_prev) * self.time_scale):
                self._running = False
                return
            t_prev = t
            if self.scenario in ("protective", "protective-once"):
                self.r.protective, self.program_running, self._running = True, False, False
                if self.scenario == "protective-once":
                    self.scenario = "end"
                return
            if self.scenario == "disconnect":
                self.r.connected = False
                return
            self.r.q = list(entry[:6])
        if self.scenario != "never":
            self._running = False

    def getAsyncOperationProgress(self):  # noqa: N802
        return 0 if self._running else -1

    def stopJ(self, a=2.0, asynchronous=False):  # noqa: N802
        self.stops.append(a)
        self._halt.set()

    def disconnect(self) -> None:
        self._alive = False


class FakeDashboard:
    """`dashboard_client.DashboardClient`: unlocks the protective stop of `receive`'s arm."""

    def __init__(self, receive: FakeReceive) -> None:
        self.r, self.unlocks = receive, 0

    def connect(self) -> None:
        pass

    def unlockProtectiveStop(self) -> str:  # noqa: N802
        self.unlocks += 1
        self.r.protective = False
        return "Protective stop releasing"


# -- the Robotiq URCap on a socket -----------------------------------------------------------------
class _Urcap(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        grip = self.server.gripper
        for raw in self.rfile:
            words = raw.decode().split()
            if grip.hangup:
                return  # the URCap went away: the connection closes without an answer
            if not words:
                continue
            if words[0] == "SET":
                grip.set(dict(zip(words[1::2], (int(v) for v in words[2::2]), strict=True)))
                self.wfile.write(b"ack\n")
            elif words[0] == "GET":
                self.wfile.write(f"{words[1]} {grip.get(words[1])}\n".encode())


class RobotiqServer:
    """A Robotiq 2F-85 behind its URCap socket on 127.0.0.1:`port` (see the module docstring).
    object_at: the POS where closing fingers meet an object (None: nothing between them)."""

    def __init__(self, take_s: float = 0.03, speed_pos_s: float = 2000.0) -> None:
        self.take_s, self.speed = take_s, speed_pos_s  # POS units per second
        self.regs = {"ACT": 0, "STA": 0, "GTO": 0, "PRE": 0, "OBJ": 3, "SPE": 255, "FOR": 100}
        self.pos = 0.0
        self.object_at: int | None = None
        self.holding = False
        self.drop_on_carry = False
        self.hangup = False
        self._target, self._since = 0, time.monotonic()
        self._lock = threading.Lock()
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Urcap)
        self.server.daemon_threads = True
        self.server.gripper = self
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def set(self, values: dict[str, int]) -> None:
        with self._lock:
            self._advance()
            self.regs.update({k: v for k, v in values.items() if k != "POS"})
            if "POS" in values:
                self.regs["REQ"] = values["POS"]
            if self.regs["ACT"] == 1:
                self.regs["STA"] = 3
            if values.get("GTO") == 1:
                self._since = time.monotonic()  # taken after take_s: PRE, OBJ 0, motion
                self.regs["PENDING"] = 1

    def get(self, var: str) -> int:
        with self._lock:
            self._advance()
            if var == "POS":
                return round(self.pos)
            return self.regs.get(var, 0)

    def _advance(self) -> None:
        now = time.monotonic()
        if self.regs.get("PENDING") and now - self._since >= self.take_s:
            self.regs.update(PENDING=0, PRE=self.regs.get("REQ", 0), OBJ=0)
            self._target, self._since, self.holding = self.regs["PRE"], now, False
        if self.regs.get("PENDING") or self.regs["OBJ"] != 0:
            return
        step = self.speed * (now - self._since)
        self._since = now
        stop = self._target
        closing = self._target > self.pos
        if closing and self.object_at is not None and self.object_at < self._target:
            stop = self.object_at
        if abs(stop - self.pos) <= step:
            self.pos = float(stop)
            on_object = stop != self._target
            self.regs["OBJ"] = 2 if on_object else 3
            self.holding = on_object
        else:
            self.pos += math.copysign(step, stop - self.pos)

    def drop(self) -> None:
        """The held object slips out: the fingers close to their request (OBJ 3)."""
        with self._lock:
            self._advance()
            if self.holding:
                self.holding = False
                self.pos, self.regs["OBJ"] = float(self._target), 3

    def on_move(self, path) -> None:
        """A motion starts (FakeControl.on_move): the object slips out during a carry when asked."""
        if self.drop_on_carry and self.holding:
            self.drop_on_carry = False
            threading.Timer(0.01, self.drop).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class FakeUR:
    """One fake UR cell: receive, control, dashboard and the Robotiq server."""

    def __init__(self, scenario: str = "end", time_scale: float = 0.02) -> None:
        self.receive = FakeReceive()
        self.control = FakeControl(self.receive, scenario, time_scale)
        self.dashboard = FakeDashboard(self.receive)
        self.robotiq = RobotiqServer()
        self.control.on_move = self.robotiq.on_move
        self.connected_to: list[str] = []

    def close(self) -> None:
        self.control.disconnect()
        self.robotiq.close()


def install(monkeypatch, ur: FakeUR) -> None:
    """Put `ur` under ur_rtde's module names and point the Robotiq socket at its server."""

    def control(ip, *args):
        ur.connected_to.append(ip)
        return ur.control

    modules = {
        "rtde_control": {"RTDEControlInterface": control},
        "rtde_receive": {"RTDEReceiveInterface": lambda ip, *args: ur.receive},
        "dashboard_client": {"DashboardClient": lambda ip: ur.dashboard},
    }
    for name, attrs in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr("skills.robotiq_socket.PORT", ur.robotiq.port)
