"""The pickers of the Investigate page: packs, engines per role, fault modes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.agents.base import ROLES
from core.agents.registry import DEFAULT_ENGINE

NO_FAULT = "none"
LLM_SETUP_HINT = ("llm engine off: no endpoint configured, so every role runs the offline "
                  "rules engine. To use a model, set SUPERBIZ_LLM_BASE_URL (any "
                  "OpenAI-compatible server) or OPENAI_API_KEY, optionally SUPERBIZ_LLM_MODEL, "
                  "and restart the console (docs/llm.md).")


@dataclass(frozen=True)
class LLMAvailability:
    """Whether the ``llm`` engine can be picked, and a sentence saying why (not)."""

    usable: bool
    message: str


def llm_availability() -> LLMAvailability:
    """``llm`` is usable once an endpoint or an API key is configured in the environment."""
    from core.agents.llm.settings import load_llm_settings
    from core.errors import EngineError

    try:
        settings = load_llm_settings()
    except EngineError as exc:  # a malformed SUPERBIZ_LLM_* value: say which, keep rules usable
        return LLMAvailability(False, f"llm engine off: {exc}")
    if not settings.has_endpoint():
        return LLMAvailability(False, LLM_SETUP_HINT)
    model = settings.model or "the server's default model"
    return LLMAvailability(True, f"llm engine: {settings.public_base_url()} · {model}")


def default_pack_index(names: Sequence[str]) -> int:
    """Position of the configured default pack (``SUPERBIZ_DEFAULT_PACK``) in ``names``, else 0."""
    from core.settings import get_settings

    default = get_settings().default_pack
    return list(names).index(default) if default in names else 0


def default_roles() -> dict[str, str]:
    """Every role on the default (offline) engine."""
    return {role: DEFAULT_ENGINE for role in ROLES}


def fault_choices() -> list[str]:
    """``none`` then every fault mode, in the order ``FAULT_MODES`` lists them."""
    from core.agents.faults import FAULT_MODES

    return [NO_FAULT, *FAULT_MODES]


def fault_label(name: str) -> str:
    """``tamper_number — caught by the gatekeeper`` for the picker."""
    from core.agents.faults import FAULT_MODES

    mode = FAULT_MODES.get(name)
    if mode is None:
        return "none (the executor's honest output)"
    return f"{name} — caught by the {mode.caught_by}"


def fault_description(name: str) -> str:
    """What the fault does, or an empty string for ``none``."""
    from core.agents.faults import FAULT_MODES

    mode = FAULT_MODES.get(name)
    return mode.description if mode else ""


def fault_or_none(name: str | None) -> str | None:
    """The picker's value as the pipeline's ``executor_fault`` argument."""
    return None if not name or name == NO_FAULT else name
