"""Settings come from the ``SUPERBIZ_*`` variables (read by ``Settings.from_environment``).

The bad values of each variable are in ``tests/hardening/test_store_and_options.py``; these
pin how variables are found.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.errors import SettingsError
from core.settings import Settings, get_settings


@pytest.fixture(autouse=True)
def _fresh_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in Settings.model_fields:
        monkeypatch.delenv(f"SUPERBIZ_{name.upper()}", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_unset_variables_give_the_defaults() -> None:
    settings = Settings.from_environment()
    assert (settings.engine, settings.default_pack, settings.lease_timeout) == ("rules", "demo", 300.0)


def test_variables_are_read_with_their_prefix_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_ENGINE", "llm")
    monkeypatch.setenv("superbiz_default_pack", "shop")
    monkeypatch.setenv("SUPERBIZ_LEASE_TIMEOUT", "12.5")
    monkeypatch.setenv("ENGINE", "ignored: no prefix")
    monkeypatch.setenv("SUPERBIZ_NOT_A_SETTING", "ignored")
    settings = get_settings()
    assert (settings.engine, settings.default_pack, settings.lease_timeout) == ("llm", "shop", 12.5)


def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_LEASE_TIMEOUT", "soon")
    with pytest.raises(SettingsError, match=r"^SUPERBIZ_LEASE_TIMEOUT='soon': .*valid number"):
        get_settings()
