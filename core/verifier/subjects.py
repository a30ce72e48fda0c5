"""Whose evidence a claim cites: a claim's subject is its evidence's, never a head of it.

Service names extend one another (``order-service`` and ``order-service-canary``): each is a
service of its own, so a claim about ``order-service`` citing only the canary's alert states the
sibling's alert of it. Values are bound to their subject already (``support``: "the evidence
gives it for order-service-canary"); this catches the claim that states no value ("order-service
has a firing HighMemoryUsage alert") and fails it ``verifier.wrong_role`` the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.language.text import fold
from core.verifier.evidence import Item
from core.verifier.roles import service_mentions
from core.verifier.rules import WRONG_ROLE
from core.verifier.support import Finding

_NAME_JOINERS = "-._"


def _extends(longer: str, name: str) -> bool:
    """``longer`` is ``name`` with more name parts: ``order-service-canary`` of ``order-service``."""
    return any(longer.startswith(name + joiner) or longer.endswith(joiner + name) for joiner in _NAME_JOINERS)


def borrowed_subjects(text: str, known: Iterable[str], items: Sequence[Item]) -> list[Finding]:
    """Services the claim ``text`` names that none of its verified evidence is about, where the
    evidence is about a service whose name extends them."""
    current = [item for item in items if not item.negative and not item.runbook]
    about: set[str] = set().union(*(item.reading.subjects for item in current)) if current else set()
    if not about:
        return []
    named = dict.fromkeys(name for _, name in service_mentions(fold(text), known))
    findings: list[Finding] = []
    for name in named:
        siblings = sorted(subject for subject in about if _extends(subject, name))
        if name not in about and siblings:
            findings.append(Finding(WRONG_ROLE, (
                f"the claim is about {name}; its evidence is about {', '.join(siblings)}, another "
                "service whose name extends it")))
    return findings
