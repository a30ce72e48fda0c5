"""The Investigate page's engine picker: when the llm engine can be chosen, and why not."""

from __future__ import annotations

import pytest

from core.views.choices import LLM_SETUP_HINT, llm_availability

_VARS = ("SUPERBIZ_LLM_BASE_URL", "SUPERBIZ_LLM_API_KEY", "SUPERBIZ_LLM_TIMEOUT_S",
         "OPENAI_BASE_URL", "OPENAI_API_KEY")


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)


def test_llm_is_off_without_an_endpoint() -> None:
    availability = llm_availability()
    assert not availability.usable and availability.message == LLM_SETUP_HINT


def test_llm_is_usable_with_an_endpoint_and_the_key_is_never_shown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_LLM_BASE_URL", "http://user:pw@127.0.0.1:11434/v1")
    monkeypatch.setenv("SUPERBIZ_LLM_API_KEY", "sk-secret-123")
    availability = llm_availability()
    assert availability.usable
    assert "127.0.0.1:11434" in availability.message
    assert "sk-secret-123" not in availability.message and "pw" not in availability.message


def test_a_malformed_setting_is_a_message_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_LLM_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "soon")
    availability = llm_availability()
    assert not availability.usable and "SUPERBIZ_LLM_TIMEOUT_S" in availability.message
