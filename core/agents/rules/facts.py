"""The checkable facts of a claim, and which of them a body of evidence lacks.

The verifier's entailment test: every number with its unit, every identifier, every state word
and every negation a claim states must appear somewhere in its verified excerpts. Order and
position do not matter here (that is the gatekeeper's concern when it matches a quote); what
matters is that nothing in the claim is new. Numbers compare by value and unit, so ``91%``
equals ``91.0%`` but not ``19%`` or ``91ms``. Text is normalised with the gatekeeper's normal
form, after a space is put between CJK and ASCII runs (``使用率91%`` holds the number ``91%``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.gatekeeper import normalize_text

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
_CJK_ASCII_BOUNDARY = re.compile(rf"(?<=[{_CJK}])(?=[A-Za-z0-9/$])|(?<=[A-Za-z0-9%])(?=[{_CJK}])")
# A number not inside an identifier (pod hashes, v1, HikariPool-1), with the unit glued to it.
_NUMBER_RE = re.compile(r"(?<![\w.\-])(\d+(?:\.\d+)?)([a-zµμ%]*)(?![\w.]*\d)")
_TOKEN_RE = re.compile(r"/?[a-z0-9_][a-z0-9_\-./:]*[a-z0-9]")
_CAMEL_RE = re.compile(r"\b(?=\w*[a-z])(?=\w*[A-Z]\w*[A-Z])[A-Za-z][A-Za-z0-9]+\b")
_UNIT_ALIASES = {"sec": "s", "secs": "s", "min": "m", "mins": "m"}
STATE_WORDS = frozenset({"firing", "resolved", "pending", "inactive", "error", "warn", "warning",
                         "critical", "fatal"})
_EN_NEGATION_RE = re.compile(
    r"(?<![\w'])(?:not|no|never|without|none|nothing|cannot|unable|can't|don't|doesn't|didn't|"
    r"isn't|aren't|wasn't|weren't|won't)(?![\w'])")
_ZH_NEGATION_RE = re.compile(r"没有|未|没|不|无|非")

Number = tuple[float, str]


@dataclass(frozen=True)
class ClaimFacts:
    """Numbers (value, unit), identifiers, state words and negation markers of a text."""

    numbers: frozenset[Number]
    identifiers: frozenset[str]
    states: frozenset[str]
    negations: frozenset[str]


def prepare(text: str) -> str:
    """The canonical form facts are read from: CJK/ASCII runs spaced, then normalised."""
    return normalize_text(_CJK_ASCII_BOUNDARY.sub(" ", text))


def extract(text: str) -> ClaimFacts:
    """Every checkable fact of ``text``."""
    spaced = _CJK_ASCII_BOUNDARY.sub(" ", text)
    normalized = normalize_text(spaced)
    numbers = frozenset((float(value), _UNIT_ALIASES.get(unit, unit))
                        for value, unit in _NUMBER_RE.findall(normalized))
    identifiers = {token for token in _TOKEN_RE.findall(normalized)
                   if not token[0].isdigit() and re.search(r"[a-z]", token)
                   and re.search(r"[0-9\-_/:.]", token)}
    identifiers |= {match.group().casefold() for match in _CAMEL_RE.finditer(spaced)}
    states = frozenset(word for word in re.findall(r"[a-z]+", normalized) if word in STATE_WORDS)
    negations = frozenset(_EN_NEGATION_RE.findall(normalized) + _ZH_NEGATION_RE.findall(normalized))
    return ClaimFacts(numbers, frozenset(identifiers), states, negations)


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
             if not _contains_identifier(region, name)]
    gaps += [f"state '{word}'" for word in sorted(claim.states - known_states)]
    if negations:
        gaps += [f"negation '{word}'" for word in sorted(claim.negations - known_negations)]
    return gaps


def _contains_identifier(region: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", region) is not None


def _show(number: Number) -> str:
    value, unit = number
    return f"{value:g}{unit}"
