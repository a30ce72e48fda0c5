"""How a model step fails, and the rule that no secret ever reaches a message.

Every failure of the ``llm`` engine is an ``LLMCallError`` (an ``EngineError``) with a ``kind``
an auditor can filter on. The pipeline stores its message on the session, so messages are
scrubbed of the configured key and of anything shaped like a key before they are built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from core.errors import EngineError

FaultKind = Literal[
    "timeout",            # no answer within the configured timeout
    "connection",         # the endpoint could not be reached
    "http_error",         # the endpoint answered with an HTTP error status
    "rate_limited",       # HTTP 429
    "auth",               # HTTP 401 / 403
    "invalid_output",     # the answer is not a chat completion, or not the contract's JSON
    "empty_answer",       # no content and no tool call
    "config",             # the engine is not usable as configured
]

REDACTED = "[REDACTED]"
# Shapes of bearer secrets: OpenAI-style keys and Authorization header values.
_KEY_SHAPES = (
    re.compile(r"sk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-~+/=]{6,}"),
    re.compile(r"(?i)(api[_-]?key[\"'=:\s]+)[A-Za-z0-9._\-~+/=]{6,}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every given secret and every key-shaped token replaced by ``[REDACTED]``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for shape in _KEY_SHAPES:
        text = shape.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text


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
