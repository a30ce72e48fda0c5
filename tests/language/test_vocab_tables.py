"""The word tables read from ``core/language/vocab/``: each file has its module's shape, and a
word added to a file changes what the engine reads -- no Python edit."""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from core import logfields
from core.language import (
    clauses,
    cues,
    facts,
    mentions,
    number_words,
    numbers,
    quantities,
    quote_words,
    scope,
    signs,
    time,
    vocabulary,
)
from core.verifier import polarity

# file -> the model its module validates it into
TABLES: dict[str, type[vocabulary.VocabularyFile]] = {
    "claim_words": clauses.ClaimWords,
    "fact_words": facts.FactWords,
    "scope_words": scope.ScopeWords,
    "time_words": time.TimeWords,
    "number_words": number_words.NumberWords,
    "log_levels": logfields.LogLevels,
    "role_cues": cues.RoleCues,
    "antonyms": polarity.Antonyms,
}
NOW = datetime(2026, 7, 8, 11, 20, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_file_loads_into_its_model_and_is_listed(name: str) -> None:
    assert name in vocabulary.names()
    table = vocabulary.load(name, TABLES[name])
    assert isinstance(table, TABLES[name])
    assert all(value for value in vars(table).values())  # no empty table
    readme = (vocabulary.VOCAB_DIR / "README.md").read_text(encoding="utf-8")
    assert f"`{name}.yaml`" in readme


def test_the_tables_hold_what_the_modules_read() -> None:
    assert {"not", "never", "cannot"} <= facts.EN_NEGATIONS
    assert facts.fact_items("没有告警")[0][2:] == ("negation", "没有")  # the longer word first
    assert logfields.canonical_level(" warning ") == "WARN" and logfields.level_rank("panic") == 5
    assert logfields.SYSLOG_SEVERITIES[0] == "EMERGENCY" and logfields.SYSLOG_SEVERITIES[-1] == "DEBUG"
    assert mentions.canonical_level("[WARNING]".strip("[]")) == "warn"
    assert numbers.zh_value("一百四十七") == 147.0 and numbers.en_value("ninety-one") == 91.0
    assert quantities.UNITS["gb"] == ("size", 1024.0 ** 3) and quantities.UNITS["ns"] == ("time", 1e-9)
    assert signs.qualifier("x<=91%", 3) == (1, "≤") and signs.qualifier("x~91%", 2) == (1, "≈")
    assert cues.role_cue("内存已使用 ", "size") == ("used", 2) and cues.role_cue("内存使用率 ", "percent") is None
    assert cues.role_cue("告警出现在 ", "time") is None  # 出现在 "appeared at" is no 现在
    assert "the" in quote_words.STOP_WORDS and "not" not in quote_words.STOP_WORDS


@pytest.fixture
def edited_vocab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., ModuleType]]:
    """``edit(name, change, module)``: the module re-read from a copy of the vocab folder whose
    ``name.yaml`` ``change`` (a function of the parsed document) edited. Every edited module is
    re-read from the real folder afterwards."""
    folder = tmp_path / "vocab"
    shutil.copytree(vocabulary.VOCAB_DIR, folder)
    monkeypatch.setattr(vocabulary, "VOCAB_DIR", folder)
    reloaded: list[ModuleType] = []

    def clear() -> None:
        vocabulary._document.cache_clear()
        vocabulary._load.cache_clear()

    def edit(name: str, change: Callable[[Any], None], module: ModuleType) -> ModuleType:
        path = folder / f"{name}.yaml"
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        change(document)
        path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
        clear()
        reloaded.append(module)
        return importlib.reload(module)

    yield edit
    monkeypatch.undo()
    clear()
    for module in reloaded:
        importlib.reload(module)


def test_a_day_word_added_to_the_file_names_a_day(edited_vocab: Callable[..., ModuleType]) -> None:
    assert time.time_window("今儿 order-service 报错了吗", NOW) is None
    edited = edited_vocab("time_words", lambda doc: doc["day_words"]["today"].append("今儿"), time)
    window = edited.time_window("今儿 order-service 报错了吗", NOW)
    assert window is not None and window.since == "2026-07-08T00:00:00+08:00" and window.spans == ((0, 2),)


def test_a_narrow_marker_added_to_the_file_is_read(edited_vocab: Callable[..., ModuleType]) -> None:
    question = "仅核实 payment-service 是否告警"
    assert "只确认" not in scope.narrow_markers(question)
    edited = edited_vocab("scope_words", lambda doc: doc["narrow_markers"]["只确认"].append("仅核实"), scope)
    assert edited.narrow_markers(question) == ["只确认"]


def test_a_level_spelling_added_to_the_file_is_canonical(edited_vocab: Callable[..., ModuleType]) -> None:
    assert logfields.canonical_level("WARNUNG") is None
    edited = edited_vocab("log_levels", lambda doc: doc["spellings"].update(WARNUNG="WARN"), logfields)
    assert edited.canonical_level("warnung") == "WARN" and edited.level_rank("WARNUNG") == 3


def test_a_table_that_lost_its_shape_names_the_file_and_field(edited_vocab: Callable[..., ModuleType]) -> None:
    with pytest.raises(vocabulary.VocabularyError, match=r"fact_words\.yaml: quote_stop_word"):
        edited_vocab("fact_words", lambda doc: doc.update(quote_stop_word=doc.pop("quote_stop_words")), facts)
