"""An OpenAI-compatible HTTP server for ``OtherModel`` (127.0.0.1 only, a free port).

``POST /v1/chat/completions`` answers with the model's message in a ``chat.completion``;
``GET /v1/models`` lists the one model. Written apart from the product's stub server, so the
product is tested against a second wire implementation too.

    python -m tests.doubles.othermodel.server --wording natural --error paraphrase --port 0
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.doubles.othermodel.claims import WORDINGS
from tests.doubles.othermodel.mistakes import ERRORS
from tests.doubles.othermodel.model import OtherModel


class OtherServer:
    """``with OtherServer(model) as server: server.base_url``."""

    def __init__(self, model: OtherModel, port: int = 0) -> None:
        self.model = model
        self.requests = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> OtherServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests += 1
        message = self.model.respond(body)
        return {"id": f"chatcmpl-other-{self.requests}", "object": "chat.completion",
                "created": int(time.time()), "model": self.model.name,
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def _handler(server: OtherServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out as separate writes: without this, Nagle's algorithm and
            # the client's delayed ACK hold every answer back ~40 ms.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": server.model.name, "object": "model", "owned_by": "othermodel"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "body is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            self._send(200, server.completion(body))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

    return Handler


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="serve the second model double")
    parser.add_argument("--wording", choices=WORDINGS, default="natural")
    parser.add_argument("--error", choices=ERRORS, default=None)
    parser.add_argument("--stubborn", action="store_true", help="say the same again when told")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    model = OtherModel(wording=args.wording, error=args.error, fixes=not args.stubborn,
                       seed=args.seed)
    with OtherServer(model, port=args.port) as server:
        print(f"listening on {server.base_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
