"""``FirstCharAlternation`` finds exactly what ``re.finditer`` of the whole alternation finds.

The lexicon's synonyms and the concepts' question words are matched through it (compiled one
first character at a time, for startup time), so it must agree with the single regex it stands
for on every text: leftmost match first, the first alternative in order at a position, word
guards, lookbehinds that look before the position a match is tried at.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.language.alternation import Alternative, FirstCharAlternation, one_of
from core.language.concepts import _ask_owners, _ask_parts, concept_mentions
from core.language.lexicon import _TOPIC_TABLE, _emit, _trie, topic_mentions
from core.language.text import normalize

ALPHABET = "ab c-_x0连接池内存使用率\u3000"
WORDS = ["ab", "a b", "abc", "b", "x0", "0", "连接", "连接池", "内存", "内存使用率", "-x", "c c"]


# Texts made of pieces of the real vocabularies and the characters around words that matter.
_PIECES = ["cpu", "使用率", "内存", "连接池", "gc", "slow query", "slow-query", "数据库", "超时",
           "timeout", "timeouts", "connection", "refused", "连接断开", "disk full", "oom", "x", "1",
           " ", "-", "_", ".", "过高", "status", ":", "=500", "full", "memory", "usage", "p99"]
TEXTS = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


def _word_alternatives(words: list[str]) -> list[Alternative]:
    """Each word as a regex, the way the concepts build theirs (guards on ASCII words)."""
    alternatives = []
    for i, word in enumerate(words):
        prefix, body, suffix = _ask_parts(word)
        alternatives.append(Alternative(word[0], f"(?P<w{i}>{body})", prefix, suffix))
    return alternatives


def _whole(alternatives: list[Alternative]) -> re.Pattern[str]:
    """The one regex the alternatives stand for."""
    return re.compile("|".join(a.prefix + a.body_text() + a.suffix for a in alternatives))


def _spans(matches: object) -> list[tuple[int, int, str | None]]:
    return [(m.start(), m.end(), m.lastgroup) for m in matches]  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_same_matches_as_the_whole_alternation(text: str) -> None:
    alternatives = _word_alternatives(WORDS)
    whole = _whole(alternatives)
    lazy = FirstCharAlternation(alternatives, word_guard=True)
    assert _spans(lazy.finditer(text)) == _spans(whole.finditer(text))


def test_a_guarded_word_does_not_match_inside_another() -> None:
    lazy = FirstCharAlternation(_word_alternatives(["db"]), word_guard=True)
    assert _spans(lazy.finditer("dbus db xdb db-1")) == [(5, 7, "w0"), (12, 14, "w0")]


def test_only_the_first_characters_a_text_holds_are_compiled() -> None:
    lazy = FirstCharAlternation(_word_alternatives(WORDS), word_guard=True)
    list(lazy.finditer("内存 ab"))
    assert sorted(lazy._compiled) == ["a", "内"]


def _by_word_alternatives(words: list[str]) -> list[Alternative]:
    """Each word whole, an ASCII one keyed by its first run of letters and digits."""
    alternatives = []
    for i, word in enumerate(words):
        run = re.match("[a-z0-9]+", word)
        prefix, suffix = ("(?<![a-z0-9])", "(?![a-z0-9])") if run else ("", "")
        alternatives.append(Alternative(run.group() if run else word[0], f"(?P<w{i}>{re.escape(word)})",
                                        prefix, suffix))
    return alternatives


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_by_word_same_matches_as_the_whole_alternation(text: str) -> None:
    alternatives = _by_word_alternatives(WORDS)
    lazy = FirstCharAlternation(alternatives, word_guard=True, by_word=True)
    assert _spans(lazy.finditer(text)) == _spans(_whole(alternatives).finditer(text))


def test_by_word_compiles_only_the_words_a_text_holds() -> None:
    lazy = FirstCharAlternation(_by_word_alternatives(WORDS), word_guard=True, by_word=True)
    assert _spans(lazy.finditer("abd a b x0")) == [(4, 7, "w1"), (8, 10, "w4")]
    assert sorted(lazy._compiled) == ["a", "x0"]


def test_a_body_made_on_first_need_is_made_only_for_a_character_the_text_holds() -> None:
    made: list[str] = []

    def body_of(alternative: Alternative) -> Alternative:
        def make() -> str:
            made.append(alternative.first)
            return alternative.body_text()
        return alternative._replace(body=make)

    alternatives = _word_alternatives(WORDS)
    lazy = FirstCharAlternation([body_of(a) for a in alternatives], word_guard=True)
    text = "内存 ab 连接 xy"
    assert _spans(lazy.finditer(text)) == _spans(_whole(alternatives).finditer(text))
    assert set(made) == set(lazy._compiled) and "内" in made and "b" not in made


def test_no_alternatives_match_nothing() -> None:
    assert list(FirstCharAlternation([]).finditer("anything")) == []


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_topic_mentions_agree_with_the_whole_synonym_trie(text: str) -> None:
    normalized = normalize(text)
    for in_logs in (False, True):
        words = [w for t in _TOPIC_TABLE for w in (*t.synonyms, *(() if in_logs else t.asks))]
        word_start = [w for w in words if re.match("[a-z0-9]", normalize(w).strip())]
        other = [w for w in words if w not in word_start]
        whole = re.compile(f"(?:{_emit(_trie(other), '')})|(?<![a-z0-9])(?:{_emit(_trie(word_start), '')})")
        expected = [(m.start(), m.end()) for m in whole.finditer(normalized)]
        assert [(m.start, m.end) for m in topic_mentions(normalized, in_logs=in_logs)] == expected


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_concept_mentions_agree_with_the_whole_alternation(text: str) -> None:
    owners = _ask_owners()
    ordered = sorted(owners, key=len, reverse=True)
    whole = re.compile("|".join(f"(?P<a{i}>{''.join(_ask_parts(word))})" for i, word in enumerate(ordered)))
    normalized = normalize(text)
    expected = [(m.start(), m.end(), owners[ordered[int((m.lastgroup or "a0")[1:])]])
                for m in whole.finditer(normalized)]
    assert [(m.start, m.end, m.concept) for m in concept_mentions(normalized)] == expected


MIXED = [Alternative("a", "ab", "(?<!x)"), Alternative("a", "a", "(?<!x)"), Alternative("a", "a", "", "b?c"),
         Alternative("a", "abc"), Alternative("a", "(?P<n>a)", "(?<!x)", "(?!b)"), Alternative("b", "b+", "", "a*")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcx ", max_size=30))
def test_rows_of_alternatives_with_different_surroundings_keep_their_order(text: str) -> None:
    lazy = FirstCharAlternation(MIXED)
    assert _spans(lazy.finditer(text)) == _spans(_whole(MIXED).finditer(text))


def test_one_of_reads_a_word_whole_wherever_the_list_puts_it() -> None:
    # a longer word added after its prefix is still read whole ("logs", not "log" + "s")
    assert re.match(one_of(["log", "logs", "日志"]), "logs").group() == "logs"
    assert re.match(one_of(["log", "logs"], longest_first=False), "logs").group() == "log"


def test_one_of_ends_english_words_only_when_asked() -> None:
    pattern = re.compile(f"(?:{one_of(['the', '分析'], english_ends_word=True)})")
    assert pattern.match("theme") is None and pattern.match("the x") and pattern.match("分析x")
    assert re.match(one_of(["a+b"]), "a+b") and not re.match(one_of(["a+b"]), "aab")  # words are escaped


def test_one_of_no_words_matches_nothing() -> None:
    # an empty alternative would match at every position
    assert re.search(f"x|{one_of([])}", "abc") is None
