"""What each kind of OpenAI-compatible server can do, kept apart from the wire format and client.

The chat-completions wire format is the same everywhere; what differs is which optional parts a
server honours. A ``ModelProfile`` names them, so the roles ask for structured output the way
the backend understands (JSON schema, JSON mode, or a prompt plus validation) and never send a
request the server would reject.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from core.agents.llm.settings import LLMSettings
from core.errors import EngineError


@dataclass(frozen=True)
class ModelProfile:
    """Capabilities of one backend.

    ``json_schema_output``: honours ``response_format={"type": "json_schema", ...}``;
    ``json_object_output``: honours ``{"type": "json_object"}`` (JSON mode);
    ``strict_mode``: enforces the schema exactly (``"strict": true``), which needs a schema in
    the strict subset (every property required, no extra keys);
    ``tools_with_response_format``: accepts ``tools`` and ``response_format`` in one request
    (others constrain the final answer in a separate request);
    ``default_model``: the model used when none is configured (``None``: ask ``/models``);
    ``timeout_s``: the per-request timeout unless ``SUPERBIZ_LLM_TIMEOUT_S`` sets one (servers
    that usually run on a CPU get minutes);
    ``context_tokens``: the context window a server of this kind has out of the box, when
    neither the setting nor the server says (``None``: unknown, no budget is enforced).

    A preset is a first guess: what a server refuses is learned at run time
    (``capabilities``), so a wrong guess costs one refused request, not the session.
    """

    name: str
    tool_calling: bool = True
    json_schema_output: bool = True
    json_object_output: bool = True
    strict_mode: bool = False
    tools_with_response_format: bool = False
    default_model: str | None = None
    timeout_s: float = 60.0
    context_tokens: int | None = None


# CPU inference: prompt reading alone takes tens of seconds for a few thousand tokens.
_LOCAL_TIMEOUT_S = 600.0

PROFILES: dict[str, ModelProfile] = {
    "openai": ModelProfile("openai", strict_mode=True, tools_with_response_format=True,
                           default_model="gpt-4o-mini"),
    # vLLM: tools need --enable-auto-tool-choice; guided decoding honours json_schema.
    "vllm": ModelProfile("vllm"),
    # Ollama's /v1 endpoint: tools and structured outputs (json_schema) since 0.5.
    "ollama": ModelProfile("ollama", timeout_s=_LOCAL_TIMEOUT_S, context_tokens=4096),
    # llama.cpp's llama-server: tools with --jinja; json_schema becomes a grammar.
    "llamacpp": ModelProfile("llamacpp", timeout_s=_LOCAL_TIMEOUT_S, context_tokens=4096),
    # llama-cpp-python's server (python -m llama_cpp.server): response_format takes only
    # "text" or "json_object" (a json_schema is refused with HTTP 500); its chat handlers
    # pass ``tools`` to the model's chat template, which mostly ignores them (the executor
    # then makes the calls by code and puts the results in the prompt); --n_ctx is 2048
    # unless set.
    "llama-cpp-python": ModelProfile("llama-cpp-python", tool_calling=False,
                                     json_schema_output=False, timeout_s=_LOCAL_TIMEOUT_S,
                                     context_tokens=2048),
    # Our stub server (core.agents.llm.stub_server): accepts every option, replays a script.
    "stub": ModelProfile("stub", strict_mode=True, tools_with_response_format=True,
                         default_model="stub-model"),
}

# Other spellings of the presets' names.
_ALIASES: dict[str, str] = {"llama_cpp": "llama-cpp-python",
                            "llama_cpp_python": "llama-cpp-python", "llama.cpp": "llamacpp"}

# Ports the servers listen on out of the box.
_PORT_GUESSES: dict[int, str] = {11434: "ollama", 8080: "llamacpp"}


def guess_backend(base_url: str | None) -> str:
    """The preset a base URL most likely needs: OpenAI's host -> openai, port 11434 -> ollama,
    port 8080 -> llamacpp, anything else -> vllm (the most common self-hosted server)."""
    if not base_url:
        return "openai"
    parts = urlsplit(base_url)
    if (parts.hostname or "").endswith("api.openai.com"):
        return "openai"
    return _PORT_GUESSES.get(parts.port or 0, "vllm")


def profile_for(settings: LLMSettings, *, probe: bool = False) -> ModelProfile:
    """The profile named by ``SUPERBIZ_LLM_BACKEND``, else the one guessed from the base URL;
    with ``probe``, a URL that says nothing is told apart by the server's ``GET /models``
    (``detect``), which may also name the context window."""
    name = (settings.backend or guess_backend(settings.base_url)).strip().lower()
    name = _ALIASES.get(name, name)
    try:
        profile = PROFILES[name]
    except KeyError:
        raise EngineError(f"unknown llm backend {name!r}; presets are "
                          f"{', '.join(PROFILES)}") from None
    if not probe or settings.backend or name != "vllm":
        return profile
    from core.agents.llm.detect import detect  # a network probe: only where it is asked for

    found = detect(settings)
    profile = PROFILES.get(found.backend or "", profile)
    return replace(profile, context_tokens=found.context_tokens) if found.context_tokens \
        else profile
