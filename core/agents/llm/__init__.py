"""The ``llm`` engine: any OpenAI-compatible model as planner, executor, verifier or composer.

Layout (each concern in its own module)::

    settings    LLMSettings: endpoint, key, model, timeouts (SUPERBIZ_LLM_* / OPENAI_*)
    profiles    ModelProfile per backend (openai, vllm, ollama, llamacpp, llama-cpp-python, stub)
    detect      which server a URL that says nothing is, from its GET /models
    capabilities  what an endpoint refused, stepped down from and remembered for the run
    budget      requests kept inside the model's context window, or a clear failure
    client      ChatClient seam; OpenAIChatClient over the ``openai`` package
    completion  a response body -> ChatTurn, tolerant of every legitimate wire form
    errors      LLMCallError kinds; secrets redacted from every message
    wire        chat-completions messages, tool schemas, response formats
    prompts     versioned prompt files in core/prompts
    lenient     forms (casing, nulls, "12", wrappers) normalised against a contract
    structured  parse + validate + one re-ask, parse status
    planner / executor / verifier / composer   the four roles
    transcript / stub_server                   a scripted OpenAI-compatible server, to try the
                                               engine offline (the tests' model doubles live in
                                               tests/doubles, outside the package)

The gatekeeper stays code, and code has the last word after every model step.

Importing this package loads nothing: each name below loads its module on first use (the
roles load the rules engine they build on, ~1 s; never ``openai``, which the client imports
when it first talks to an endpoint). So ``core.agents.llm.settings`` (the console's first page
asks whether a model is configured) comes without the roles. The registry loads the roles only
when a role is given the ``llm`` engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.agents.llm.client import ChatClient, ChatTurn, OpenAIChatClient, ToolCallRequest
    from core.agents.llm.composer import LLMComposer
    from core.agents.llm.errors import LLMCallError, redact
    from core.agents.llm.executor import LLMExecutor
    from core.agents.llm.planner import LLMPlanner
    from core.agents.llm.profiles import PROFILES, ModelProfile, profile_for
    from core.agents.llm.settings import LLMSettings
    from core.agents.llm.verifier import LLMVerifier

# Each public name -> the module that defines it.
_MODULES = {
    "ChatClient": "client", "ChatTurn": "client", "OpenAIChatClient": "client",
    "ToolCallRequest": "client", "LLMComposer": "composer", "LLMCallError": "errors",
    "redact": "errors", "LLMExecutor": "executor", "LLMPlanner": "planner",
    "PROFILES": "profiles", "ModelProfile": "profiles", "profile_for": "profiles",
    "LLMSettings": "settings", "LLMVerifier": "verifier",
}

__all__ = [
    "PROFILES",
    "ChatClient",
    "ChatTurn",
    "LLMCallError",
    "LLMComposer",
    "LLMExecutor",
    "LLMPlanner",
    "LLMSettings",
    "LLMVerifier",
    "ModelProfile",
    "OpenAIChatClient",
    "ToolCallRequest",
    "profile_for",
    "redact",
]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
