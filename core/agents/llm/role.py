"""What the four ``llm`` roles share: a client, a backend profile, settings, a prompt version.

Each role class can be built with nothing (everything from the environment, which is how the
registry builds them) or with an explicit ``ChatClient`` and ``ModelProfile`` (how tests build
them, with a ``ScriptedChatClient``).
"""

from __future__ import annotations

from typing import Any

from core.agents.llm import wire
from core.agents.llm.client import ChatClient, ChatTurn, shared_client
from core.agents.llm.errors import LLMCallError
from core.agents.llm.profiles import ModelProfile, profile_for
from core.agents.llm.prompts import DEFAULT_PROMPT_VERSION, Prompt, load_prompt
from core.agents.llm.settings import LLMSettings, load_llm_settings, require_endpoint


class LLMRole:
    """Base of ``LLMPlanner`` / ``LLMExecutor`` / ``LLMVerifier`` / ``LLMComposer``."""

    engine = "llm"
    role = ""

    def __init__(self, client: ChatClient | None = None, profile: ModelProfile | None = None, *,
                 settings: LLMSettings | None = None,
                 prompt_version: str = DEFAULT_PROMPT_VERSION) -> None:
        self.settings = settings or load_llm_settings()
        self.profile = profile or profile_for(self.settings)
        if client is None:
            require_endpoint(self.settings)
        self.client: ChatClient = client or shared_client(self.settings, self.profile)
        self.prompt: Prompt = load_prompt(self.role, prompt_version)

    def _complete(self, messages: list[wire.Message], **options: Any) -> ChatTurn:
        """One model call; a failure names this role."""
        try:
            return self.client.complete(messages, **options)
        except LLMCallError as exc:
            raise exc.with_role(self.role) from None
