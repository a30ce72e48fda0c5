"""A small JSON-over-HTTP client for live sources: explicit timeout, no retries, no secrets out.

An ``HttpEndpoint`` is a base URL (which may carry credentials: ``https://user:pw@host/prom``
or ``...?token=...``) plus optional headers (``Authorization: Bearer ...``). What leaves it for
storage or display never carries them:

- ``source_id`` is ``kind:<scheme://host:port/path>``, without userinfo, query or fragment;
- every call is described as ``{"method", "url", "params"}`` with that public URL and only the
  parameters the source chose (never the base URL's secret query values or the headers).

Userinfo becomes a Basic ``Authorization`` header and the base URL's query values are sent with
every call. Redirects are not followed (they could carry the credentials elsewhere) and nothing
is retried: a failure is reported once, as ``SourceError`` with a one-line message and the call
that failed, and the recorder stores it as an ``error`` invocation.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

from core.errors import SourceError
from core.redact import public_url, redact_text
from core.sources.limits import DEFAULT_TIMEOUT

_MAX_ANSWER_BYTES = 32 * 1024 * 1024
_LOOPBACK = ("127.", "localhost", "::1", "[::1]")


@dataclass(frozen=True)
class HttpAnswer:
    """A parsed JSON answer, the call that produced it (public) and the server's clock."""

    data: Any
    call: dict[str, Any]
    server_time: datetime | None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                         headers: Any, newurl: str) -> None:
        raise urllib.error.HTTPError(req.full_url, code, f"redirect to {public_url(newurl)} "
                                     "not followed", headers, fp)


@dataclass(frozen=True)
class HttpEndpoint:
    """One server's API root. ``base_url`` and ``headers`` are private: never shown or stored."""

    kind: str
    base_url: str
    timeout: float = DEFAULT_TIMEOUT
    headers: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise SourceError(f"{self.kind}: not an http(s) URL: {public_url(self.base_url)}")
        if self.timeout <= 0:
            raise SourceError(f"{self.kind}: timeout must be positive (got {self.timeout})")

    # ------------------------------------------------------------ what may be shown

    @property
    def public_base(self) -> str:
        """The base URL without credentials, query or fragment, and without a trailing slash."""
        return public_url(self.base_url).rstrip("/")

    @property
    def source_id(self) -> str:
        """``prometheus:http://host:9090``."""
        return f"{self.kind}:{self.public_base}"

    def describe_call(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """``{"method": "GET", "url": <public url>, "params": {...}}`` of one call."""
        return {"method": "GET", "url": f"{self.public_base}{path}", "params": dict(params or {})}

    # ------------------------------------------------------------ calling

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> HttpAnswer:
        """GET ``path`` (under the base URL) and parse the JSON answer.

        ``SourceError`` (one line, with the public call as its request) for a refused or
        unreachable server, a timeout, an HTTP error status, or an answer that is not JSON.
        """
        call = self.describe_call(path, params)
        try:
            with self._open(path, params) as response:
                body = response.read(_MAX_ANSWER_BYTES + 1)
                server_time = _server_time(response.headers.get("Date"))
                announced = _content_length(response.headers.get("Content-Length"))
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            exc.close()  # the error answer's connection
            raise self.failure(call, f"HTTP {exc.code}{detail}") from None
        except TimeoutError:
            raise self.failure(call, f"no answer within {self.timeout:g}s") from None
        except urllib.error.URLError as exc:
            raise self.failure(call, _unreachable(exc.reason)) from None
        except (ConnectionError, OSError) as exc:
            raise self.failure(call, _unreachable(exc)) from None
        if announced is not None and len(body) < min(announced, _MAX_ANSWER_BYTES):
            # The connection closed mid-answer: say so, rather than "not JSON".
            raise self.failure(call, f"the answer was cut short ({len(body)} of {announced} bytes)")
        if len(body) > _MAX_ANSWER_BYTES:
            raise self.failure(call, f"answer larger than {_MAX_ANSWER_BYTES // 1024 // 1024} MB")
        try:
            data = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise self.failure(call, "the answer is not JSON") from None
        return HttpAnswer(data=data, call=call, server_time=server_time)

    def _open(self, path: str, params: dict[str, Any] | None) -> Any:
        parsed = urllib.parse.urlsplit(self.base_url)
        query = urllib.parse.parse_qsl(parsed.query, keep_blank_values=True)
        query += [(key, str(value)) for key, value in (params or {}).items()]
        netloc = parsed.hostname or ""
        if ":" in netloc:
            netloc = f"[{netloc}]"
        if parsed.port is not None:
            netloc += f":{parsed.port}"
        url = urllib.parse.urlunsplit((parsed.scheme, netloc, parsed.path.rstrip("/") + path,
                                       urllib.parse.urlencode(query), ""))
        headers = {"Accept": "application/json", **self.headers}
        if parsed.username is not None:
            user = urllib.parse.unquote(parsed.username)
            password = urllib.parse.unquote(parsed.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            headers.setdefault("Authorization", f"Basic {token}")
        request = urllib.request.Request(url, headers=headers, method="GET")
        proxies = urllib.request.ProxyHandler({} if netloc.startswith(_LOOPBACK) else None)
        opener = urllib.request.build_opener(proxies, _NoRedirect())
        return opener.open(request, timeout=self.timeout)

    def failure(self, call: dict[str, Any], reason: str) -> SourceError:
        """``GET /api/v1/alerts: <reason>`` for ``call``, with this server's id and the call as
        its request (the server itself is the error's ``source``)."""
        path = call["url"][len(self.public_base):] or "/"
        message = redact_text(f"{call.get('method', 'GET')} {path}: {reason}")
        return SourceError(" ".join(message.split()), source=self.source_id, request=call)


def _server_time(header: str | None) -> datetime | None:
    """The answer's ``Date`` header: the server's clock (to the second)."""
    if not header:
        return None
    try:
        return parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None


def _content_length(header: str | None) -> int | None:
    try:
        return int(header) if header else None
    except ValueError:
        return None


def _unreachable(reason: object) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, http.client.RemoteDisconnected):
        return "the connection was closed without an answer"
    if isinstance(reason, ConnectionResetError):
        return "the connection was reset"
    if isinstance(reason, TimeoutError | socket.timeout):
        return "no answer in time"
    if isinstance(reason, socket.gaierror):
        return "host not found"
    text = getattr(reason, "strerror", None) or str(reason)
    return f"unreachable ({text})"


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """``: bad_data: parse error ...`` from a Prometheus-style error body, when there is one."""
    try:
        body = exc.read(4096).decode("utf-8", "replace")
    except Exception:  # the body of an error answer is a courtesy; its absence is no new error
        return f" {exc.reason}" if exc.reason else ""
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return f" {exc.reason}" if exc.reason else ""
    if isinstance(data, dict) and data.get("error"):
        kind = f"{data['errorType']}: " if data.get("errorType") else ""
        return f": {kind}{str(data['error'])[:300]}"
    return f" {exc.reason}" if exc.reason else ""
