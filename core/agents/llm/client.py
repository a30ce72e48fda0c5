"""The one seam between the roles and a model: ``ChatClient.complete``.

Roles speak chat-completions messages (see ``wire``) and get a ``ChatTurn`` back. The real
implementation, ``OpenAIChatClient``, goes through the ``openai`` package (3.x, on ``httpx2``);
the tests' doubles live with them (``tests/doubles``). Every transport failure becomes an
``LLMCallError`` whose message is scrubbed of the API key.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import TYPE_CHECKING, Any, Protocol

from core.agents.llm import budget
from core.agents.llm.capabilities import (
    EndpointCapabilities,
    context_overflow,
    for_endpoint,
    refusal_of,
    schema_in_prompt,
)
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
# Refusals one request may learn from before its error stands (format, then tools+format).
_MAX_STEP_DOWNS = 3


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
        self.timeout_s = settings.timeout_s or self.profile.timeout_s
        # Shared by every client of this endpoint in the process: what one request learned
        # (a refused response_format, the context size) serves the others.
        self.capabilities: EndpointCapabilities = for_endpoint(settings.public_base_url(),
                                                               self.profile)
        api_key = settings.api_key.get_secret_value() if settings.api_key else _NO_KEY
        self._openai: openai.OpenAI = openai.OpenAI(
            api_key=api_key, base_url=settings.base_url or "https://api.openai.com/v1",
            timeout=self.timeout_s, max_retries=settings.max_retries,
            http_client=http_client)

    @property
    def model(self) -> str:
        """The model name requests use (asked of the server's ``/models`` if not configured)."""
        if self._model is None:
            self._model = self._discover_model()
        return self._model

    @property
    def context_tokens(self) -> int | None:
        """The context window requests are fitted to: the setting, else what the server
        named, else the preset's (``None``: unknown, nothing is fitted)."""
        return (self.settings.context_tokens or self.capabilities.context_tokens
                or self.profile.context_tokens)

    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                 response_format: dict[str, Any] | None = None) -> ChatTurn:
        """One ``POST /chat/completions`` (see ``ChatClient.complete``), fitted to the context
        window, asked the way the endpoint takes it; a refused optional part is learned and
        the request sent again without it (``capabilities``)."""
        import openai

        context = self.context_tokens
        # With a known window the answer is bounded too: a small model may otherwise write
        # until the window is full, which on a CPU takes many minutes.
        max_tokens = self.settings.max_answer_tokens or (
            budget.answer_room(context) if context else None)
        for _ in range(_MAX_STEP_DOWNS + 1):
            fitted = budget.fit(messages, tools, self.context_tokens, max_tokens)
            sent_format = self.capabilities.request_format(response_format,
                                                           with_tools=bool(tools))
            sent_messages = fitted.messages
            if response_format is not None and response_format.get("type") == "json_schema" \
                    and (sent_format or {}).get("type") != "json_schema":
                sent_messages = schema_in_prompt(sent_messages, response_format)
            try:
                turn = self._send(sent_messages, fitted.tools, sent_format, max_tokens)
            except openai.APIStatusError as exc:
                if not self._learned(exc, tools=bool(tools), sent_format=sent_format):
                    raise self._failed(exc) from None
                continue
            except Exception as exc:  # mapped one by one in ``_map_error``
                raise self._failed(exc) from None
            notes = fitted.notes + self._format_notes(response_format, sent_format)
            return dataclasses.replace(turn, notes=notes) if notes else turn
        raise self._error("http_error", "the endpoint kept refusing the request after "
                                        f"{_MAX_STEP_DOWNS} step-downs")

    def _send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
              response_format: dict[str, Any] | None, max_tokens: int | None) -> ChatTurn:
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        if tools:
            request["tools"] = tools
        if response_format is not None:
            request["response_format"] = response_format
        if self.settings.temperature is not None:
            request["temperature"] = self.settings.temperature
        # The raw body, read by ``completion``: one tolerant reader for every server.
        raw = self._openai.chat.completions.with_raw_response.create(**request)
        return turn_from_body(raw.text, raw.headers.get("content-type"))

    def _learned(self, exc: openai.APIStatusError, *, tools: bool,
                 sent_format: dict[str, Any] | None) -> bool:
        """Whether the refusal taught something worth sending the request again for."""
        message = _status_text(exc)
        overflow = context_overflow(message)
        if overflow is not False:
            # Not retried: the next request is fitted to the size the server named, and this
            # one ends clearly (the window it was fitted to was wrong, or unknown).
            if overflow is not None:
                self.capabilities.learn_context(overflow)
            return False
        refused = refusal_of(exc.status_code, message, sent_tools=tools, sent_format=sent_format)
        if refused is None or not self.capabilities.learn(refused, message):
            return False
        logger.info("llm endpoint %s refused %s: stepping down (%s)",
                    self.settings.public_base_url(), refused, message[:120])
        return True

    def _format_notes(self, asked: dict[str, Any] | None,
                      sent: dict[str, Any] | None) -> tuple[str, ...]:
        """What the session should know about how this answer was asked for."""
        if asked is None or (sent or {}).get("type") == asked.get("type"):
            return ()
        found = "; ".join(self.capabilities.notes())
        shown = (sent or {}).get("type") or "no response_format (schema in the prompt)"
        return (f"asked with {shown} in place of {asked.get('type')}: {found}",)

    def _failed(self, exc: Exception) -> LLMCallError:
        error = self._map_error(exc)
        # The step records the failure; the log says when it happened (and, at DEBUG, the
        # transport's own exception). The message is already redacted.
        logger.warning("llm call failed: %s", error)
        logger.debug("llm call failed: transport error", exc_info=exc)
        return error

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
                                          f"{self.timeout_s:g}s (SUPERBIZ_LLM_TIMEOUT_S)")
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
        if isinstance(exc, openai.APIStatusError) and \
                context_overflow(_status_text(exc)) is not False:
            return self._error("context", f"HTTP {exc.status_code} from {where}: the request "
                                          f"exceeds the model's context window "
                                          f"({_status_text(exc)}); the engine fitted it to "
                                          f"{self.context_tokens or 'an unknown number of'} "
                                          f"tokens: set SUPERBIZ_LLM_CONTEXT to the server's")
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
