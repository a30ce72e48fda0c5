"""The verifier's word lists -- ``vocab/claim_relations.yaml`` (what a claim relates and
concludes) and ``vocab/step_words.yaml`` (what a next step does) -- and the regex alternations
built from them. The words are data; how they combine (a word boundary, what may follow) is
the pattern each module writes around them."""

from __future__ import annotations

from collections.abc import Iterable

from core.language.alternation import one_of
from core.language.vocabulary import VocabularyFile, load


class ClaimRelationWords(VocabularyFile):
    """``claim_relations.yaml``: comparison, direction, diagnosis and negation words, and the
    words that link a value to its role."""

    above_zh: tuple[str, ...]
    above_en: tuple[str, ...]
    below_zh: tuple[str, ...]
    below_en: tuple[str, ...]
    up_zh: tuple[str, ...]
    up_en: tuple[str, ...]
    down_zh: tuple[str, ...]
    down_en: tuple[str, ...]
    faster_zh: tuple[str, ...]
    faster_en: tuple[str, ...]
    slower_zh: tuple[str, ...]
    slower_en: tuple[str, ...]
    direction_negators_zh: tuple[str, ...]
    direction_negators_en: tuple[str, ...]
    diagnosis_words: tuple[str, ...]
    causal_words: tuple[str, ...]
    not_negation_before: dict[str, str]
    negative_adjectives: tuple[str, ...]
    negation_spellings: dict[str, str]
    state_spellings: dict[str, str]
    fires_at: tuple[str, ...]
    range_joins: tuple[str, ...]
    range_openers: tuple[str, ...]
    range_closers: tuple[str, ...]
    search_labels: tuple[str, ...]
    timed_names_en: tuple[str, ...]
    timed_names_zh: tuple[str, ...]
    unit_spellings: dict[str, str]
    alert_state_words_zh: dict[str, tuple[str, ...]]
    alert_state_not_after_zh: dict[str, str]
    alert_state_phrases_zh: dict[str, tuple[str, ...]]


CLAIM_RELATIONS = load("claim_relations", ClaimRelationWords)


class StepWords(VocabularyFile):
    """``step_words.yaml``: repair and gathering verbs, and the words that make a step conclude
    or keep it open."""

    repair_verbs_en_nounable: tuple[str, ...]
    noun_followers: tuple[str, ...]
    repair_verbs_en: tuple[str, ...]
    repair_verbs_zh: tuple[str, ...]
    repair_not_after_zh: str
    repair_not_before_zh: tuple[str, ...]
    gather_verbs_zh: tuple[str, ...]
    gather_verbs_en: tuple[str, ...]
    clause_joiners_zh: tuple[str, ...]
    clause_joiners_en: tuple[str, ...]
    cause_phrases_zh: tuple[str, ...]
    cause_nouns_zh: tuple[str, ...]
    cause_verbs_zh: tuple[str, ...]
    cause_phrases_en: tuple[str, ...]
    assertions_zh: tuple[str, ...]
    assertions_en: tuple[str, ...]
    state_words_zh: tuple[str, ...]
    state_words_en: tuple[str, ...]
    broken_states_zh: tuple[str, ...]
    definite_states_en: tuple[str, ...]
    presumed_zh: tuple[str, ...]
    presumed_en: tuple[str, ...]
    asked_state_zh: tuple[str, ...]
    asked_state_en: tuple[str, ...]
    hedges_zh: tuple[str, ...]
    hedges_en: tuple[str, ...]
    asking_zh: tuple[str, ...]
    asking_en: tuple[str, ...]
    purpose_before_repair: tuple[str, ...]
    runbook_words: tuple[str, ...]


STEP_WORDS = load("step_words", StepWords)



def whole(words: Iterable[str], before: str = "a-z") -> str:
    """English words as whole words: no letter (nor any of ``before``) before, no letter after."""
    return rf"(?<![{before}])(?:{one_of(words)})(?![a-z])"
