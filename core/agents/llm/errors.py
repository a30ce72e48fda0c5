"""How a model step fails, and the rule that no secret ever reaches a message.

Every failure of the ``llm`` engine is an ``LLMCallError`` (an ``EngineError``) with a ``kind``
an auditor can filter on. The pipeline stores its message on the session, so messages are
scrubbed (``core.redact``) of the configured key, of the base URL's userinfo and query values,
of every other configured secret and of anything shaped like a key before they are built.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from core.errors import EngineError
from core.redact import REDACTED, configured_secrets, redact_text

__all__ = ["REDACTED", "FaultKind", "LLMCallError", "redact"]

FaultKind = Literal[
    "timeout",            # no answer within the configured timeout
    "connection",         # the endpoint could not be reached
    "http_error",         # the endpoint answered with an HTTP error status
    "rate_limited",       # HTTP 429
    "auth",               # HTTP 401 / 403
    "invalid_output",     # the answer is not a chat completion, or not the contract's JSON
    "empty_answer",       # no content and no tool call
    "config",             # the engine is not usable as configured
    "context",            # the request cannot fit the model's context window
]

def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with the given secrets, every secret the environment configures, every URL's
    userinfo and query values, and every key-shaped token replaced (``core.redact``)."""
    return redact_text(text, [*secrets, *configured_secrets()])


class LLMCallError(EngineError):
    """A model step failed; ``kind`` says how. The message never contains a secret."""

    def __init__(self, kind: FaultKind, detail: str, *, secrets: Iterable[str] = (),
                 role: str | None = None) -> None:
        self.kind: FaultKind = kind
        self.detail = redact(detail, secrets)
        self.role = role
        step = f"llm {role} step" if role else "llm model call"
        super().__init__(f"{step} failed ({kind}): {self.detail}")

    def with_role(self, role: str) -> LLMCallError:
        """The same error, its message naming the role whose model step failed."""
        return LLMCallError(self.kind, self.detail, role=role)
