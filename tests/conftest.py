"""Shared pytest fixtures.

``_require_shared_data``: most tests read the real datasets in ../shared/data.

``http_server``: a small threaded HTTP server on 127.0.0.1 (the test machines
have no internet), serving in-memory bytes and able to misbehave on purpose
(5xx before succeeding, short bodies, 404) so download code can be tested
offline and deterministically.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .support import SHARED_DATA


@pytest.fixture(autouse=True, scope="session")
def _require_shared_data() -> None:
    """Fail loudly (never skip) when the real datasets are missing: most tests read them."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the real datasets are expected at {SHARED_DATA} (see README, Tests)")


@dataclass
class Route:
    """What one path serves, and how it fails first.

    The first ``fail_first`` requests get HTTP ``fail_status``; the next
    ``truncate_first`` requests get a 200 whose body stops halfway while the
    Content-Length header promises all of it; later requests get ``body``
    with ``status``. With ``no_length`` no response says its Content-Length
    (a server that just closes the connection at the end).
    """

    body: bytes
    status: int = 200
    fail_first: int = 0
    fail_status: int = 503
    truncate_first: int = 0
    no_length: int = 0
    hits: int = 0


class LocalHTTPServer:
    """Threaded HTTP server on 127.0.0.1 with a free port; unknown paths give 404."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.routes: dict[str, Route] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            # Bounds every blocking socket call of a handler thread.
            timeout = 10.0

            def do_GET(self) -> None:
                route, mode = server._next(self.path)
                if route is None:
                    self._send(404, b"not found\n")
                elif mode == "fail":
                    self._send(route.fail_status, b"try again later\n")
                elif mode == "truncate":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    if not route.no_length:
                        self.send_header("Content-Length", str(len(route.body)))
                    self.end_headers()
                    self.wfile.write(route.body[: len(route.body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                else:
                    self._send(route.status, route.body, not route.no_length)

            def _send(self, status: int, body: bytes, length: bool = True) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream")
                if length:
                    self.send_header("Content-Length", str(len(body)))
                else:
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output quiet

        Handler.timeout = timeout
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def _next(self, path: str) -> tuple[Route | None, str]:
        with self._lock:
            route = self.routes.get(path.split("?", 1)[0])
            if route is None:
                return None, "missing"
            route.hits += 1
            if route.hits <= route.fail_first:
                return route, "fail"
            if route.hits <= route.fail_first + route.truncate_first:
                return route, "truncate"
            return route, "ok"

    def add(self, path: str, body: bytes, **options: int) -> str:
        """Serve ``body`` at ``path`` (see Route for ``options``); return its URL."""
        if not path.startswith("/"):
            path = "/" + path
        self.routes[path] = Route(body, **options)
        return self.url(path)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def hits(self, path: str) -> int:
        """How many requests ``path`` has received."""
        route = self.routes.get("/" + path.lstrip("/"))
        return route.hits if route else 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def http_server() -> Iterator[LocalHTTPServer]:
    """A LocalHTTPServer running for one test; stopped at teardown."""
    server = LocalHTTPServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
