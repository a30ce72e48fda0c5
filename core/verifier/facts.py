"""The named facts of a claim -- identifiers, state and level words, negations -- and which of
them a body of evidence lacks.

Every identifier, state word and negation a claim states must appear in its verified evidence;
where they sit does not matter here (values, whose role does matter, are read by
``core.verifier.roles``). Facts are read by the gatekeeper's own extractor
(``core.language.facts``), so both agree on what a number, an identifier or a negation is:
``91%`` equals ``91.0%`` but not ``19%`` or ``91ms``. Text is first spaced between CJK and ASCII
runs (``使用率91%`` holds the number ``91%``), then put in the gatekeeper's normal form.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache

from core.language.alternation import one_of
from core.language.chars import mark_han_edges
from core.language.clauses import CLAIM_WORDS
from core.language.facts import Number, contains_identifier, extract_facts
from core.language.numbers import en_value
from core.language.text import normalize_text
from core.verifier.words import CLAIM_RELATIONS

# A space goes between a Han character and what these start or end: "CPU使用率92%" reads as
# "CPU 使用率 92%".
_BEFORE_HAN = frozenset(string.ascii_letters + string.digits + "%")
_AFTER_HAN = frozenset(string.ascii_letters + string.digits + "/$")
_UNIT_ALIASES = CLAIM_RELATIONS.unit_spellings


@dataclass(frozen=True)
class ClaimFacts:
    """Numbers (value, unit), identifiers, state words and negation markers of a text."""

    numbers: frozenset[Number]
    identifiers: frozenset[str]
    states: frozenset[str]
    negations: frozenset[str]


# Full-width punctuation ends a token ("91%：order-service" is a number and a service, not one
# identifier), as its ASCII form would with a space after it.
_FULL_WIDTH_BREAK = re.compile(r"([：，；。、（）「」【】])")


def _spaced(text: str) -> str:
    return _FULL_WIDTH_BREAK.sub(r"\1 ", mark_han_edges(text, " ", _BEFORE_HAN, _AFTER_HAN))


# Every cited text is prepared once per claim check, and the same lines session after session.
@lru_cache(maxsize=8192)
def prepare(text: str) -> str:
    """The canonical form facts are read from: CJK/ASCII runs spaced, then normalised."""
    return normalize_text(_spaced(text))


@lru_cache(maxsize=4096)
def extract(text: str) -> ClaimFacts:
    """Every checkable fact of ``text`` (cached: the same refs are cited again and again)."""
    spaced = _spaced(text)
    found = extract_facts(normalize_text(spaced), spaced)
    return ClaimFacts(frozenset((value, _UNIT_ALIASES.get(unit, unit)) for value, unit in found.numbers),
                      found.identifiers, found.states | _zh_states(text), frozenset(found.negations))


# An alert's state in a Chinese sentence (the extractor reads the English words only):
# ``告警已恢复`` is "resolved", ``告警正在触发`` "firing". Only next to 告警, and not negated
# (``告警尚未恢复`` says it still fires), so ``服务恢复正常`` or ``触发条件`` are not states.
def _zh_state_pattern(state: str) -> re.Pattern[str]:
    not_after = CLAIM_RELATIONS.alert_state_not_after_zh.get(state)
    after_alert = (r"告警[^，。；,;.]{0,10}?" + (f"(?<![{re.escape(not_after)}])" if not_after else "")
                   + f"(?:{one_of(CLAIM_RELATIONS.alert_state_words_zh[state])})")
    alone = CLAIM_RELATIONS.alert_state_phrases_zh.get(state)
    return re.compile(after_alert + (f"|{one_of(alone)}" if alone else ""))


_ZH_STATE_PHRASES = tuple((state, _zh_state_pattern(state)) for state in CLAIM_RELATIONS.alert_state_words_zh)


def _zh_states(text: str) -> frozenset[str]:
    return frozenset(state for state, _, _ in zh_state_spans(text))


def zh_state_spans(text: str) -> list[tuple[str, int, int]]:
    """(state, start, end) of each alert state ``text`` says in Chinese."""
    return [(state, match.start(), match.end()) for state, pattern in _ZH_STATE_PHRASES
            for match in pattern.finditer(text)]


def missing(claim_text: str, evidence_texts: list[str], *, negations: bool = True) -> list[str]:
    """The claim's facts that no evidence text holds, described for a person."""
    claim = extract(claim_text)
    evidence = [extract(text) for text in evidence_texts]
    region = " | ".join(prepare(text) for text in evidence_texts)
    known_numbers = frozenset().union(*(facts.numbers for facts in evidence))
    known_states = frozenset().union(*(facts.states for facts in evidence))
    known_negations = frozenset().union(*(facts.negations for facts in evidence))
    gaps = [f"number {_show(number)}" for number in sorted(claim.numbers - known_numbers)]
    gaps += [f"identifier '{name}'" for name in sorted(claim.identifiers)
             if not _named_in(region, name)]
    gaps += [f"state '{word}'" for word in sorted(claim.states)
             if _STATE_FORMS.get(word, word) not in {_STATE_FORMS.get(w, w) for w in known_states}]
    if negations:
        gaps += [f"negation '{word}'" for word in sorted(claim.negations - known_negations)]
    return gaps


# Spellings of one state word ("a warning" is a WARN line).
_STATE_FORMS = CLAIM_RELATIONS.state_spellings
# A value with its unit joined by a hyphen ("a 10-second timeout"): a quantity, read by the
# role reader, not a name.
_HYPHENATED_VALUE = re.compile(r"\d+(?:\.\d+)?-[a-z]+")
# "WARN-level entries": a log level, which the attribution checks against the lines, not a name.
_LEVEL_NAMED = re.compile(f"(?:{one_of(CLAIM_WORDS.levels_en)})-level")


def _named_in(region: str, name: str) -> bool:
    """Whether an identifier of a claim is in the evidence: as written, as the singular of a
    plural (``GCs``), or not a name at all (``ninety-one``, ``10-second`` are values,
    ``WARN-level`` a level)."""
    if contains_identifier(region, name):
        return True
    if name.endswith("s") and len(name) > 2 and contains_identifier(region, name[:-1]):
        return True
    return _HYPHENATED_VALUE.fullmatch(name) is not None or en_value(name) is not None \
        or _LEVEL_NAMED.fullmatch(name) is not None


def _show(number: Number) -> str:
    value, unit = number
    return f"{value:g}{unit}"
