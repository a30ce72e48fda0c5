"""One definition of each shared character class (core/language/chars.py), used everywhere."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.agents.rules.planner import question_language
from core.language.chars import DENSE_SCRIPT, HAN, mark_han_edges
from core.language.facts import informative_length
from core.verifier.facts import prepare

REPO_ROOT = Path(__file__).resolve().parents[1]
# A code-point range of an East Asian block written out (\u4e00-..., \uac00-...): only the
# character-class module may define one.
_RANGE = re.compile(r"\\u(?:3040|30a0|3400|4e00|f900|ac00)-", re.IGNORECASE)


def test_no_module_defines_its_own_cjk_range() -> None:
    offenders = [str(path.relative_to(REPO_ROOT))
                 for folder in ("core", "ui", "pages")
                 for path in sorted((REPO_ROOT / folder).rglob("*.py"))
                 if path.name != "charclasses.py" and _RANGE.search(path.read_text("utf-8"))]
    assert offenders == [], f"use core.language.chars instead: {offenders}"


@pytest.mark.parametrize("char, in_han, in_dense", [
    ("内", True, True), ("㐀", True, True),  # unified, extension A
    ("\ufa0e", True, True),  # a compatibility-block ideograph NFKC keeps
    ("メ", False, True), ("あ", False, True), ("메", False, True),
    ("a", False, False), ("，", False, False), ("1", False, False),
])
def test_what_each_class_holds(char: str, in_han: bool, in_dense: bool) -> None:
    assert bool(re.fullmatch(f"[{HAN}]", char)) is in_han
    assert bool(re.fullmatch(f"[{DENSE_SCRIPT}]", char)) is in_dense


def test_language_is_chinese_when_the_question_has_han() -> None:
    assert question_language("只确认 payment-service 的 CPU") == "zh"
    assert question_language("Only confirm payment-service CPU") == "en"


def test_dense_scripts_count_double_for_the_too_short_test() -> None:
    assert informative_length("cpu") == 3
    assert informative_length("内存") == 4
    assert informative_length("メモリ") == 6
    assert informative_length("메모리") == 6


def test_claims_space_a_chinese_run_from_an_ascii_one() -> None:
    assert "cpu 使用率" in prepare("CPU使用率 92%")


# Text of the characters the edges are about: ASCII letters, digits and signs, Han (each block),
# kana and full-width punctuation.
_EDGE_TEXT = st.text(alphabet=st.sampled_from([*"aZ09%/$ -:", "内", "㐀", "\ufa0e", "メ", "，"]),
                     max_size=12)


@given(_EDGE_TEXT)
def test_han_edges_are_marked_where_the_lookaround_pattern_matches(text: str) -> None:
    pattern = f"(?<=[A-Za-z0-9%])(?=[{HAN}])|(?<=[{HAN}])(?=[A-Za-z0-9/$])"
    before = frozenset(string.ascii_letters + string.digits + "%")
    after = frozenset(string.ascii_letters + string.digits + "/$")
    assert mark_han_edges(text, "|", before, after) == re.sub(pattern, "|", text)
