"""Word forms: a word matches a text's whole tokens in any of its forms, never inside another
word; synonyms come from vocab/word_forms.yaml."""

from __future__ import annotations

import pytest

from core.language.wordforms import holds_stem, holds_word, stem, synonyms, tokens


@pytest.mark.parametrize(("forms", "shared"), [
    (["retry", "retries", "retried", "retrying"], "retri"),
    (["forbid", "forbidden", "forbids"], "forbid"),
    (["stop", "stopped", "stopping", "stops"], "stop"),
    (["refuse", "refused", "refuses", "refusing"], "refus"),
    (["process", "processes"], "process"),
    (["connect", "connected", "connection", "connections"], "connect"),
    (["run", "ran", "running", "runs"], "run"),
])
def test_every_form_of_a_word_has_one_stem(forms: list[str], shared: str) -> None:
    assert {stem(form) for form in forms} == {shared}


def test_tokens_split_camel_case_and_separators() -> None:
    assert tokens("OOMKilled pod in room_12; ERROR-CODE=fooBar") == [
        "oom", "killed", "pod", "in", "room", "12", "error", "code", "foo", "bar"]


@pytest.mark.parametrize(("text", "word", "held"), [
    ("Container OOMKilled", "oom", True),
    ("Room 12 booked", "oom", False),             # never inside another word
    ("Task 17 retried after backoff", "retries", True),
    ("Request was forbidden", "forbid", True),
    ("No free worker slots", "worker slot", True),  # a phrase: its tokens in order
    ("slots for workers", "worker slot", False),
    ("连接超时", "超时", True),                     # Chinese: a substring
])
def test_a_word_is_held_as_whole_tokens_in_any_form(text: str, word: str, held: bool) -> None:
    assert holds_word(text, word) is held


def test_a_keyword_stem_is_held_at_a_tokens_start() -> None:
    """The question reader's stems ("proces", "respons") match as the log search matches word
    parts, but only from a token's start."""
    assert holds_stem("Killed process 4242 (java)", "proces")
    assert not holds_stem("Room 12 booked", "oom")


def test_synonyms_are_both_ways_and_exclude_the_word() -> None:
    assert "reject" in synonyms("refused") and "refuse" in synonyms("reject")
    assert "refuse" not in synonyms("refuse")
    assert "no free" in synonyms("run out")
    assert synonyms("zookeeper") == []
