"""What the rules engine reads by words is data: log levels rank as every log reader ranks them
(core/logfields.py, log_levels.yaml), and the words that tell what kind of answer a question wants
are vocab/answer_kinds.yaml's."""

from __future__ import annotations

import pytest

from core.agents.rules import composer, findings, searches
from core.agents.rules.composer import asks_for_reference, is_yes_no_question

WORDS = composer._KIND_WORDS


def test_a_search_keeps_the_stricter_level_whatever_its_spelling() -> None:
    assert searches._stricter("WARNING", "INFO") == "WARNING"
    assert searches._stricter("debug", "notice") == "notice"
    assert searches._stricter("ERROR", "warn") == "ERROR"
    assert searches._stricter("DEBUG", None) == "DEBUG"


def test_found_lines_rank_by_their_level_and_an_unknown_one_as_info() -> None:
    assert findings._level_rank("ALERT") == findings._level_rank("FATAL") > findings._level_rank("ERROR")
    assert findings._level_rank(" warn ") == findings._level_rank("WARNING") == 3
    assert findings._level_rank("whatever") == findings._level_rank("INFO") == 2


@pytest.mark.parametrize("word", WORDS.yes_no_zh + WORDS.yes_no_en)
def test_each_yes_no_word_makes_a_yes_no_question(word: str) -> None:
    assert is_yes_no_question(f"payment-service {word} OOM 日志")
    assert is_yes_no_question(f"PAYMENT-SERVICE {word.upper()} OOM LOGS")


@pytest.mark.parametrize("word", WORDS.yes_no_openers_en)
def test_a_question_opened_by_an_auxiliary_is_yes_no_only_there(word: str) -> None:
    assert is_yes_no_question(f"{word.capitalize()} payment-service logging OOM kills")
    assert not is_yes_no_question(f"Show OOM kills that payment-service logs, {word}n't")


@pytest.mark.parametrize("word", WORDS.reference_zh + WORDS.reference_en)
def test_each_reference_word_asks_for_reference_text(word: str) -> None:
    assert asks_for_reference(f"HighMemoryUsage {word}")
    assert not asks_for_reference("HighMemoryUsage 告警现在在触发吗")


def test_one_of_several_services_is_or_but_not_perhaps() -> None:
    assert composer._ANY_OF.search("order-service 或者 payment-service 有 OOM 吗")
    assert composer._ANY_OF.search("either order-service or payment-service")
    assert not composer._ANY_OF.search("order-service 或许有 OOM")
    assert not composer._ANY_OF.search("order-service has errors")
