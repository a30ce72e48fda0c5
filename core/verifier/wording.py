"""Rates and relative dates a claim states in words, which no value of its evidence is.

"Connection refused every minute" (``每分钟``) states how often lines come: twelve lines between
11:00 and 11:17 do not say it, so the evidence must state that rate itself. "since yesterday"
(``从昨天起``, "2 days ago") names a day relative to a clock the verifier is not given: the
evidence must say the same word, else the claim must state the date.
"""

from __future__ import annotations

import re

from core.language.dates import WORDS as DATE_WORDS
from core.language.number_words import NUMBER_WORDS
from core.language.text import fold
from core.language.time import TimeWords
from core.language.vocabulary import load


def _pattern(words: tuple[str, ...] | list[str]) -> re.Pattern[str]:
    ordered = sorted(words, key=len, reverse=True)
    return re.compile("|".join(
        rf"(?<![a-z]){re.escape(word)}(?![a-z])" if word[:1].isascii() and word[:1].isalpha()
        else rf"{re.escape(word)}(?![a-z])" if word.isascii() else re.escape(word) for word in ordered))


# A claim states a rate in words; the evidence may also give it as a unit ("/min").
_RATES = tuple((rate, _pattern([word for word in words if not word.startswith("/")]), _pattern(words))
               for rate, words in NUMBER_WORDS.rate_words.items())
_DAY_WORDS = load("time_words", TimeWords).day_words
_RELATIVE = _pattern([*(word for words in _DAY_WORDS.values() for word in words), *DATE_WORDS.days_back,
                      *DATE_WORDS.last_week, *DATE_WORDS.this_week, *DATE_WORDS.last_month,
                      *DATE_WORDS.this_month])
_AGO = re.compile(rf"\d+\s*(?:{'|'.join(map(re.escape, DATE_WORDS.day_units_en))})\s+"
                  rf"(?:{'|'.join(map(re.escape, DATE_WORDS.ago_en))})(?![a-z])"
                  rf"|\d+\s*(?:{'|'.join(map(re.escape, DATE_WORDS.ago_zh))})")


def unsupported_wording(claim_text: str, evidence_texts: list[str]) -> list[str]:
    """Why each rate and relative day of ``claim_text`` that no evidence text states is
    unsupported."""
    claim = fold(claim_text)
    evidence = " | ".join(fold(text) for text in evidence_texts)
    findings: list[str] = []
    for rate, said_as, given_as in _RATES:
        said = said_as.search(claim)
        if said is not None and given_as.search(evidence) is None:
            findings.append(
                f"'{claim_text[said.start():said.end()]}' states a rate (once a {rate}); no verified "
                "excerpt or ref states one, and a count of lines over a span is not one")
    for pattern in (_RELATIVE, _AGO):
        for said in pattern.finditer(claim):
            if said.group() not in evidence:
                findings.append(
                    f"'{claim_text[said.start():said.end()]}' is a day relative to now, which no "
                    "verified excerpt or ref gives; state the date the evidence gives")
                break
    return findings
