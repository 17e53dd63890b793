"""A UR controller's RTDE server (protocol v2) on 127.0.0.1:30004, enough for `rtde_receive`:
request protocol version (V), get controller version (v), setup outputs (O: the recipe's types, or
NOT_FOUND), start (S) / pause (P), then data packages (U) at `rate_hz` with the current values.

Messages are a header `>HB` (size including the header, command byte) and a payload. The server
runs in its own process (`ur_rtde`'s constructors hold the GIL while they wait for the server's
answers); `RtdeController` in the test process sets `q` and `safety_status_bits` through shared
memory and can `drop()` the connection as a controller that went away would.
"""

from __future__ import annotations

import multiprocessing as mp
import socket
import struct
import threading

TYPES = {  # RTDE output variables this server knows: name → (RTDE type, struct format)
    "timestamp": ("DOUBLE", ">d"),
    "actual_q": ("VECTOR6D", ">6d"),
    "actual_qd": ("VECTOR6D", ">6d"),
    "actual_TCP_force": ("VECTOR6D", ">6d"),
    "robot_mode": ("INT32", ">i"),
    "safety_mode": ("INT32", ">i"),
    "runtime_state": ("UINT32", ">I"),
    "robot_status_bits": ("UINT32", ">I"),
    "safety_status_bits": ("UINT32", ">I"),
}


class RtdeServer:
    """The server side, in the server process; `shared` holds q (6 doubles), safety_status_bits and
    the drop event."""

    def __init__(
        self, shared: dict, port: int = 30004, rate_hz: float = 200.0, host: str = "127.0.0.1"
    ) -> None:
        self.shared = shared
        self.robot_mode = 7  # running
        self.rate_hz, self.requested, self.frequency = rate_hz, [], None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self._sock.listen(1)
        self._conn: socket.socket | None = None
        self._streaming = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        shared["ready"].set()
        threading.Thread(target=self._serve, daemon=True).start()
        shared["drop"].wait()
        self.close()

    # -- wire format ----------------------------------------------------------------------------
    def _send(self, command: bytes, payload: bytes = b"") -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.sendall(struct.pack(">HB", 3 + len(payload), command[0]) + payload)

    def _recv_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self._conn.recv(n - len(data))
            if not chunk:
                raise ConnectionError("client closed")
            data += chunk
        return data

    def _serve(self) -> None:
        try:
            self._conn, _ = self._sock.accept()
            while not self._closed.is_set():
                size, command = struct.unpack(">HB", self._recv_exact(3))
                self._handle(bytes([command]), self._recv_exact(size - 3))
        except (OSError, ConnectionError):
            pass

    def _handle(self, command: bytes, payload: bytes) -> None:
        if command == b"V":
            self._send(b"V", struct.pack(">B", 1 if struct.unpack(">H", payload)[0] == 2 else 0))
        elif command == b"v":
            self._send(b"v", struct.pack(">IIII", 5, 11, 0, 0))
        elif command == b"O":
            self.frequency = struct.unpack(">d", payload[:8])[0]
            self.requested = [n for n in payload[8:].decode().split(",") if n]
            types = ",".join(TYPES[n][0] if n in TYPES else "NOT_FOUND" for n in self.requested)
            self._send(b"O", struct.pack(">B", 1) + types.encode())
        elif command == b"S":
            self._send(b"S", struct.pack(">B", 1))
            self._streaming.set()
            threading.Thread(target=self._stream, daemon=True).start()
        elif command == b"P":
            self._streaming.clear()
            self._send(b"P", struct.pack(">B", 1))

    def _stream(self) -> None:
        n = 0
        while self._streaming.is_set() and not self._closed.is_set():
            values = {
                "timestamp": n / self.rate_hz,
                "actual_q": list(self.shared["q"]),
                "actual_qd": [0.0] * 6,
                "actual_TCP_force": [0.5, -0.2, -4.0, 0.0, 0.0, 0.0],
                "robot_mode": self.robot_mode,
                "safety_mode": 1,
                "runtime_state": 2,
                "robot_status_bits": 1,
                "safety_status_bits": self.shared["safety"].value,
            }
            body = b"".join(
                struct.pack(TYPES[name][1], *(v if isinstance(v := values[name], list) else [v]))
                for name in self.requested
            )
            try:
                self._send(b"U", struct.pack(">B", 1) + body)
            except OSError:
                return
            n += 1
            self._closed.wait(1.0 / self.rate_hz)

    def close(self) -> None:
        self._closed.set()
        self._streaming.clear()
        with self._lock:
            if self._conn is not None:
                self._conn.shutdown(socket.SHUT_RDWR)
                self._conn.close()
                self._conn = None
        self._sock.close()


def _run(shared: dict, port: int, host: str) -> None:
    RtdeServer(shared, port, host=host)


class RtdeController:
    """The test's handle: starts the server process on `host`:`port` (a loopback address of its own
    per test worker, as the RTDE port is fixed; 127.0.0.1 by default); `q`, `safety_status_bits`
    (bit 2 protective stop, bit 7 emergency stop) and `drop()` act on the running server."""

    def __init__(self, port: int = 30004, host: str = "127.0.0.1") -> None:
        self.host = host
        ctx = mp.get_context("spawn")
        self.shared = {
            "q": ctx.Array("d", 6),
            "safety": ctx.Value("I", 1),
            "drop": ctx.Event(),
            "ready": ctx.Event(),
        }
        self.process = ctx.Process(target=_run, args=(self.shared, port, host), daemon=True)
        self.process.start()
        if not self.shared["ready"].wait(30):
            raise RuntimeError("the RTDE test server did not start")

    @property
    def q(self) -> list[float]:
        return list(self.shared["q"])

    @q.setter
    def q(self, values) -> None:
        self.shared["q"][:] = list(values)

    @property
    def safety_status_bits(self) -> int:
        return self.shared["safety"].value

    @safety_status_bits.setter
    def safety_status_bits(self, bits: int) -> None:
        self.shared["safety"].value = bits

    def drop(self) -> None:
        """The controller goes away: the connection closes, the server process ends."""
        self.shared["drop"].set()
        self.process.join(5)

    def close(self) -> None:
        self.drop()
        if self.process.is_alive():
            self.process.kill()
