"""A small OpenAI-compatible server on 127.0.0.1 that replays a transcript.

    python -m core.agents.llm.stub_server --transcript FILE [--port 0] [--api-key KEY]
                                          [--log-requests FILE.jsonl]

prints ``listening on http://127.0.0.1:PORT/v1`` and serves ``POST /v1/chat/completions`` and
``GET /v1/models`` until interrupted (the tests' model doubles in ``tests/doubles`` are served
through ``StubServer(double=...)`` the same way). Point the ``llm`` engine at it with
``SUPERBIZ_LLM_BASE_URL=http://127.0.0.1:PORT/v1``. The turn that answers a request is picked
from the request alone (see ``transcript``), so any number of sessions can run against one
server (a ``sequence`` transcript, answered in arrival order, is for one session). Fault turns
answer like a failing server would (see ``transcript`` for the list): HTTP 5xx and 429 with
``Retry-After``, a timeout, a dropped connection, a body that is not JSON, JSON without
``choices``, and an empty completion.

Standard library only (``http.server``); it binds to 127.0.0.1 and nothing else. Part of the
product, not a test double: docs/llm.md shows users how to try the engine offline with it
(the ``stub`` backend preset).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from core.agents.llm.transcript import (
    ScriptedTurn,
    Transcript,
    TranscriptError,
    finish_reason,
    load_transcript,
    pick_turn,
    rendered_message,
)

HOST = "127.0.0.1"
DEFAULT_MODEL = "stub-model"
# Status that tells the handler to close the connection without answering.
DROP_CONNECTION = 0
_HTTP_FAULTS: dict[str, tuple[int, str, str]] = {
    "http_500": (500, "scripted internal server error", "server_error"),
    "http_502": (502, "scripted bad gateway", "server_error"),
    "http_503": (503, "scripted overload: the model is not available", "server_error"),
    "rate_limit": (429, "scripted rate limit: too many requests", "rate_limit_exceeded"),
}


class StubResponse(NamedTuple):
    """What the handler sends: status, JSON (or raw bytes) and extra headers."""

    status: int
    payload: dict[str, Any] | bytes
    headers: Mapping[str, str] = MappingProxyType({})  # read-only: the default is shared


class ModelDouble(Protocol):
    """A model that answers a request by reading it (the tests' simulated model is one)."""

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
              response_format: dict[str, Any] | None = None) -> dict[str, Any]: ...


