"""A channel's far end for the channels' tests: an HTTP server on the loopback, where json://
and ntfy:// addresses post, which answers each request with the next status it is given."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Receiver:
    """What reached the server (path and JSON body of each POST) and what it answers next
    (200 once ``answers`` runs out)."""

    port: int = 0
    answers: list[int] = field(default_factory=list)
    received: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def url(self, scheme: str = "json", path: str = "hook/s3cr3t-path") -> str:
        return f"{scheme}://127.0.0.1:{self.port}/{path}"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                payload = json.loads(body or b"{}")
            except ValueError:
                payload = {"raw": body.decode("utf-8", "replace")}
            found.received.append((self.path, payload))
            status = found.answers.pop(0) if found.answers else 200
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()
