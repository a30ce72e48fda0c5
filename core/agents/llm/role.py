"""What the four ``llm`` roles share: a client, a backend profile, settings, a prompt version.

Each role class can be built with nothing (everything from the environment, which is how the
registry builds them) or with an explicit ``ChatClient`` and ``ModelProfile`` (how tests build
them, with a ``ScriptedChatClient``).
"""

from __future__ import annotations

import functools
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
        # The role's own model (SUPERBIZ_LLM_<ROLE>_MODEL) when one is set.
        self.settings = (settings or load_llm_settings()).for_role(self.role)
        self.profile = profile or profile_for(self.settings, probe=client is None)
        if client is None:
            require_endpoint(self.settings)
        self.client: ChatClient = client or shared_client(self.settings, self.profile)
        self.prompt: Prompt = load_prompt(self.role, prompt_version)

    def _complete(self, messages: list[wire.Message], *, notes: list[str] | None = None,
                  **options: Any) -> ChatTurn:
        """One model call; a failure names this role. How the client had to ask (a refused
        ``response_format``, results cut to fit the context) is added to ``notes``, once."""
        try:
            turn = self.client.complete(messages, **options)
        except LLMCallError as exc:
            raise exc.with_role(self.role) from None
        if notes is not None:
            notes.extend(note for note in turn.notes if note not in notes)
        return turn

    def _noting(self, notes: list[str]) -> Any:
        """``_complete`` adding to ``notes`` (what ``request_structured`` is given)."""
        return functools.partial(self._complete, notes=notes)
