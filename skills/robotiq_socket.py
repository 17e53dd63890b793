"""A Robotiq 2F-85 on a UR, through the Robotiq URCap's ASCII socket protocol (TCP port 63352).

Requests are one line, `SET <VAR> <value> [<VAR> <value> …]` (answered `ack`) or `GET <VAR>`
(answered `<VAR> <value>`). Variables used: ACT (activate 1), GTO (go to the requested position 1),
POS (position 0 open … 255 closed), PRE (the position request the gripper is working on: it
echoes a new POS only once the gripper has taken it), SPE (speed 0–255), FOR (force 0–255), STA
(status: 3 = active), OBJ (0 moving, 1 stopped opening on an object, 2 stopped closing on an object,
3 at the requested position). OBJ read before PRE echoes the new request still describes the last
motion, so a move waits for PRE first. Widths are metres between the pads, linear in POS over the
2F-85's 0–0.085 m stroke.
"""

from __future__ import annotations

import socket
import time

from skills.faults import ActionTimeout, BackendUnavailable, ConnectionLost

PORT = 63352
STROKE = 0.085  # m between the pads at POS 0


class RobotiqSocketGripper:
    """A connected gripper. host: the UR's address; timeout: seconds per request and per motion."""

    def __init__(self, host: str, port: int | None = None, timeout: float = 2.0) -> None:
        self.timeout = timeout
        port = PORT if port is None else port
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise BackendUnavailable(
                f"the Robotiq gripper at {host}:{port} does not answer: {exc}"
            ) from None
        self._buf = b""

    def _request(self, line: str) -> str:
        try:
            self._sock.sendall(line.encode() + b"\n")
            while b"\n" not in self._buf:
                chunk = self._sock.recv(1024)
                if not chunk:
                    raise ConnectionLost("the Robotiq gripper closed the connection")
                self._buf += chunk
        except OSError as exc:
            raise ConnectionLost(f"the Robotiq gripper connection failed: {exc}") from None
        answer, self._buf = self._buf.split(b"\n", 1)
        return answer.decode(errors="replace").strip()

    def set(self, **values: int) -> None:
        """SET each VAR (upper-case names) to an integer; raises ConnectionLost unless acknowledged."""
        answer = self._request(
            "SET " + " ".join(f"{k.upper()} {int(v)}" for k, v in values.items())
        )
        if answer != "ack":
            raise ConnectionLost(f"the Robotiq gripper answered {answer!r} to a SET")

    def get(self, var: str) -> int:
        answer = self._request(f"GET {var.upper()}")
        name, _, value = answer.partition(" ")
        if name != var.upper() or not value.strip().lstrip("-").isdigit():
            raise ConnectionLost(f"the Robotiq gripper answered {answer!r} to GET {var.upper()}")
        return int(value)

    def activate(self) -> None:
        """Activate (ACT 1) unless active (STA 3); waits up to `timeout` seconds."""
        if self.get("STA") == 3:
            return
        self.set(act=1)
        deadline = time.monotonic() + self.timeout
        while self.get("STA") != 3:
            if time.monotonic() > deadline:
                raise ActionTimeout("the Robotiq gripper did not activate")
            time.sleep(0.02)

    def move(self, position: int, speed: int = 255, force: int = 100) -> tuple[int, bool]:
        """Go to POS `position` (0–255); returns (reached POS, stopped on an object). Waits until
        PRE echoes the request, then until OBJ says the fingers stopped."""
        position = max(0, min(255, position))
        self.set(pos=position, spe=speed, **{"for": force})  # FOR is a Python keyword
        self.set(gto=1)
        deadline = time.monotonic() + self.timeout
        while self.get("PRE") != position:
            if time.monotonic() > deadline:
                raise ActionTimeout(f"the Robotiq gripper did not take the request POS {position}")
            time.sleep(0.01)
        while (obj := self.get("OBJ")) == 0:
            if time.monotonic() > deadline:
                raise ActionTimeout(f"the Robotiq gripper did not stop within {self.timeout:.1f} s")
            time.sleep(0.02)
        return self.get("POS"), obj in (1, 2)

    def width(self) -> float:
        """Metres between the pads now."""
        return STROKE * (1.0 - self.get("POS") / 255.0)

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
