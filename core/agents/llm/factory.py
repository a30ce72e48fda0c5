"""Building ``llm`` roles from settings: one place that knows how the pieces fit."""

from __future__ import annotations

from core.agents.llm.client import ChatClient, shared_client
from core.agents.llm.composer import LLMComposer
from core.agents.llm.executor import LLMExecutor
from core.agents.llm.planner import LLMPlanner
from core.agents.llm.profiles import profile_for
from core.agents.llm.role import LLMRole
from core.agents.llm.settings import LLMSettings, load_llm_settings
from core.agents.llm.verifier import LLMVerifier
from core.errors import EngineError

ROLE_CLASSES: dict[str, type[LLMRole]] = {
    "planner": LLMPlanner, "executor": LLMExecutor,
    "verifier": LLMVerifier, "composer": LLMComposer,
}


def build_llm_role(role: str, settings: LLMSettings | None = None, *,
                   client: ChatClient | None = None) -> LLMRole:
    """The ``llm`` engine of ``role``, on ``client`` or on the endpoint ``settings`` name."""
    if role not in ROLE_CLASSES:
        raise EngineError(f"unknown role {role!r}; roles are {', '.join(ROLE_CLASSES)}")
    settings = settings or load_llm_settings()
    profile = profile_for(settings)
    return ROLE_CLASSES[role](client or shared_client(settings, profile), profile,
                              settings=settings)
