"""Where the ``llm`` engine finds its model: endpoint, key, model name, time limits.

Read from ``SUPERBIZ_LLM_*``, falling back to the variables every OpenAI-compatible tool already
honours (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``). The API key is a
``SecretStr``: it prints as ``**********`` and is read only where the HTTP client is built.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.errors import EngineError, first_error
from core.redact import public_url, url_secrets


def _env(name: str, *fallbacks: str) -> AliasChoices:
    return AliasChoices(f"SUPERBIZ_LLM_{name}", *fallbacks)


class LLMSettings(BaseSettings):
    """Connection and budget settings of the ``llm`` engine (every field has an env variable)."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, env_ignore_empty=True)

    base_url: str | None = Field(
        default=None, validation_alias=_env("BASE_URL", "OPENAI_BASE_URL"),
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: OpenAI)")
    api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("API_KEY", "OPENAI_API_KEY"),
        description="bearer key; local servers usually need none")
    model: str | None = Field(
        default=None, validation_alias=_env("MODEL", "OPENAI_MODEL"),
        description="model name; default: the backend preset's, else the server's first model")
    backend: str | None = Field(
        default=None, validation_alias=_env("BACKEND"),
        description="capability preset: openai, vllm, ollama, llamacpp, llama-cpp-python or "
                    "stub (default: guessed)")
    # Per role: a small local model may plan while a larger one executes. Unset: ``model``.
    planner_model: str | None = Field(default=None, validation_alias=_env("PLANNER_MODEL"))
    executor_model: str | None = Field(default=None, validation_alias=_env("EXECUTOR_MODEL"))
    verifier_model: str | None = Field(default=None, validation_alias=_env("VERIFIER_MODEL"))
    composer_model: str | None = Field(default=None, validation_alias=_env("COMPOSER_MODEL"))
    # None: the preset's (60 s for hosted APIs; 600 s for servers that usually run on a CPU,
    # where reading a 4,000-token prompt alone can take a minute).
    timeout_s: float | None = Field(default=None, gt=0, validation_alias=_env("TIMEOUT_S"))
    # The model's context window in tokens; None: what the server reports, else the preset's.
    # Requests are kept inside it (``budget``), and a question that cannot fit fails clearly.
    context_tokens: int | None = Field(default=None, ge=256, validation_alias=_env("CONTEXT"))
    # The longest answer asked for (``max_tokens``); None: the room the budget keeps for it
    # when the window is known (a quarter, at most 1,536), else the server's default.
    max_answer_tokens: int | None = Field(default=None, ge=16,
                                          validation_alias=_env("MAX_ANSWER_TOKENS"))
    # 0 by default: a retried failure would leave no trace in the audit, so a failed model
    # call fails its step and is recorded. Raise it to let the openai package retry.
    max_retries: int = Field(default=0, ge=0, validation_alias=_env("MAX_RETRIES"))
    max_tool_steps: int = Field(default=8, ge=1, validation_alias=_env("MAX_TOOL_STEPS"))
    temperature: float | None = Field(default=0.0, validation_alias=_env("TEMPERATURE"))

    def for_role(self, role: str) -> LLMSettings:
        """These settings with ``model`` set to the role's own model, when one is configured."""
        role_model = getattr(self, f"{role}_model", None)
        return self.model_copy(update={"model": role_model}) if role_model else self

    def has_endpoint(self) -> bool:
        """Whether a base URL or an API key is configured (else the engine refuses to start)."""
        return bool(self.base_url) or self.api_key is not None

    def secret_values(self) -> list[str]:
        """Every configured secret (the key; the base URL's userinfo and query values), so
        error messages can be scrubbed of them."""
        key = self.api_key.get_secret_value() if self.api_key else ""
        return [*([key] if key else []), *(url_secrets(self.base_url) if self.base_url else [])]

    def public_base_url(self) -> str:
        """The base URL without its ``user:password@`` part and query string, safe to show
        and store."""
        if not self.base_url:
            return "https://api.openai.com/v1"
        return public_url(self.base_url)


def load_llm_settings() -> LLMSettings:
    """The settings from the environment; a bad value is one ``EngineError`` line naming it."""
    try:
        return LLMSettings()
    except ValidationError as exc:
        raise EngineError(f"llm settings: {first_error(exc)}") from None


def require_endpoint(settings: LLMSettings) -> None:
    """Refuse to build a real client with nothing configured: without a base URL or a key the
    openai package would try OpenAI's public API, which fails slowly and says little."""
    if not settings.has_endpoint():
        raise EngineError(
            "llm engine not configured: set SUPERBIZ_LLM_BASE_URL (any OpenAI-compatible "
            "server, e.g. http://127.0.0.1:11434/v1 for Ollama) or OPENAI_API_KEY; "
            "see docs/llm.md")
