"""Settings from the environment, backend presets, and keeping secrets out of text."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from core.agents.llm.errors import LLMCallError, redact
from core.agents.llm.profiles import PROFILES, guess_backend, profile_for
from core.agents.llm.settings import LLMSettings
from core.errors import EngineError

_VARS = ("SUPERBIZ_LLM_BASE_URL", "SUPERBIZ_LLM_API_KEY", "SUPERBIZ_LLM_MODEL",
         "SUPERBIZ_LLM_PLANNER_MODEL", "SUPERBIZ_LLM_CONTEXT", "SUPERBIZ_LLM_TIMEOUT_S",
         "SUPERBIZ_LLM_BACKEND", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)


def test_superbiz_variables_win_over_openai_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-var/v1")
    monkeypatch.setenv("OPENAI_MODEL", "from-openai-var")
    monkeypatch.setenv("SUPERBIZ_LLM_BASE_URL", "http://superbiz-var/v1")
    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "7.5")
    settings = LLMSettings()
    assert settings.base_url == "http://superbiz-var/v1"
    assert settings.model == "from-openai-var"  # no SUPERBIZ_LLM_MODEL: falls back
    assert settings.timeout_s == 7.5


def test_api_key_is_a_secret_that_never_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdefghijkl")
    settings = LLMSettings()
    assert settings.secret_values() == ["sk-live-abcdefghijkl"]
    assert "sk-live" not in repr(settings) and "sk-live" not in str(settings.model_dump())


def test_public_base_url_drops_credentials() -> None:
    settings = LLMSettings(base_url="https://user:hunter2@llm.example:8443/v1")
    assert settings.public_base_url() == "https://llm.example:8443/v1"


@pytest.mark.parametrize(("base_url", "expected"), [
    (None, "openai"),
    ("https://api.openai.com/v1", "openai"),
    ("http://127.0.0.1:11434/v1", "ollama"),
    ("http://localhost:8080/v1", "llamacpp"),
    ("http://gpu-box:8000/v1", "vllm"),
])
def test_backend_is_guessed_from_the_base_url(base_url: str | None, expected: str) -> None:
    assert guess_backend(base_url) == expected
    assert profile_for(LLMSettings(base_url=base_url)) is PROFILES[expected]


def test_explicit_backend_overrides_the_guess() -> None:
    settings = LLMSettings(base_url="http://localhost:11434/v1", backend="LlamaCpp")
    assert profile_for(settings).name == "llamacpp"


def test_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(EngineError, match="unknown llm backend 'tgi'"):
        profile_for(LLMSettings(backend="tgi"))


def test_only_openai_and_stub_presets_are_strict() -> None:
    assert {name for name, profile in PROFILES.items() if profile.strict_mode} == {"openai", "stub"}


def test_redact_removes_configured_and_key_shaped_secrets() -> None:
    text = "key=my-own-secret; Authorization: Bearer abc.def-123456; other sk-proj-XYZ123456789"
    cleaned = redact(text, ["my-own-secret"])
    assert "my-own-secret" not in cleaned and "abc.def-123456" not in cleaned
    assert "sk-proj-XYZ123456789" not in cleaned
    assert cleaned.count("[REDACTED]") == 3


def test_call_error_message_is_redacted_and_names_the_role() -> None:
    error = LLMCallError("auth", "rejected key sk-abcdefghijkl", secrets=["sk-abcdefghijkl"])
    named = error.with_role("verifier")
    assert isinstance(named, EngineError) and named.kind == "auth"
    assert str(named) == "llm verifier step failed (auth): rejected key [REDACTED]"


def test_a_bad_value_is_one_clear_error_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from core.agents.llm.settings import load_llm_settings

    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "soon")
    with pytest.raises(EngineError, match="llm settings: SUPERBIZ_LLM_TIMEOUT_S"):
        load_llm_settings()


def test_empty_variables_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_LLM_MODEL", "")
    monkeypatch.setenv("SUPERBIZ_LLM_MAX_TOOL_STEPS", "")
    settings = LLMSettings()
    assert settings.model is None and settings.max_tool_steps == 8


def test_ask_with_an_unconfigured_llm_engine_fails_fast_and_writes_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli import main

    for name in ("SUPERBIZ_LLM_BASE_URL", "SUPERBIZ_LLM_API_KEY", "OPENAI_BASE_URL",
                 "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(["ask", "只确认 payment-service 当前是否存在 CPU 使用率过高告警",
                 "--executor", "llm"]) == 2
    err = capsys.readouterr().err
    assert "llm engine not configured" in err and "SUPERBIZ_LLM_BASE_URL" in err
    assert main(["sessions", "list", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"


def test_a_role_may_have_its_own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_LLM_MODEL", "big")
    monkeypatch.setenv("SUPERBIZ_LLM_PLANNER_MODEL", "small")
    settings = LLMSettings()
    assert settings.for_role("planner").model == "small"
    assert settings.for_role("executor").model == "big"


def test_the_timeout_and_context_default_to_the_presets(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.agents.llm.client import OpenAIChatClient

    local = OpenAIChatClient(LLMSettings(base_url="http://127.0.0.1:8000/v1",
                                         backend="llama-cpp-python"))
    assert local.timeout_s == 600 and local.context_tokens == 2048
    hosted = OpenAIChatClient(LLMSettings(api_key=SecretStr("sk-test-abcdefgh")))
    assert hosted.timeout_s == 60 and hosted.context_tokens is None
    monkeypatch.setenv("SUPERBIZ_LLM_CONTEXT", "8192")
    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "900")
    chosen = OpenAIChatClient(LLMSettings(base_url="http://127.0.0.1:8000/v1",
                                          backend="llama_cpp"))
    assert chosen.timeout_s == 900 and chosen.context_tokens == 8192
