"""The pickers of the Investigate page: packs, engines per role, fault modes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.agents.base import ROLES
from core.agents.registry import DEFAULT_ENGINE, ENGINE_NAMES
from core.contracts import SessionDocument

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
    """``tamper_number · gatekeeper`` for the picker: short enough to read whole in a narrow
    column (the description under the picker says the rest)."""
    from core.agents.faults import FAULT_MODES

    mode = FAULT_MODES.get(name)
    if mode is None:
        return "none · honest executor"
    return f"{name} · {mode.caught_by}"


def fault_description(name: str) -> str:
    """What the fault does, or an empty string for ``none``."""
    from core.agents.faults import FAULT_MODES

    mode = FAULT_MODES.get(name)
    return mode.description if mode else ""


def fault_or_none(name: str | None) -> str | None:
    """The picker's value as the pipeline's ``executor_fault`` argument."""
    return None if not name or name == NO_FAULT else name


def restored_inputs(document: SessionDocument, *, worlds: Sequence[str],
                    llm_usable: bool) -> dict[str, Any]:
    """The Investigate page's inputs as ``document`` was asked (``st.session_state`` keys ->
    values): its question, its pack when this console offers it, its fault, and its engines
    when the llm engine can run here (else every role stays on the offline engine)."""
    from core.agents.faults import FAULT_MODES

    inputs: dict[str, Any] = {"question": document.question,
                              "fault": document.executor_fault
                              if document.executor_fault in FAULT_MODES else NO_FAULT}
    if document.pack in worlds:
        inputs["pack"] = document.pack
    for role in ROLES:
        engine = document.engines.get(role)
        usable = engine in ENGINE_NAMES and (llm_usable or engine == DEFAULT_ENGINE)
        inputs[f"engine_{role}"] = engine if usable else DEFAULT_ENGINE
    return inputs
