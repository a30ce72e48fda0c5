"""A negative observation the session itself contradicts.

A verified no-hit call shows that one query found nothing; it does not make "no restart
records" true when another call of the same session returned the restart, nor when the claim's
own text says records were found (``未发现重启记录，共查到 3 条``). Both are checked here:

- the denied thing is what the no-hit call searched for (its search units: ``query``,
  ``terms``, ``keyword`` ...), under its filters (service, minimum level, time range, excluded
  words); any other ref of the session -- cited by a claim, or returned by any invocation --
  that holds it under those filters contradicts the absence;
- a clause of the claim that is not negated and says something was found (a found word, or a
  count of records above zero) asserts records.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from core.contracts import ClaimResult
from core.language.alternation import one_of
from core.language.clauses import clauses
from core.language.facts import EN_NEGATIONS, FACT_WORDS, contains_identifier
from core.language.lexicon import declared_topics, expand_topics, topics_in
from core.language.text import fold
from core.language.vocabulary import VocabularyFile, load
from core.tools.args import UNIT_ARGS, argument_values
from core.verifier.evidence import Item
from core.verifier.rules import ABSENCE_CONTRADICTED, most_serious
from core.verifier.support import Finding
from core.verifier.words import CLAIM_RELATIONS, whole


class AbsenceWords(VocabularyFile):
    """``vocab/absence_words.yaml``."""

    found_en: tuple[str, ...]
    found_zh: tuple[str, ...]
    record_units: tuple[str, ...]
    line_words_en: tuple[str, ...]
    line_words_zh: tuple[str, ...]


ABSENCE_WORDS = load("absence_words", AbsenceWords)

_NEGATED = re.compile(one_of(FACT_WORDS.zh_negations) + "|n't|"
                      + whole([*EN_NEGATIONS, *CLAIM_RELATIONS.negative_adjectives]))
_FOUND = re.compile(whole(ABSENCE_WORDS.found_en) + "|" + one_of(ABSENCE_WORDS.found_zh))
_UNITS = sorted(ABSENCE_WORDS.record_units, key=len, reverse=True)
_COUNTED = re.compile(r"(?<![\d.:\-])(\d+)\s*(?:" + "|".join(
    rf"{re.escape(unit)}(?![a-z])" if unit.isascii() else re.escape(unit) for unit in _UNITS) + ")")
# Words that make an absence one of log lines (whose no-hit call is a log search).
_LINES = re.compile(whole(ABSENCE_WORDS.line_words_en) + "|" + one_of(ABSENCE_WORDS.line_words_zh))
_LEVELS = {"trace": 0, "debug": 1, "info": 2, "notice": 2, "warn": 3, "warning": 3, "error": 4, "err": 4,
           "fatal": 5, "critical": 5, "crit": 5}
_LEVEL_IN_REF = re.compile(r"\[(" + "|".join(_LEVELS) + r")\]")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:z|[+-]\d{2}:?\d{2})?")


def contradictions(claim_text: str, negative: Sequence[Item], cited: Sequence[Item],
                   session_refs: Mapping[int, Sequence[str]],
                   arguments: Mapping[int, Mapping[str, Any]], tools: Mapping[int, str]) -> list[Finding]:
    """Why a negative observation is contradicted by its session (empty when it is not):
    ``negative`` its no-hit bindings, ``cited`` every passed binding of the session,
    ``session_refs`` every invocation's ref texts by id, ``arguments`` and ``tools`` their
    arguments and tool names."""
    findings = _own_records(claim_text)
    refs: list[tuple[str, str | None, Mapping[str, Any]]] = [
        (item.text, item.tool_name, item.arguments) for item in cited if not item.negative and not item.runbook]
    refs += [(text, tools.get(invocation_id), arguments.get(invocation_id, {}))
             for invocation_id, texts in session_refs.items() for text in texts]
    # "No log lines matching crash": an alert named CrashLooping is no log line. An absence of
    # records in general ("no restart records") is contradicted by any tool's.
    only_lines = _LINES.search(fold(claim_text)) is not None
    for item in negative:
        held = next((text for text, tool, call in refs
                     if (tool == item.tool_name or not only_lines) and _holds(item.arguments, text, call)), None)
        if held is not None:
            units = ", ".join(argument_values(item.arguments, UNIT_ARGS))
            findings.append(Finding(ABSENCE_CONTRADICTED, (
                f"the no-hit search for '{units}' is contradicted by another call of the session, "
                f"which returned '{_short(held)}'")))
            break
    return findings


def _own_records(claim_text: str) -> list[Finding]:
    """A found word in a sentence that negates nothing, or a count of records above zero in a
    clause that negates nothing ("未发现重启记录，共查到 3 条")."""
    folded = fold(claim_text)
    spans = [(start, end, True) for start, end in _sentences(folded)]
    spans += [(start, end, False) for start, end in clauses(folded)]
    for start, end, sentence in spans:
        text = folded[start:end]
        if _NEGATED.search(text):
            continue
        counts = [int(match.group(1)) for match in _COUNTED.finditer(text)]
        if any(counts) or (sentence and _FOUND.search(text) and not counts):
            return [Finding(ABSENCE_CONTRADICTED, (
                f"its own text says records were found: '{claim_text[start:end].strip()}'"))]
    return []


_SENTENCE_END = re.compile(r"[。；;！？!?\n]|\.(?:\s|$)")


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if text[start:match.start()].strip():
            spans.append((start, match.start()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _holds(searched: Mapping[str, Any], text: str, call: Mapping[str, Any]) -> bool:
    """Whether the ref ``text`` (of a call with arguments ``call``) is a line the no-hit search
    with arguments ``searched`` looked for."""
    units = [fold(unit) for unit in argument_values(dict(searched), UNIT_ARGS)]
    if not units:
        return False  # a search for nothing in particular denies nothing in particular
    folded = fold(text)
    found = [_has_unit(folded, unit) for unit in units]
    if not (any(found) if searched.get("match") == "any" else all(found)):
        return False
    excluded = argument_values(dict(searched), ("exclude",))
    if any(_has_unit(folded, fold(word)) for word in excluded):
        return False
    return (_same_service(searched, folded, call) and _on_topic(searched, text) and _at_level(searched, folded)
            and _in_range(searched, folded))


def _on_topic(searched: Mapping[str, Any], text: str) -> bool:
    """A search restricted to topics (``topic=memory``) looked only at lines about them; one
    restricted to an alert or metric, only at that alert's or metric's refs."""
    topics = set(expand_topics(declared_topics(argument_values(dict(searched), ("topic", "topics")))))
    if topics and not topics & set(expand_topics(topics_in(text, in_logs=True))):
        return False
    named = argument_values(dict(searched), ("alert_name", "alertname", "metric"))
    return all(fold(name) in fold(text) for name in named)


def _has_unit(folded: str, unit: str) -> bool:
    words = unit.split()
    return all(_has_word(folded, word) for word in words) if words else False


def _has_word(folded: str, word: str) -> bool:
    if not word.isascii():
        return word in folded
    # A word in any of its common forms ("restart" in "restarted", "restarts").
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?:s|es|ed|d|ing)?(?![a-z0-9])", folded) is not None


def _same_service(searched: Mapping[str, Any], folded: str, call: Mapping[str, Any]) -> bool:
    service = searched.get("service")
    if not isinstance(service, str) or not service.strip():
        return True
    name = fold(service.strip())
    other = call.get("service")
    if isinstance(other, str) and other.strip():
        return fold(other.strip()) == name
    return contains_identifier(folded, name)


def _at_level(searched: Mapping[str, Any], folded: str) -> bool:
    level = searched.get("level")
    if not isinstance(level, str) or fold(level) not in _LEVELS:
        return True
    shown = _LEVEL_IN_REF.search(folded)
    return shown is not None and _LEVELS[shown.group(1)] >= _LEVELS[fold(level)]


def _in_range(searched: Mapping[str, Any], folded: str) -> bool:
    stamp = _STAMP.search(folded)
    at = _instant(stamp.group()) if stamp else None
    if at is None:
        return True
    for key, later in (("since", True), ("until", False)):
        bound = searched.get(key)
        edge = _instant(fold(bound)) if isinstance(bound, str) else None
        if edge is None or (edge.tzinfo is None) != (at.tzinfo is None):
            continue
        if (at < edge) if later else (at > edge):
            return False
    return True


def _instant(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."



def refused(result: ClaimResult, findings: Sequence[Finding]) -> ClaimResult:
    """``result`` with ``findings`` added: not entailed, the worst rule first."""
    if not findings:
        return result
    reasons = [finding.reason for finding in findings]
    names = {*result.rules, *(finding.rule for finding in findings)}
    ordered = [name for name in (most_serious(names),) if name] + sorted(
        names - {most_serious(names)})
    return result.model_copy(update={
        "entailed": False, "rule": ordered[0], "rules": ordered,
        "reasons": reasons if result.entailed else [*result.reasons, *reasons]})
