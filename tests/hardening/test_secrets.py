"""Secrets in configured URLs never reach a stored row, an export, a printed line or the console.

A token planted in ``SUPERBIZ_LLM_BASE_URL`` (userinfo and query string) meets a server that
echoes every request line back in its error, the way proxies and gateways do; then every
channel is searched for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from core.cli import main
from core.redact import REDACTED, configured_secrets, public_url, redact_text, redact_url
from core.settings import get_settings
from core.store import open_store
from tests.local_http import LoopbackServer

TOKEN = "qs-T0KEN-4f9a1c"
PASSWORD = "pw-S3CRET-77b2"
QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"


@pytest.mark.parametrize(("url", "expected"), [
    ("http://user:pw123456@llm.example:8000/v1?api_key=abc&x=1#frag",
     f"http://{REDACTED}@llm.example:8000/v1?api_key={REDACTED}&x={REDACTED}#{REDACTED}"),
    ("https://TOKEN1234@host/v1", f"https://{REDACTED}@host/v1"),
    ("https://host/v1?justatoken", f"https://host/v1?{REDACTED}"),
    ("postgresql:/user:pw123456@db/x", f"postgresql:/{REDACTED}@db/x"),  # the one-slash typo
    ("postgresql://user:pw123456@db:notaport/x", f"postgresql://{REDACTED}@db:notaport/x"),
    ("http://[::1/x?k=v", f"http://[::1/x?k={REDACTED}"),
    ("sqlite:////tmp/a@b/audit.db", "sqlite:////tmp/a@b/audit.db"),  # a path keeps its '@'
    ("http://host:8000/v1", "http://host:8000/v1"),
])
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_public_url_drops_every_secret_part() -> None:
    assert public_url("http://u:pw123456@h:1/v1?t=abc#f") == "http://h:1/v1"


def test_configured_secrets_come_from_every_url_and_key_setting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_PROMETHEUS_URL", f"http://prom.example/api?token={TOKEN}")
    monkeypatch.setenv("SUPERBIZ_DB", f"postgresql://auditor:{PASSWORD}@db.example/superbiz")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefghijkl")
    monkeypatch.setenv("SUPERBIZ_LLM_BASE_URL", "http://host/v1?flag=1")  # too short to hunt
    secrets = configured_secrets()
    assert {TOKEN, PASSWORD, "sk-abcdefghijkl"} <= set(secrets) and "1" not in secrets
    message = (f"GET /api/v1/query?token={TOKEN} failed; password {PASSWORD} rejected; "
               f"see http://prom.example/api?token={TOKEN}")
    redacted = redact_text(message)
    assert TOKEN not in redacted and PASSWORD not in redacted
    assert "http://prom.example/api?token=[REDACTED]" in redacted


class _EchoingGateway(BaseHTTPRequestHandler):
    """Answers every request with an HTTP 404 whose message quotes the request line."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    def _answer(self) -> None:
        self.seen.append(self.path)
        body = json.dumps({"error": {"message": f"no route for {self.command} {self.path} "
                                                f"at http://{self.headers['Host']}{self.path}"}})
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[tuple[str, list[str]]]:
    _EchoingGateway.seen = []
    served = LoopbackServer(_EchoingGateway)
    try:
        yield f"127.0.0.1:{served.port}", _EchoingGateway.seen
    finally:
        served.stop()


def _stored_bytes(db: Path) -> bytes:
    return b"".join(path.read_bytes() for path in db.parent.glob(db.name + "*"))


def test_a_token_in_the_llm_base_url_reaches_no_channel(
        gateway: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    address, seen = gateway
    for name in ("SUPERBIZ_LLM_MODEL", "SUPERBIZ_LLM_BACKEND", "OPENAI_MODEL", "OPENAI_BASE_URL",
                 "OPENAI_API_KEY", "SUPERBIZ_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SUPERBIZ_LLM_BASE_URL", f"http://auditor:{PASSWORD}@{address}/v1?token={TOKEN}")
    monkeypatch.setenv("SUPERBIZ_LLM_MODEL", "m")
    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "5")
    db = Path(get_settings().database_url().removeprefix("sqlite:///"))

    code = main(["ask", QUESTION, "--engine", "llm", "--json"])
    asked = capsys.readouterr()
    assert any(TOKEN in path for path in seen), "the gateway saw the token (so it could echo it)"
    document = json.loads(asked.out)
    assert code == 1 and document["status"] == "error"
    assert "HTTP 404" in document["error"] and REDACTED in document["error"]

    assert main(["ask", QUESTION, "--engine", "llm"]) == 1  # the readable stream too
    readable = capsys.readouterr()
    assert main(["sessions", "export"]) == 0
    exported = capsys.readouterr()
    assert main(["sessions", "show", "latest"]) == 0
    shown = capsys.readouterr()
    assert main(["db", "init"]) == 0
    init = capsys.readouterr()

    channels = {"ask --json": asked.out + asked.err, "ask": readable.out + readable.err,
                "export": exported.out + exported.err, "show": shown.out + shown.err,
                "db init": init.out + init.err,
                "stored rows": _stored_bytes(db).decode("utf-8", "replace"),
                "console": _console_text(document["session_id"])}
    for channel, text in channels.items():
        assert TOKEN not in text, channel
        assert PASSWORD not in text, channel
    assert "HTTP 404" in channels["console"]


def _console_text(session_id: str) -> str:
    """Every element of the Investigate page showing the session, as text (protobuf dumps)."""
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"),
                            default_timeout=30)
    app.query_params["session"] = session_id
    app.run()
    assert not app.exception

    def walk(node: Any) -> Iterator[str]:
        proto = getattr(node, "proto", None)
        if proto is not None:
            yield str(proto)
        children = getattr(node, "children", {})
        for child in (children.values() if isinstance(children, dict) else children):
            yield from walk(child)

    return "\n".join(walk(app._tree))


def test_a_store_password_is_never_printed(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing listens on port 1: connecting fails, and the failure names the store.
    url = f"postgresql://auditor:{PASSWORD}@127.0.0.1:1/superbiz?application_name={TOKEN}"
    monkeypatch.setenv("SUPERBIZ_DB", url)
    get_settings.cache_clear()
    for argv in (["sessions", "list"], ["db", "init"], ["ask", QUESTION]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "audit store" in err
        assert PASSWORD not in err and TOKEN not in err
    with pytest.raises(Exception) as caught:
        open_store(url)
    assert PASSWORD not in str(caught.value) and TOKEN not in str(caught.value)


@pytest.mark.parametrize("text", [
    "/tmp/sk-test-data/pack.yaml: not found", "file sk-notes-2026.yaml is empty",
    "see /data/risk-assessment-2026.md", r"C:\packs\sk-abcdefghij\pack.yaml"])
def test_sk_in_a_path_or_file_name_is_not_taken_for_a_key(text: str) -> None:
    assert redact_text(text, secrets=[]) == text


@pytest.mark.parametrize("text", [
    "rejected key sk-abcdefghijkl.", 'the key "sk-proj-XYZ123456789" was refused',
    "Authorization: Bearer abc.def-123456", "api_key=abcdef123456"])
def test_a_key_standing_alone_is_still_redacted(text: str) -> None:
    assert REDACTED in redact_text(text, secrets=[])


def test_a_file_name_holding_sk_is_named_in_a_cli_error(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "sk-session-20260708.json"
    assert main(["replay", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
