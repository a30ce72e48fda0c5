"""Every rule the verifier can report is declared once, named by the closed type, and documented.

Run as a script, it prints the doc's rule table as the declaration makes it; with ``--write`` it
rewrites that table in docs/verifier-rules.md (the prose around it is kept).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import get_args

from core.repair import FIXABLE_VERIFIER_RULES
from core.verifier import RULES, VerifierRuleName
from core.verifier import rules as rules_module

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "verifier-rules.md"
SOURCES = [*(REPO / "core" / "verifier").glob("*.py"), REPO / "core" / "verdict.py",
           *(REPO / "core" / "agents").rglob("*.py")]
# The table: its header row, then every row that follows it up to the first line that is not one.
_TABLE = re.compile(r"^\| rule \| grade \|.*\n(?:\|.*\n)*", re.M)
FIX = "run `python tests/verifier/test_verifier_rules_doc.py --write` to rewrite it from the declaration"


def _doc_table(text: str) -> str:
    tables = _TABLE.findall(text)
    assert len(tables) == 1, f"{DOC.name} must hold one rule table (a row starting `| rule | grade |`)"
    return str(tables[0])


def _with_table(text: str, table: str) -> str:
    """``text`` with its rule table replaced by ``table``."""
    _doc_table(text)
    return _TABLE.sub(lambda _: table, text)


def test_the_doc_table_is_the_declared_rules() -> None:
    assert _doc_table(DOC.read_text(encoding="utf-8")) == rules_module.markdown_table(), (
        f"the rule table of {DOC.name} differs from core/verifier/rules.py: {FIX}")


def test_the_generated_table_has_a_row_per_rule_with_its_grade_and_target() -> None:
    rows = re.findall(r"^\| `(verifier\.[a-z_]+)` \| ([A-Z_]+) \| ([a-z]+) \| (yes|no) \| .+ \|$",
                      rules_module.markdown_table(), re.M)
    assert [(name, grade, target, repair == "yes") for name, grade, target, repair in rows] == [
        (rule.name, rule.grade, rule.target, rule.repairable) for rule in RULES.values()]


def test_replacing_the_table_keeps_the_prose_around_it() -> None:
    text = "# Rules\n\nBefore.\n\n| rule | grade | x |\n| --- | --- | --- |\n| `a` | PASS | y |\n\nAfter.\n"
    assert _with_table(text, "| rule | grade |\n") == "# Rules\n\nBefore.\n\n| rule | grade |\n\nAfter.\n"


def test_the_closed_type_the_constants_and_the_registry_agree() -> None:
    # The Literal is a copy for mypy; the declaration is the source, and the copy keeps its order.
    assert get_args(VerifierRuleName) == tuple(RULES)
    constants = {value for key, value in vars(rules_module).items()
                 if key.isupper() and isinstance(value, str) and value.startswith("verifier.")}
    assert constants == set(RULES)


def test_the_repair_turn_is_offered_for_the_declared_repairable_rules_only() -> None:
    assert {name for name, rule in RULES.items() if rule.repairable} == FIXABLE_VERIFIER_RULES
    # A repair turn fixes a claim's citation or wording: never forbidden content, never a step.
    assert all(RULES[name].grade == "LOW_CONFID" and RULES[name].target == "claim"
               for name in FIXABLE_VERIFIER_RULES)


def test_every_rule_named_in_the_source_is_registered() -> None:
    named: set[str] = set()
    for path in SOURCES:
        named |= set(re.findall(r"[\"'](verifier\.[a-z_]+)[\"']", path.read_text(encoding="utf-8")))
    assert named and named <= set(RULES), named - set(RULES)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(_with_table(DOC.read_text(encoding="utf-8"), rules_module.markdown_table()),
                       encoding="utf-8")
        print(f"wrote the rule table of {DOC}")
    else:
        print(rules_module.markdown_table(), end="")
