"""Which server is behind a base URL, read from its ``GET /models`` (once per endpoint).

Only asked when no preset is set and the URL says nothing (any host and port but OpenAI's and
the well-known local ones): llama-cpp-python's server and vLLM both listen on port 8000 out of
the box, and they differ in what they accept and how fast they answer. Each server signs its
model list: llama-cpp-python ``"owned_by": "me"``, llama.cpp's ``llama-server``
``"owned_by": "llamacpp"``, vLLM ``"owned_by": "vllm"`` (with ``max_model_len``, its context).
A server that does not answer within a few seconds keeps the guess.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.request
from dataclasses import dataclass

from core.agents.llm.settings import LLMSettings

logger = logging.getLogger(__name__)

_OWNERS: dict[str, str] = {"me": "llama-cpp-python", "llamacpp": "llamacpp", "vllm": "vllm"}
_PROBE_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Detected:
    """What the model list said: the preset it implies and the context it names (if any)."""

    backend: str | None
    context_tokens: int | None


_seen: dict[str, Detected] = {}
_seen_lock = threading.Lock()


def detect(settings: LLMSettings) -> Detected:
    """The server at ``settings.base_url`` as its ``/models`` describes it (cached)."""
    url = settings.public_base_url()
    with _seen_lock:
        if url in _seen:
            return _seen[url]
    found = _probe(settings)
    with _seen_lock:
        _seen[url] = found
    if found.backend:
        logger.info("llm endpoint %s is %s (from its /models)", url, found.backend)
    return found


def _probe(settings: LLMSettings) -> Detected:
    if not settings.base_url:
        return Detected(None, None)
    request = urllib.request.Request(settings.base_url.rstrip("/") + "/models")
    if settings.api_key is not None:
        request.add_header("Authorization", f"Bearer {settings.api_key.get_secret_value()}")
    try:
        with urllib.request.urlopen(request, timeout=_PROBE_TIMEOUT_S) as response:
            body = json.loads(response.read(1 << 20))
    except Exception as exc:  # no list, no detection: the guess stands
        logger.debug("no /models from %s: %s", settings.public_base_url(), type(exc).__name__)
        return Detected(None, None)
    data = body.get("data") if isinstance(body, dict) else None
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
    backend = _OWNERS.get(str(first.get("owned_by") or ""))
    context = first.get("max_model_len")
    return Detected(backend, context if isinstance(context, int) and context > 0 else None)
