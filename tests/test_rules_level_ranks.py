"""The rules engine ranks log levels as every log reader does (core/logfields.py,
log_levels.yaml), not by a copy of the table that missed spellings."""

from __future__ import annotations

from core.agents.rules import findings, searches


def test_a_search_keeps_the_stricter_level_whatever_its_spelling() -> None:
    assert searches._stricter("WARNING", "INFO") == "WARNING"
    assert searches._stricter("debug", "notice") == "notice"
    assert searches._stricter("ERROR", "warn") == "ERROR"
    assert searches._stricter("DEBUG", None) == "DEBUG"


def test_found_lines_rank_by_their_level_and_an_unknown_one_as_info() -> None:
    assert findings._level_rank("ALERT") == findings._level_rank("FATAL") > findings._level_rank("ERROR")
    assert findings._level_rank(" warn ") == findings._level_rank("WARNING") == 3
    assert findings._level_rank("whatever") == findings._level_rank("INFO") == 2
