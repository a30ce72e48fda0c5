"""Relations a claim states between values: above / below a threshold, rising / falling.

Every value can be right and the sentence still wrong: ``可用磁盘 7%，超过阈值 10%`` (7% is
below 10%), "memory 91%, under its 85% threshold", ``内存使用率持续下降，目前为 91%`` over a
series that rose from 86.2% to 91.0%, "CPU dropped from 86.0% to 92.0%", "requests are
getting faster: 3600ms → 4200ms". Both are read here, in Chinese and English:

- a comparison word before a threshold (``超过 / 高于 / above / over / exceeds`` or ``低于 /
  未达到 / below / under / not reached``) relates it to the measured value nearest it in its
  sentence; the numbers must agree;
- a direction word (``上升 / 下降 / rising / falling / dropped`` …; ``faster / 变快`` for a
  duration) must agree with the trend the sentence states, else with the evidence series its
  values belong to (same subject, label and unit, oldest sample to newest).

A relation that does not hold fails ``verifier.wrong_role``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from core.language.alternation import one_of
from core.language.lexicon import topics_in
from core.language.mentions import ClaimMentions
from core.language.quantities import plain_number
from core.language.text import fold
from core.verifier.evidence import Item
from core.verifier.roles import Reading, RoleFact, topics_compatible
from core.verifier.rules import WRONG_ROLE
from core.verifier.support import Finding
from core.verifier.words import CLAIM_RELATIONS, whole

Direction = Literal["up", "down"]


_W = CLAIM_RELATIONS


def _words(chinese: tuple[str, ...], english: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(one_of(chinese) + "|" + whole(english))


_ABOVE = _words(_W.above_zh, _W.above_en)
_BELOW = _words(_W.below_zh, _W.below_en)
_MEASURED = ("current", "value", "sample", "used", "count")

_UP = _words(_W.up_zh, _W.up_en)
_DOWN = _words(_W.down_zh, _W.down_en)
# For a duration (latency): faster is a falling value, slower a rising one.
_FASTER = _words(_W.faster_zh, _W.faster_en)
_SLOWER = _words(_W.slower_zh, _W.slower_en)
# A negation up to one word before a direction word ("未上升", "no longer rising").
_NEGATED = re.compile(r"(?:" + _words(_W.direction_negators_zh, _W.direction_negators_en).pattern
                      + r")\s*(?:\S+\s*)?$")


def relations(text: str, reading: Reading, items: Sequence[Item]) -> list[Finding]:
    """Comparisons with a threshold and directions of change that the numbers contradict."""
    folded = fold(text)
    mentions = ClaimMentions(folded)
    directions = [finding for _, finding in _directions(folded, mentions, reading, items) if finding]
    return [*_comparisons(folded, mentions, reading), *directions]


def held_directions(text: str, reading: Reading, items: Sequence[Item]) -> list[tuple[int, int]]:
    """Spans of the direction words the numbers bear out (``磁盘使用率持续上升`` over a rising
    series): such a word is a supported fact of its clause, like a value."""
    folded = fold(text)
    return [span for span, finding in _directions(folded, ClaimMentions(folded), reading, items)
            if finding is None]


def _comparisons(folded: str, mentions: ClaimMentions, reading: Reading) -> list[Finding]:
    findings: list[Finding] = []
    for threshold in reading.facts:
        if threshold.role != "threshold" or threshold.quantity is None:
            continue
        sentence = mentions.sentence(threshold.start)
        clause_start = mentions.clause(threshold.start)[0]
        window = folded[clause_start:threshold.start]
        words = [(m.end(), m.end() - m.start(), "above") for m in _ABOVE.finditer(window)]
        words += [(m.end(), m.end() - m.start(), "below") for m in _BELOW.finditer(window)]
        if not words:
            continue
        stated = max(words)[2]
        measured = [fact for fact in reading.facts if fact.role in _MEASURED and fact.quantity is not None
                    and fact.trend is None and sentence[0] <= fact.start < sentence[1]
                    and fact.quantity.comparable(threshold.quantity)]
        if not measured:
            continue
        value = min(measured, key=lambda fact: abs(fact.start - threshold.start))
        assert value.quantity is not None
        holds = value.quantity.base > threshold.quantity.base if stated == "above" \
            else value.quantity.base < threshold.quantity.base
        if not holds:
            findings.append(Finding(WRONG_ROLE, (
                f"'{folded[value.start:value.end]}' is stated {stated} the threshold "
                f"'{folded[threshold.start:threshold.end]}'; it is "
                f"{'below' if stated == 'above' else 'not below'} it")))
    return findings


def _stated_directions(folded: str, mentions: ClaimMentions) -> list[tuple[int, int, Direction, bool]]:
    """(start, end, direction, only for durations) of every direction word outside quotes."""
    found: list[tuple[int, int, Direction, bool]] = []
    for pattern, direction, timed in ((_UP, "up", False), (_DOWN, "down", False),
                                      (_SLOWER, "up", True), (_FASTER, "down", True)):
        for match in pattern.finditer(folded):
            if mentions.inside_quote(match.start()) is not None:
                continue
            if _NEGATED.search(folded[max(0, match.start() - 12):match.start()]):
                continue
            found.append((match.start(), match.end(), direction, timed))  # type: ignore[arg-type]
    return found


# What the numbers say of a direction word: it contradicts them (the finding), they bear it
# out (HELD), or nothing decides (None).
HELD: Literal["held"] = "held"
Verdict = Finding | Literal["held"] | None


def _directions(folded: str, mentions: ClaimMentions, reading: Reading,
                items: Sequence[Item]) -> list[tuple[tuple[int, int], Finding | None]]:
    """Each direction word the numbers decide: its span and the finding when they contradict
    it, ``None`` when they bear it out (words no trend or series decides are left out)."""
    decided: list[tuple[tuple[int, int], Finding | None]] = []
    said: dict[tuple[tuple[int, int], Direction], Verdict] = {}
    for position, end, direction, timed in _stated_directions(folded, mentions):
        sentence = mentions.sentence(position)
        if (sentence, direction) in said:
            if said[(sentence, direction)] == HELD:  # the same word again in its sentence
                decided.append(((position, end), None))
            continue
        in_sentence = [fact for fact in reading.facts if fact.quantity is not None
                       and sentence[0] <= fact.start < sentence[1]
                       and (not timed or fact.quantity.family == "time")]
        trend = [fact for fact in in_sentence if fact.trend is not None]
        if trend:
            verdict = _against_trend(folded, direction, trend)
        else:
            verdict = _against_series(folded[sentence[0]:sentence[1]], direction, timed,
                                      [f for f in in_sentence if f.role in _MEASURED], reading, items)
        said[(sentence, direction)] = verdict
        if verdict is not None:
            decided.append(((position, end), verdict if isinstance(verdict, Finding) else None))
    return decided


def _change(first: float, last: float) -> Direction | None:
    if last > first:
        return "up"
    if last < first:
        return "down"
    return None


def _against_trend(folded: str, direction: Direction, trend: list[RoleFact]) -> Verdict:
    """The finding when the claim's own values go the other way; HELD when they go its way."""
    ordered = sorted(trend, key=lambda fact: (fact.trend or 0, fact.order or 0))
    first, last = ordered[0], ordered[-1]
    assert first.quantity is not None and last.quantity is not None
    actual = _change(first.quantity.base, last.quantity.base)
    if actual is None:
        return None
    if actual == direction:
        return HELD
    return Finding(WRONG_ROLE, (
        f"the claim says the value is {'rising' if direction == 'up' else 'falling'}, but its own "
        f"values go from '{folded[first.start:first.end]}' to '{folded[last.start:last.end]}'"))


