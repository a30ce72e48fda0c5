"""Whose lines and which lines: log levels, identifiers and quotes attributed in a claim.

A claim can put a real word in the wrong place: WARN lines called ERROR (``291 ERROR lines
like "Connection broken ..."`` -- and the template itself holds "error ="), order-service's
``java.lang.OutOfMemoryError`` said of user-service. Each such word must hold for the lines it
is stated for:

- a level word (outside quotes) for the lines its clause quotes or names (else the service
  named before it): some of those lines must be at that level (``ERROR 及以上`` / "or above":
  at that level or higher);
- an identifier or a quoted line for the service named nearest before it: when that service
  has evidence, one of its refs must hold it.

Both fail ``verifier.wrong_role`` only where the word is in the evidence but for other lines
or another service; a word in no evidence at all is left to ``verifier.unsupported_fact``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.language.mentions import ClaimMentions, fits, level_covers
from core.language.text import fold
from core.verifier import facts
from core.verifier.evidence import Item
from core.verifier.roles import RoleFact, service_mentions
from core.verifier.rules import WRONG_ROLE
from core.verifier.support import Finding, Lines


def misattributed(text: str, items: Sequence[Item], known: set[str],
                  fallback: Sequence[str]) -> list[Finding]:
    """Levels, identifiers and quotes of the claim ``text`` stated for lines or a service the
    evidence does not give them for."""
    context = _context(text, items, known, fallback)
    return [*(finding for _, finding in _levels(context) if finding), *_named(context)]


def held_levels(text: str, items: Sequence[Item], known: set[str], fallback: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of the level words of ``text`` its lines bear out (``均为信息日志`` over INFO lines):
    such a word is a supported fact of its clause, like a value."""
    return [span for span, finding in _levels(_context(text, items, known, fallback)) if finding is None]


def _context(text: str, items: Sequence[Item], known: set[str], fallback: Sequence[str]) -> _Context:
    folded = fold(text)
    services = service_mentions(folded, known)
    default = frozenset(fold(s) for s in fallback)
    return _Context(folded, ClaimMentions(folded), services, default if len(default) == 1 else frozenset(),
                    {name for _, name in services} | set(default), items)


class _Context:
    def __init__(self, folded: str, mentions: ClaimMentions, services: tuple[tuple[int, str], ...],
                 default: frozenset[str], names: set[str], items: Sequence[Item]) -> None:
        self.folded = folded
        self.mentions = mentions
        self.services = services
        self.default = default
        self.names = names
        self.items = [item for item in items if not item.negative and not item.runbook]
        self.lines = Lines(self.items, names)

    def subject_at(self, position: int) -> frozenset[str]:
        """The service named nearest before ``position`` (else the claim's only subject)."""
        before = [name for at, name in self.services if at < position]
        return frozenset({before[-1]}) if before else self.default

    def of(self, subjects: frozenset[str]) -> list[Item]:
        """Items about one of ``subjects`` (all items when the subject is not known)."""
        if not subjects:
            return list(self.items)
        return [item for item in self.items if not item.reading.subjects or item.reading.subjects & subjects]


def _levels(context: _Context) -> list[tuple[tuple[int, int], Finding | None]]:
    """Each level word its lines decide: its span and the finding when they are at another
    level, ``None`` when they bear it out."""
    findings: list[tuple[tuple[int, int], Finding | None]] = []
    for start, end, level, above in context.mentions.levels():
        about = context.mentions.about(start, ignore=context.names)
        probe = RoleFact("count", start, end, start, about=about)
        leveled = [item for item in context.of(context.subject_at(start)) if item.reading.levels]
        candidates = [item for item in leveled if context.lines.fit(probe, item)]
        if not candidates:
            continue
        if any(level_covers(level, above, actual) for item in candidates for actual in item.reading.levels):
            findings.append(((start, end), None))
            continue
        actual = sorted({a.upper() for item in candidates for a in item.reading.levels})
        quote = about.quote or about.sentence_quote
        what = f"lines like '{quote}'" if quote else "the lines it is about"
        findings.append(((start, end), Finding(WRONG_ROLE, (
            f"'{context.folded[start:end].upper()}' is stated for {what}; the evidence gives "
            f"them at {', '.join(actual)} (binding {candidates[0].binding_index})"))))
    return findings


def _named(context: _Context) -> list[Finding]:
    """Identifiers and quoted lines, each for the service named before it."""
    findings: list[Finding] = []
    for name in sorted(facts.extract(context.folded).identifiers):
        if name in context.names:
            continue
        for match in re.finditer(re.escape(name), context.folded):
            finding = _held_by_other(context, name, match.start(),
                                     lambda item, n=name: _holds_name(item, n))  # type: ignore[misc]
            if finding is not None:
                findings.append(finding)
                break
    for quote in context.mentions.quotes:
        finding = _held_by_other(context, quote.text, quote.start,
                                 lambda item, q=quote.text: fits(q, item.reading.message or fold(item.text)))  # type: ignore[misc]
        if finding is not None:
            findings.append(finding)
    return findings


def _holds_name(item: Item, name: str) -> bool:
    return not facts.missing(name, item.texts(), negations=False)


def _held_by_other(context: _Context, shown: str, position: int,
                   holds: Callable[[Item], bool]) -> Finding | None:
    subjects = context.subject_at(position)
    if not subjects:
        return None
    own = context.of(subjects)
    if not own or any(holds(item) for item in own):
        return None
    others = [item for item in context.items if item not in own and holds(item)]
    if not others:
        return None
    whose = sorted(set().union(*(item.reading.subjects for item in others)))
    return Finding(WRONG_ROLE, (
        f"'{shown}' is stated for {', '.join(sorted(subjects))}; the evidence gives it for "
        f"{', '.join(whose) or 'another service'} (binding {others[0].binding_index})"))
