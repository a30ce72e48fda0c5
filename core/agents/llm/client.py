"""The one seam between the roles and a model: ``ChatClient.complete``.

Roles speak chat-completions messages (see ``wire``) and get a ``ChatTurn`` back. The real
implementation, ``OpenAIChatClient``, goes through the ``openai`` package (3.x, on ``httpx2``);
the tests' doubles live with them (``tests/doubles``). Every transport failure becomes an
``LLMCallError`` whose message is scrubbed of the API key.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Protocol

from core.agents.llm.completion import ChatTurn, ToolCallRequest, turn_from_body
from core.agents.llm.errors import LLMCallError
from core.agents.llm.profiles import ModelProfile, profile_for
from core.agents.llm.settings import LLMSettings

if TYPE_CHECKING:
    import httpx2
    import openai

__all__ = ["ChatClient", "ChatTurn", "OpenAIChatClient", "ToolCallRequest", "shared_client"]

logger = logging.getLogger(__name__)

# Sent when no key is configured: local servers ignore it, the openai package requires one.
_NO_KEY = "no-key-configured"
# Used when no model is configured and the server lists none (a stub ignores the name).
_FALLBACK_MODEL = "default"


class ChatClient(Protocol):
    """Anything that can answer a chat-completions request."""

    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                 response_format: dict[str, Any] | None = None) -> ChatTurn:
        """Send the conversation; return the model's next turn or raise ``LLMCallError``."""
        ...


class OpenAIChatClient:
    """``ChatClient`` over any OpenAI-compatible endpoint, through the ``openai`` package.

    ``http_client`` (an ``httpx2.Client``) is for tests: one with ``httpx2.MockTransport``
    exercises this class end to end without a network.
    """

    def __init__(self, settings: LLMSettings, profile: ModelProfile | None = None, *,
                 http_client: httpx2.Client | None = None) -> None:
        import openai

        self.settings = settings
        self.profile = profile or profile_for(settings)
        self._secrets = settings.secret_values()
        self._model = settings.model or self.profile.default_model
        api_key = settings.api_key.get_secret_value() if settings.api_key else _NO_KEY
        self._openai: openai.OpenAI = openai.OpenAI(
            api_key=api_key, base_url=settings.base_url or "https://api.openai.com/v1",
            timeout=settings.timeout_s, max_retries=settings.max_retries,
            http_client=http_client)

    @property
    def model(self) -> str:
        """The model name requests use (asked of the server's ``/models`` if not configured)."""
        if self._model is None:
            self._model = self._discover_model()
        return self._model

    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                 response_format: dict[str, Any] | None = None) -> ChatTurn:
        """One ``POST /chat/completions``; see ``ChatClient.complete``."""
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            request["tools"] = tools
        if response_format is not None:
            request["response_format"] = response_format
        if self.settings.temperature is not None:
            request["temperature"] = self.settings.temperature
        try:
            # The raw body, read by ``completion``: one tolerant reader for every server.
            raw = self._openai.chat.completions.with_raw_response.create(**request)
            return turn_from_body(raw.text, raw.headers.get("content-type"))
        except Exception as exc:  # mapped one by one below; nothing unexpected escapes raw
            error = self._map_error(exc)
            # The step records the failure; the log says when it happened (and, at DEBUG, the
            # transport's own exception). The message is already redacted.
            logger.warning("llm call failed: %s", error)
            logger.debug("llm call failed: transport error", exc_info=exc)
            raise error from None

    # ------------------------------------------------------------ internals

    def _discover_model(self) -> str:
        try:
            listed = self._openai.models.list()
            first = next(iter(listed.data), None)
        except Exception as exc:  # a server without /models: any name will do for it
            logger.info("no model list from %s (%s); requests name %r",
                        self.settings.public_base_url(), type(exc).__name__, _FALLBACK_MODEL)
            return _FALLBACK_MODEL
        return str(first.id) if first is not None and first.id else _FALLBACK_MODEL

    def _map_error(self, exc: Exception) -> LLMCallError:
        import openai

        where = self.settings.public_base_url()
        if isinstance(exc, openai.APITimeoutError):
            return self._error("timeout", f"no answer from {where} within "
                                          f"{self.settings.timeout_s:g}s")
        if isinstance(exc, openai.APIConnectionError):
            # The transport's own words ("connection reset", "disconnected") say more than
            # the package's generic "Connection error."
            cause = exc.__cause__ or exc.__context__
            return self._error("connection", f"cannot reach {where}: {cause or exc}")
        if isinstance(exc, openai.RateLimitError):
            return self._error("rate_limited", f"HTTP 429 from {where}: {_status_text(exc)}"
                                               f"{_retry_after(exc)}")
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return self._error("auth", f"HTTP {exc.status_code} from {where}: "
                                       f"{_status_text(exc)}")
        if isinstance(exc, openai.APIStatusError):
            return self._error("http_error", f"HTTP {exc.status_code} from {where}: "
                                             f"{_status_text(exc)}{_retry_after(exc)}")
        # ``completion.CompletionFormatError`` (and any JSON or validation error) is a ValueError.
        if isinstance(exc, (openai.APIResponseValidationError, ValueError)):
            return self._error("invalid_output",
                               f"the answer from {where} is not a chat completion: {exc}")
        return self._error("http_error", f"{type(exc).__name__} from {where}: {exc}")

    def _error(self, kind: Any, detail: str) -> LLMCallError:
        return LLMCallError(kind, detail, secrets=self._secrets)


def _status_text(exc: openai.APIStatusError) -> str:
    """The server's own error message, shortened (its body may echo the request)."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return str(message)[:300]
    text = " ".join(str(body or "").split())  # e.g. a proxy's HTML error page
    return f"{exc.message} {text[:120]!r}" if text else str(exc.message)[:300]


def _retry_after(exc: openai.APIStatusError) -> str:
    """`` (Retry-After: 7)`` when the server said when to come back. Retrying is the
    operator's choice (SUPERBIZ_LLM_MAX_RETRIES), so the hint goes into the record."""
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    return f" (Retry-After: {value})" if value else ""


_shared: dict[tuple[str, ...], OpenAIChatClient] = {}
_shared_lock = threading.Lock()
_MAX_SHARED = 8


def shared_client(settings: LLMSettings, profile: ModelProfile) -> OpenAIChatClient:
    """One ``OpenAIChatClient`` per distinct configuration, shared by the roles of a process:
    a client holds a connection pool, and building one costs tens of milliseconds."""
    key = (settings.model_dump_json(), *settings.secret_values(), profile.name)
    with _shared_lock:
        client = _shared.get(key)
        if client is None:
            if len(_shared) >= _MAX_SHARED:  # forget the oldest configuration
                _shared.pop(next(iter(_shared)))
            client = _shared[key] = OpenAIChatClient(settings, profile)
        return client