def _against_series(sentence: str, direction: Direction, timed: bool, values: list[RoleFact],
                    reading: Reading, items: Sequence[Item]) -> Verdict:
    """The finding when every series the sentence is about goes the other way; HELD when one
    goes its way; None when no series decides."""
    series = _series(items)
    topics = frozenset(topics_in(sentence))
    if values:
        chosen = [samples for samples in series.values()
                  if any(v.quantity is not None and s.quantity is not None and s.quantity.same_value(v.quantity)
                         for v in values for s in samples)]
    elif topics:
        chosen = [samples for samples in series.values()
                  if topics_compatible(topics, samples[0].topics) and samples[0].topics
                  and (not reading.subjects or samples[0].subjects & reading.subjects)]
    else:
        return None
    chosen = [samples for samples in chosen if not timed or (samples[0].quantity is not None
              and samples[0].quantity.family == "time")]
    changes = [(_change(s[0].quantity.base, s[-1].quantity.base), s) for s in chosen
               if s[0].quantity is not None and s[-1].quantity is not None]
    changes = [(change, samples) for change, samples in changes if change is not None]
    if not changes:
        return None
    if any(change == direction for change, _ in changes):
        return HELD
    _, samples = changes[0]
    first, last = samples[0], samples[-1]
    assert first.quantity is not None and last.quantity is not None and first.time and last.time
    return Finding(WRONG_ROLE, (
        f"the claim says the value is {'rising' if direction == 'up' else 'falling'}; the evidence "
        f"series goes from {plain_number(first.quantity.number)}{first.quantity.unit} "
        f"({first.time.shown()}) to {plain_number(last.quantity.number)}{last.quantity.unit} "
        f"({last.time.shown()})"))


def _series(items: Sequence[Item]) -> dict[tuple[frozenset[str], str, str], list[RoleFact]]:
    """Timed samples of the evidence by series (subject, label, unit family), oldest first."""
    series: dict[tuple[frozenset[str], str, str], list[RoleFact]] = {}
    for item in items:
        if item.runbook or item.negative:
            continue
        for fact in item.reading.facts:
            if fact.quantity is None or fact.time is None or fact.role not in _MEASURED:
                continue
            key = (fact.subjects, re.sub(r"\s+", "", fact.label), fact.quantity.family)
            series.setdefault(key, []).append(fact)
    for samples in series.values():
        samples.sort(key=lambda fact: fact.time.key() if fact.time else ("",))
    return {key: samples for key, samples in series.items()
            if len({s.time.key() for s in samples if s.time}) >= 2}
