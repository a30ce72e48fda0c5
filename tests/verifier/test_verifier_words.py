"""The verifier's word lists are data (core/language/vocab/claim_relations.yaml, step_words.yaml):
each loads into its shape, lists each form once as it is matched, and every word it lists is read
the way its list says."""

from __future__ import annotations

import pytest

from core.language import vocabulary
from core.verifier.steps import asserted_state, is_repair
from core.verifier.words import CLAIM_RELATIONS, STEP_WORDS, ClaimRelationWords, StepWords

FILES: dict[str, tuple[type[vocabulary.VocabularyFile], vocabulary.VocabularyFile]] = {
    "claim_relations": (ClaimRelationWords, CLAIM_RELATIONS),
    "step_words": (StepWords, STEP_WORDS),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_file_loads_as_its_shape_with_no_empty_list_nor_repeated_or_upper_case_word(name: str) -> None:
    shape, loaded = FILES[name]
    assert name in vocabulary.names()
    assert loaded == vocabulary.validated(shape, vocabulary._document(name))
    for field, words in vars(loaded).items():
        assert words, f"{name}.yaml: {field} is empty"
        if isinstance(words, tuple):
            assert len(set(words)) == len(words), f"{name}.yaml: {field} repeats a word"
            assert all(word == word.lower() for word in words), f"{name}.yaml: {field}: lower case"


@pytest.mark.parametrize("verb", STEP_WORDS.repair_verbs_en + STEP_WORDS.repair_verbs_en_nounable)
def test_every_english_repair_verb_with_an_object_is_a_repair(verb: str) -> None:
    found = is_repair(f"{verb} the connection pool")
    assert found and found in verb  # "apply a fix": its "fix" is found first


@pytest.mark.parametrize("verb", STEP_WORDS.repair_verbs_zh)
def test_every_chinese_repair_verb_with_an_object_is_a_repair_unless_passive_or_a_noun(verb: str) -> None:
    assert is_repair(f"{verb}连接池") == verb
    assert is_repair(f"被{verb}的连接池") == ""
    assert is_repair(f"查看{verb}{STEP_WORDS.repair_not_before_zh[0]}的日志") == ""


@pytest.mark.parametrize("verb", [verb for verb in STEP_WORDS.repair_verbs_en_nounable if " " not in verb])
def test_a_repair_verb_that_is_also_a_noun_is_none_before_a_noun_follower(verb: str) -> None:
    assert is_repair(f"{verb} logs of order-service") == ""


@pytest.mark.parametrize("words", [STEP_WORDS.state_words_zh, STEP_WORDS.state_words_en])
def test_a_state_word_with_an_assertion_concludes_and_with_a_hedge_does_not(words: tuple[str, ...]) -> None:
    for word in words:
        assert asserted_state(f"{word} {STEP_WORDS.assertions_en[0]}") != ""
        assert asserted_state(f"{STEP_WORDS.hedges_en[0]} {word} {STEP_WORDS.assertions_en[0]}") == ""
