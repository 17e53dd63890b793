"""Fixtures of the bench tests: one real local Ray per test module (Ray takes seconds to start)."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator

import pytest


@pytest.fixture(scope="module")
def local_ray() -> Iterator[object]:
    """A private local Ray with two CPUs (`ray.init(address="local", num_cpus=2)`), shut down after
    the module; the Ray engine uses an initialised Ray as it is."""
    import ray

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def plain_tcp_server() -> Iterator[Callable[[bytes | None], int]]:
    """Start a plain TCP server on 127.0.0.1 (not Ray): `start(reply)` returns its port; each
    connection gets `reply` and is closed, or (reply None) is held open with nothing said."""
    servers: list[socket.socket] = []
    held: list[socket.socket] = []

    def serve(srv: socket.socket, reply: bytes | None) -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return  # closed at the end of the test
            if reply is None:
                held.append(conn)
            else:
                conn.sendall(reply)
                conn.close()

    def start(reply: bytes | None) -> int:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        servers.append(srv)
        threading.Thread(target=serve, args=(srv, reply), daemon=True).start()
        return srv.getsockname()[1]

    try:
        yield start
    finally:
        for s in servers + held:
            s.close()
