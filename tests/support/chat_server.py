"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions API, replaying scripted
answers — the test double of an OpenAI-compatible endpoint (no patched clients).

Each POST to /v1/chat/completions takes the next `Reply` of the script: an answer text (HTTP 200
with a chat.completion body and token usage), an HTTP error status (e.g. 429 with a short
Retry-After), a delay before answering (to trip the client's timeout), or a raw body (truncated JSON, HTML). Every request body and
its headers are kept in `requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).parents[1] / "fixtures" / "chat"


def answer(name: str) -> str:
    """A recorded answer text from tests/fixtures/chat/."""
    return (HERE / name).read_text(encoding="utf-8")


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    delay_s: float = 0.0
    headers: dict = field(default_factory=dict)
    raw: bytes | None = None  # sent as the body instead of a chat.completion (malformed JSON, HTML)
    content_type: str = "application/json"


class ChatServer:
    """Use as a context manager; `base_url` is http://127.0.0.1:<port>/v1.

    `script`: the replies in order; or `respond`, a function of the request body (the chat-completions
    JSON) returning the Reply, for a server that answers by what is asked (a recorded transcript)."""

    def __init__(
        self, script: list[Reply] | None = None, respond: Callable[[dict], Reply] | None = None
    ) -> None:
        self.script = list(script or [])
        self.respond = respond
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 — http.server's naming
                body = json.loads(
                    self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}"
                )
                with server.lock:
                    server.requests.append(
                        {"path": self.path, "body": body, "headers": dict(self.headers)}
                    )
                    if server.respond is not None:
                        reply = server.respond(body)
                    elif server.script:
                        reply = server.script.pop(0)
                    else:
                        reply = Reply(
                            "no more scripted answers", 500, headers={"x-should-retry": "false"}
                        )
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    reply = Reply("not found", 404)
                if reply.status == 200:
                    payload = {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "test-model"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": reply.text},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 1000 + len(server.requests),
                            "completion_tokens": len(reply.text.split()),
                            "total_tokens": 1000 + len(server.requests) + len(reply.text.split()),
                        },
                    }
                else:
                    payload = {
                        "error": {
                            "message": reply.text or f"status {reply.status}",
                            "type": "test",
                            "code": None,
                        }
                    }
                data = json.dumps(payload).encode() if reply.raw is None else reply.raw
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
