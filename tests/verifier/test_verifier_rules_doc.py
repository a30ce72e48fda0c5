"""Every rule the verifier can report is registered, named by the closed type, and documented."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from core.verifier import RULES, VerifierRuleName
from core.verifier import rules as rules_module

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "verifier-rules.md"
SOURCES = [*(REPO / "core" / "verifier").glob("*.py"), REPO / "core" / "verdict.py",
           *(REPO / "core" / "agents").rglob("*.py")]


def _doc_rows() -> dict[str, tuple[str, str]]:
    """rule name -> (grade, what it applies to), from the doc's rule table."""
    rows = re.findall(r"^\| `(verifier\.[a-z_]+)` \| ([A-Z_]+) \| ([a-z]+) \|",
                      DOC.read_text(encoding="utf-8"), re.M)
    return {name: (grade, target) for name, grade, target in rows}


def test_every_registered_rule_is_documented_with_its_grade() -> None:
    rows = _doc_rows()
    for name, rule in RULES.items():
        assert name in rows, f"{name} missing from {DOC.name}"
        assert rows[name] == (rule.grade, rule.target), name
    assert set(rows) == set(RULES)


def test_the_closed_type_the_constants_and_the_registry_agree() -> None:
    assert set(get_args(VerifierRuleName)) == set(RULES)
    constants = {value for key, value in vars(rules_module).items()
                 if key.isupper() and isinstance(value, str) and value.startswith("verifier.")}
    assert constants == set(RULES)


def test_every_rule_named_in_the_source_is_registered() -> None:
    named: set[str] = set()
    for path in SOURCES:
        named |= set(re.findall(r"[\"'](verifier\.[a-z_]+)[\"']", path.read_text(encoding="utf-8")))
    assert named and named <= set(RULES), named - set(RULES)
