"""Every rule the gatekeeper can emit is registered in RULES and documented."""

from __future__ import annotations

import re
from pathlib import Path

from core.gatekeeper import RULES, check_citations
from core.gatekeeper import rules as rules_module
from tests.gatekeeper.gk_support import check_kwargs, load_cases

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "gatekeeper-rules.md"
SOURCE_DIR = REPO / "core" / "gatekeeper"


def _doc_rows() -> dict[str, str]:
    """rule name -> grade, from the doc's rule table."""
    rows = re.findall(r"^\| `(evidence\.[a-z_]+)` \| ([a-z_]+) \|", DOC.read_text(encoding="utf-8"), re.M)
    return dict(rows)


def test_every_registered_rule_is_documented_with_its_grade() -> None:
    rows = _doc_rows()
    for name, rule in RULES.items():
        assert name in rows, f"{name} missing from {DOC.name}"
        assert rows[name] == rule.severity, name
    assert set(rows) == set(RULES)


def test_every_rule_named_in_the_source_is_registered() -> None:
    named = set()
    for path in SOURCE_DIR.glob("*.py"):
        named |= set(re.findall(r"\"(evidence\.[a-z_]+)\"", path.read_text(encoding="utf-8")))
    assert named and named <= set(RULES)
    constants = {value for key, value in vars(rules_module).items()
                 if key.isupper() and isinstance(value, str) and value.startswith("evidence.")}
    assert constants == set(RULES)


def test_every_rule_emitted_by_the_case_table_is_registered_and_documented() -> None:
    rows = _doc_rows()
    emitted: set[str] = set()
    for case in load_cases():
        result = check_citations(**check_kwargs(case))
        emitted |= {b.rule for b in result.checked_bindings if b.rule}
        emitted |= {issue.rule for issue in result.errors + result.warnings}
        emitted |= set(result.failed_rules)
    assert emitted <= set(RULES) and emitted <= set(rows)
    # The table exercises every rule at least once.
    assert emitted == set(RULES)
