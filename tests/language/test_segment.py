"""Reading a Chinese run as dictionary words (core/language/segment.py), and what it spares
the question reader: a word found across two others."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.language.question import read_question
from core.language.segment import segment

WORDS = frozenset({"确认", "认证", "证书", "有", "有关", "关闭", "过期", "是否", "请"})


@pytest.mark.parametrize("run, words", [
    ("确认证书", ["确认", "证书"]),          # not 认证 across them
    ("有关闭吗", ["有", "关闭"]),            # not 有关 + 闭
    ("请确认证书是否过期", ["请", "确认", "证书", "是否", "过期"]),
    ("运行良好", []),                        # nothing of the dictionary
])
def test_the_reading_that_covers_most_wins(run: str, words: list[str]) -> None:
    assert [run[start:end] for start, end in segment(run, WORDS, 2)] == words


def _greedy_coverage(run: str) -> int:
    """Characters leftmost-longest matching covers: what a single alternation would read."""
    pattern = re.compile("|".join(sorted(WORDS, key=len, reverse=True)))
    return sum(len(match.group()) for match in pattern.finditer(run))


@given(st.lists(st.sampled_from(sorted(WORDS | {"书", "吗", "认", "关"})), max_size=12).map("".join))
def test_a_reading_is_words_in_order_covering_at_least_what_an_alternation_does(run: str) -> None:
    found = segment(run, WORDS, 2)
    assert all(run[start:end] in WORDS for start, end in found)
    assert all(end <= start for (_, end), (start, _) in pairwise(found))
    assert sum(end - start for start, end in found) >= _greedy_coverage(run)


@pytest.mark.parametrize("question, concepts", [
    ("请确认证书有没有过期", ["certificate", "expired"]),  # 认证 (login) was read across 确认证书
    ("确认证书状态", ["certificate"]),
    ("nginx 有关闭的记录吗", ["shutdown"]),
    ("nginx 的登录认证有没有失败", ["login", "failure"]),
])
def test_a_concept_is_never_read_across_two_words(question: str, concepts: list[str]) -> None:
    assert read_question(question, services=["nginx"]).concepts == concepts