class StubServer:
    """The server object: start it in a thread (tests) or ``serve_forever`` (the CLI). It
    replays a ``transcript``, or lets a ``double`` answer each request."""

    def __init__(self, transcript: Transcript | None = None, *, double: ModelDouble | None = None,
                 port: int = 0, api_key: str | None = None, model: str = DEFAULT_MODEL,
                 log_requests: Path | None = None,
                 response_formats: frozenset[str] | None = None,
                 context_tokens: int | None = None) -> None:
        if (transcript is None) == (double is None):
            raise ValueError("a stub server serves a transcript or a model double, one of them")
        self.transcript = transcript or Transcript()
        self.double = double
        self.api_key = api_key
        self.model = model
        self.log_requests = log_requests
        # To play a server with fewer options: the ``response_format`` types it takes (None:
        # all) and its context window (None: unlimited), refused as llama-cpp-python refuses.
        self.response_formats = response_formats
        self.context_tokens = context_tokens
        self.stopping = threading.Event()
        self._log_lock = threading.Lock()
        self._counter = 0
        self._arrivals = 0  # chat requests so far, for ``sequence`` transcripts
        self.httpd = ThreadingHTTPServer((HOST, port), _handler_for(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://{HOST}:{self.httpd.server_address[1]}/v1"

    def start(self) -> StubServer:
        """Serve in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, wake any request waiting out a ``timeout`` fault, free the port."""
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def serve_until_interrupted(self) -> None:
        """Say where it listens, then serve in this thread until Ctrl-C (the CLI way)."""
        print(f"listening on {self.base_url}", flush=True)
        try:
            self.httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.stopping.set()
            self.httpd.server_close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------ answering

    def answer(self, body: dict[str, Any]) -> StubResponse:
        """The response to one chat-completions request."""
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            return StubResponse(400, _error("'messages' must be a list of message objects",
                                            "invalid_request_error"))
        if body.get("stream"):
            return StubResponse(400, _error("the stub does not stream; send stream=false",
                                            "invalid_request_error"))
        self._log(body)
        refused = self._refusal(body)
        if refused is not None:
            return refused
        with self._log_lock:
            arrival, self._arrivals = self._arrivals, self._arrivals + 1
        if self.double is not None:
            try:
                reply = self.double.reply(messages, body.get("tools"), body.get("response_format"))
            except TranscriptError as exc:
                return StubResponse(400, _error(str(exc), "invalid_request_error"))
            return StubResponse(200, self._completion(body, reply, ScriptedTurn()))
        try:
            turn = pick_turn(self.transcript, messages, arrival)
            if turn.fault is not None:
                return self._fault(turn)
            message = rendered_message(turn, messages)
        except TranscriptError as exc:
            return StubResponse(400, _error(str(exc), "invalid_request_error"))
        return StubResponse(200, self._completion(body, message, turn))

    def _refusal(self, body: dict[str, Any]) -> StubResponse | None:
        """llama-cpp-python's answers to what it cannot do: a ``response_format`` type it does
        not know (HTTP 500, its pydantic message) and a prompt longer than its context."""
        response_format = body.get("response_format")
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if self.response_formats is not None and kind is not None and \
                kind not in self.response_formats:
            allowed = " or ".join(f"'{name}'" for name in
                                sorted(self.response_formats, key=lambda n: (n != "text", n)))
            return StubResponse(500, _error(f"response_format.type: Input should be {allowed}",
                                            "internal_server_error"))
        if self.context_tokens is not None:
            # Four characters a token, like the usage below.
            requested = len(json.dumps([body.get("messages"), body.get("tools")],
                                       ensure_ascii=False)) // 4
            if requested >= self.context_tokens:
                return StubResponse(400, _error(
                    f"This model's maximum context length is {self.context_tokens} tokens. "
                    f"However, you requested {requested} tokens. Please reduce the length "
                    f"of the messages or completion.", "invalid_request_error"))
        return None

    def _fault(self, turn: ScriptedTurn) -> StubResponse:
        if turn.fault == "timeout":
            self.stopping.wait(turn.seconds)
            return StubResponse(504, _error("scripted timeout: the model did not answer in time",
                                            "timeout"))
        if turn.fault in _HTTP_FAULTS:
            status, message, error_type = _HTTP_FAULTS[turn.fault]
            headers = {"Retry-After": str(turn.retry_after or 0)} if status == 429 else {}
            return StubResponse(status, _error(message, error_type), headers)
        if turn.fault == "connection_reset":
            return StubResponse(DROP_CONNECTION, b"")
        if turn.fault == "invalid_json":
            return StubResponse(200, b'{"id": "chatcmpl-broken", "choices": [ this is not JSON')
        if turn.fault in ("no_choices", "empty_choices"):
            body: dict[str, Any] = {"id": "chatcmpl-nochoice", "object": "chat.completion",
                                    "created": 0}
            return StubResponse(200, {**body, "choices": []} if turn.fault == "empty_choices"
                                else body)
        if turn.fault == "error_body":
            return StubResponse(200, _error("scripted error in a 200 answer", "server_error"))
        return StubResponse(200, self._completion({}, {"role": "assistant", "content": ""},
                                                  turn))  # "empty"

    def _completion(self, body: dict[str, Any], message: dict[str, Any],
                    turn: ScriptedTurn) -> dict[str, Any]:
        with self._log_lock:
            self._counter += 1
            number = self._counter
        prompt_tokens = len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4
        completion_tokens = len(json.dumps(message, ensure_ascii=False)) // 4
        return {
            "id": f"chatcmpl-stub-{number}", "object": "chat.completion",
            "created": int(time.time()), "model": body.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": finish_reason(turn, message)}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    def models(self) -> dict[str, Any]:
        """``GET /v1/models``."""
        return {"object": "list", "data": [{"id": self.model, "object": "model", "created": 0,
                                            "owned_by": "superbiz-stub"}]}

    def authorized(self, header: str | None) -> bool:
        """Whether the request's ``Authorization`` header carries the configured key."""
        return self.api_key is None or header == f"Bearer {self.api_key}"

    def _log(self, body: dict[str, Any]) -> None:
        if self.log_requests is None:
            return
        with self._log_lock, self.log_requests.open("a", encoding="utf-8") as log:
            log.write(json.dumps(body, ensure_ascii=False) + "\n")


def _error(message: str, error_type: str) -> dict[str, Any]:
    """An error body in the OpenAI shape."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": None}}


def _handler_for(server: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in one write, without Nagle's delay: a local request takes
        # microseconds, not the 40 ms of a delayed ACK.
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            if not server.authorized(self.headers.get("Authorization")):
                self._send(401, _error("invalid API key", "invalid_request_error"))
            elif self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, server.models())
            else:
                self._send(404, _error(f"no route {self.path}", "invalid_request_error"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not server.authorized(self.headers.get("Authorization")):
                self._send(401, _error("invalid API key", "invalid_request_error"))
                return
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, _error(f"no route {self.path}", "invalid_request_error"))
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError as exc:
                self._send(400, _error(f"request body is not JSON: {exc.msg}",
                                       "invalid_request_error"))
                return
            response = server.answer(body if isinstance(body, dict) else {})
            if response.status == DROP_CONNECTION:  # hang up without a word, like a crashed proxy
                self.close_connection = True
                return
            self._send(response.status, response.payload, response.headers)

        def _send(self, status: int, payload: dict[str, Any] | bytes,
                  headers: Mapping[str, str] | None = None) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(
                payload, ensure_ascii=False).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout fault): nothing left to tell it

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the CLI prints one line, tests read the request log

    return Handler


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stub server until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m core.agents.llm.stub_server",
        description="OpenAI-compatible stub that replays a transcript of model turns.")
    parser.add_argument("--transcript", required=True, help="transcript file (JSON or YAML)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free)")
    parser.add_argument("--api-key", default=None,
                        help="require 'Authorization: Bearer KEY' (default: no check)")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="model id /v1/models lists")
    parser.add_argument("--log-requests", type=Path, default=None, metavar="FILE",
                        help="append every chat-completions request body to FILE (JSON lines)")
    parser.add_argument("--response-formats", default=None, metavar="TYPES",
                        help="comma-separated response_format types to accept, refusing "
                             "others as llama-cpp-python does (e.g. text,json_object)")
    parser.add_argument("--context", type=int, default=None, metavar="TOKENS",
                        help="refuse prompts longer than TOKENS (4 characters a token)")
    args = parser.parse_args(argv)
    formats = (frozenset(name.strip() for name in args.response_formats.split(",") if name.strip())
               if args.response_formats else None)
    try:
        transcript = load_transcript(args.transcript)
        server = StubServer(transcript, port=args.port, api_key=args.api_key, model=args.model,
                            log_requests=args.log_requests, response_formats=formats,
                            context_tokens=args.context)
    except (TranscriptError, OSError) as exc:
        print(f"stub_server: error: {exc}", file=sys.stderr)
        return 2
    server.serve_until_interrupted()
    return 0


if __name__ == "__main__":
    sys.exit(main())
