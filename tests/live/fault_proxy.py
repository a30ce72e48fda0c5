"""A loopback HTTP proxy in front of a real server that starts misbehaving when told.

``FaultProxy(upstream)`` forwards every GET to the real Prometheus or Alertmanager. After
``fail_after(n, fault)`` it forwards ``n`` more requests faithfully, then answers every
request with the fault: ``"503"`` (an HTTP 503 with an HTML body, as a load balancer in front
of a dead backend does), ``"slow"`` (the real answer, ``delay`` seconds late), ``"truncated"``
(the real answer's status and headers, the body cut in half, as a connection dropped mid-answer
is read by a client that trusts the proxy's Content-Length), ``"cut"`` (the full answer's
Content-Length announced, half the body sent, then the connection closed) or ``"reset"`` (the
connection closed without an answer). The faults are real HTTP on a real socket: the client under test
is not mocked.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.local_http import LoopbackServer


class FaultProxy:
    """A proxy to ``upstream`` on a free loopback port (``url``), stopped with ``stop``."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.fault: str | None = None
        self.delay = 0.0
        self.healthy_left: int | None = None  # requests still forwarded before the fault
        self.paths: list[str] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner._serve(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._http = LoopbackServer(Handler)
        self.url = self._http.url

    def fail_after(self, requests: int, fault: str, delay: float = 0.0) -> None:
        """Forward ``requests`` more requests, then answer every one with ``fault``."""
        with self._lock:
            self.healthy_left, self.fault, self.delay = requests, fault, delay

    def _fault_now(self) -> str | None:
        with self._lock:
            if self.fault is None or self.healthy_left is None:
                return None
            if self.healthy_left > 0:
                self.healthy_left -= 1
                return None
            return self.fault

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        self.paths.append(handler.path)
        fault = self._fault_now()
        try:
            if fault == "503":
                self._send(handler, 503, b"<html><body>503 Service Unavailable</body></html>",
                           "text/html")
                return
            if fault == "reset":
                handler.close_connection = True
                return
            status, body, content_type = self._forward(handler.path)
            if fault == "slow":
                time.sleep(self.delay)
            if fault == "cut":
                handler.send_response(status)
                handler.send_header("Content-Type", content_type)
                handler.send_header("Content-Length", str(len(body)))
                handler.end_headers()
                handler.wfile.write(body[: len(body) // 2])
                handler.wfile.flush()
                handler.close_connection = True
                return
            if fault == "truncated":
                handler.send_response(status)
                handler.send_header("Content-Type", content_type)
                handler.send_header("Content-Length", str(len(body) // 2))
                handler.end_headers()
                handler.wfile.write(body[: len(body) // 2])
                return
            self._send(handler, status, body, content_type)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout): nothing more to say

    def _forward(self, path: str) -> tuple[int, bytes, str]:
        request = urllib.request.Request(self.upstream + path, headers={"Accept": "application/json"})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=10) as response:
                return (response.status, response.read(),
                        response.headers.get("Content-Type", "application/json"))
        except urllib.error.HTTPError as exc:
            body = exc.read()
            content_type = exc.headers.get("Content-Type", "application/json")
            exc.close()
            return exc.code, body, content_type

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def stop(self) -> None:
        self._http.stop()
