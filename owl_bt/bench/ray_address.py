"""Is there a Ray head node at a cluster address? Checked before a bench joins it (`owl-bt bench
--engine ray --address`), since Ray itself retries an absent head node for minutes and waits on a
server that is not Ray without bound."""

from __future__ import annotations

import os

from owl_bt.errors import UsageError


def check_reachable(address: str, timeout_s: float = 3.0, answer_s: float = 5.0) -> None:
    """Raise UsageError unless a Ray head node (its GCS) answers at `address` (HOST:PORT): nothing
    accepting a TCP connection there within `timeout_s`, or a server there that does not answer the
    GCS's cluster-id call within `answer_s` (a web server, a database, anything not Ray). Ray itself
    retries an absent head node for minutes, and waits on a server that is not Ray without bound.
    'auto' (and RAY_ADDRESS) is first resolved as Ray resolves it (the cluster file Ray keeps in its
    temporary folder names the last head node started here, which may since have gone); a
    ray://HOST:PORT (Ray Client) address gets the TCP connect only."""
    import socket

    where = _resolved(address)
    client = where.startswith("ray://")
    host, sep, port = where.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or "://" in where.removeprefix("ray://"):
        return  # a form Ray judges itself
    said = address if where == address else f"{address} ({where})"
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except (OSError, ValueError, OverflowError) as exc:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise UsageError(
            f"cannot join the Ray cluster at {said}: nothing answers there ({why}); "
            "start its head with `ray start --head`"
        ) from None
    why = None if client else _gcs_silence(where, answer_s)
    if why is not None:
        raise UsageError(
            f"cannot join the Ray cluster at {said}: something listens there but it is not a "
            f"Ray head node ({why}); give the address `ray start --head` printed"
        )


def _resolved(address: str) -> str:
    """The address Ray would join for `address`: 'auto' (or any address, when RAY_ADDRESS is set,
    which Ray puts first) as Ray finds it; UsageError when 'auto' finds no cluster."""
    if address != "auto" and not os.environ.get("RAY_ADDRESS"):
        return address
    try:
        from ray._private.services import get_ray_address_from_environment
    except ImportError:  # another Ray: leave 'auto' for it to judge
        return address
    try:
        found = get_ray_address_from_environment(address, None)
    except ConnectionError:
        raise UsageError(
            f"--address {address}: no Ray cluster runs on this machine; start one with "
            "`ray start --head`, or leave --address out for a local Ray"
        ) from None
    return found or address


# the GCS's cheapest call: an empty request, answered by every Ray head node before it joins anyone
GCS_PROBE = "/ray.rpc.NodeInfoGcsService/GetClusterId"


def _gcs_silence(address: str, answer_s: float) -> str | None:
    """None when the server at `address` answers the GCS probe call as a Ray head node does (or
    refuses it for want of credentials, which only Ray's own token check does); else why not, in a
    few words. Takes at most `answer_s` seconds."""
    import grpc

    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary(
            GCS_PROBE, request_serializer=lambda b: b, response_deserializer=lambda b: b
        )
        try:
            call(b"", timeout=answer_s)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                return None
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                return f"no answer in {answer_s:g} s"
            name = code.name.lower().replace("_", " ") if code is not None else "no answer"
            return f"{name}: {' '.join(str(exc.details() or '').split())[:120]}".rstrip(": ")
    return None
