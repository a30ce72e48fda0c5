"""Case files: every key parses, every malformed input is an error naming file, case and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import EvalCaseError
from core.evals.cases import (
    DEFAULT_SUITE_DIR,
    Expectation,
    load_case_file,
    load_suite,
    select_by_tags,
    with_default_pack,
)

FULL_CASE = """\
- id: hikari-negative
  question: 确认 inventory-service 是否存在 HikariCP 连接池耗尽
  pack: demo
  executor_fault: null
  tags: [hikaricp, negative]
  expect:
    verdict: PASS
    gatekeeper_status: pass
    gatekeeper_severity: none
    failed_rules_include: []
    claim_types: [negative_observation]
    max_claims: 2
    answer_includes: ["未检索到"]
    forbidden: ["连接池耗尽已确认"]
    evidence_tools: [query_logs]
    evidence_status: {query_logs: no_evidence}
"""


def write(tmp_path: Path, text: str, name: str = "cases.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(EvalCaseError) as caught:
        load_case_file(path)
    return str(caught.value)


def test_every_key_of_the_documented_example_parses(tmp_path: Path) -> None:
    [case] = load_case_file(write(tmp_path, FULL_CASE))
    assert case.id == "hikari-negative"
    assert case.question.startswith("确认 inventory-service")
    assert case.pack == "demo"
    assert case.executor_fault is None
    assert case.tags == ["hikaricp", "negative"]
    assert case.source.endswith("cases.yaml")
    assert case.expect.as_dict() == {
        "verdict": ["PASS"], "gatekeeper_status": "pass", "gatekeeper_severity": "none",
        "failed_rules_include": [], "claim_types": ["negative_observation"], "max_claims": 2,
        "answer_includes": ["未检索到"], "forbidden": ["连接池耗尽已确认"],
        "evidence_tools": ["query_logs"], "evidence_status": {"query_logs": "no_evidence"},
    }


def test_optional_keys_default_to_unchecked(tmp_path: Path) -> None:
    [bare, nulls] = load_case_file(write(tmp_path, """\
- id: bare
  question: 只确认 CPU
- id: nulls
  question: 只确认 CPU
  pack:
  tags:
  expect:
"""))
    for case in (bare, nulls):
        assert case.pack is None and case.executor_fault is None and case.tags == []
        assert case.known_gap is None
        assert case.expect.as_dict() == {}


def test_verdict_list_and_spelling_are_normalised(tmp_path: Path) -> None:
    [case] = load_case_file(write(tmp_path, """\
- id: graded
  question: q
  executor_fault: fabricate_path
  expect: {verdict: [reject, Low_Confid], gatekeeper_status: FAIL, gatekeeper_severity: Reject}
"""))
    assert case.expect.verdict == ["REJECT", "LOW_CONFID"]
    assert case.expect.gatekeeper_status == "fail"
    assert case.expect.gatekeeper_severity == "reject"
    assert case.executor_fault == "fabricate_path"


def test_relative_pack_path_is_resolved_against_the_case_file(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    [by_path, by_name] = load_case_file(write(folder, """\
- {id: a, question: q, pack: ../packs/mine}
- {id: b, question: q, pack: demo}
"""))
    assert by_path.pack == str((tmp_path / "packs" / "mine").resolve())
    assert by_name.pack == "demo"


@pytest.mark.parametrize(("text", "message"), [
    ("- id: x\n  question: q\n  expect: {verdcit: PASS}\n",
     "cases.yaml: case 'x': expect: unknown key 'verdcit'"),
    ("- id: x\n  question: q\n  colour: red\n", "cases.yaml: case 'x': unknown key 'colour'"),
    ("- question: q\n", "cases.yaml: case #1: missing required key 'id'"),
    ("- id: x\n", "cases.yaml: case 'x': missing required key 'question'"),
    ("- id: x\n  question: '  '\n", "cases.yaml: case 'x': question: must not be blank"),
    ("- id: x\n  question: q\n  executor_fault: melt_cpu\n",
     "cases.yaml: case 'x': executor_fault: unknown fault mode 'melt_cpu'"),
    ("- id: x\n  question: q\n  expect: {verdict: MAYBE}\n", "cases.yaml: case 'x': expect: verdict:"),
    ("- id: x\n  question: q\n  expect: {verdict: []}\n",
     "cases.yaml: case 'x': expect: verdict: an empty list allows no verdict"),
    ("- id: x\n  question: q\n  expect: {gatekeeper_status: maybe}\n",
     "cases.yaml: case 'x': expect: gatekeeper_status:"),
    ("- id: x\n  question: q\n  expect: {gatekeeper_severity: high}\n",
     "cases.yaml: case 'x': expect: gatekeeper_severity:"),
    ("- id: x\n  question: q\n  expect: {failed_rules_include: [evidence.nope]}\n",
     "cases.yaml: case 'x': expect: failed_rules_include: unknown rule 'evidence.nope'"),
    ("- id: x\n  question: q\n  expect: {claim_types: [guess]}\n",
     "cases.yaml: case 'x': expect: claim_types:"),
    ("- id: x\n  question: q\n  expect: {max_claims: two}\n", "cases.yaml: case 'x': expect: max_claims:"),
    ("- id: x\n  question: q\n  expect: {max_claims: -1}\n", "cases.yaml: case 'x': expect: max_claims:"),
    ("- id: x\n  question: q\n  expect: {answer_includes: found}\n",
     "cases.yaml: case 'x': expect: answer_includes:"),
    ("- id: x\n  question: q\n  expect: {forbidden: ['']}\n",
     "cases.yaml: case 'x': expect: forbidden: empty string"),
    ("- id: x\n  question: q\n  expect: {evidence_tools: [grep]}\n",
     "cases.yaml: case 'x': expect: evidence_tools:"),
    ("- id: x\n  question: q\n  expect: {evidence_status: {grep: supported}}\n",
     "cases.yaml: case 'x': expect: evidence_status:"),
    ("- id: x\n  question: q\n  expect: {evidence_status: {query_logs: maybe}}\n",
     "cases.yaml: case 'x': expect: evidence_status: query_logs:"),
    ("- id: x\n  question: q\n  tags: hikari\n", "cases.yaml: case 'x': tags:"),
    ("- id: x\n  question: q\n  known_gap: ''\n", "cases.yaml: case 'x': known_gap:"),
    ("- id: x\n  question: q\n  expect: [verdict]\n", "cases.yaml: case 'x': expect:"),
    ("- {id: x, question: q}\n- {id: x, question: r}\n", "cases.yaml: case 'x': duplicate case id"),
    ("- just a string\n", "cases.yaml: case #1: expected a mapping, found str"),
    ("id: x\nquestion: q\n", "cases.yaml: expected a list of cases, found dict"),
    ("", "cases.yaml: expected a list of cases, found nothing"),
    ("[]\n", "cases.yaml: the file holds no cases"),
    ("- id: x\n  question: [unclosed\n", "cases.yaml: not valid YAML at line"),
])
def test_malformed_input_names_file_case_and_key(tmp_path: Path, text: str, message: str) -> None:
    error = load_error(tmp_path, text)
    assert message in error
    assert error.startswith(str(tmp_path / "cases.yaml"))


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(EvalCaseError, match=r"nope\.yaml: cannot read"):
        load_case_file(tmp_path / "nope.yaml")


def test_suite_loads_folders_and_rejects_ids_repeated_across_files(tmp_path: Path) -> None:
    write(tmp_path, "- {id: a, question: q}\n", "one.yaml")
    write(tmp_path, "- {id: b, question: q}\n", "two.yml")
    write(tmp_path, "not a case file", "notes.txt")
    assert [case.id for case in load_suite([tmp_path])] == ["a", "b"]
    write(tmp_path, "- {id: a, question: again}\n", "three.yaml")
    duplicate = r"three.yaml: case 'a': duplicate case id \(also in .*one.yaml\)"
    with pytest.raises(EvalCaseError, match=duplicate):
        load_suite([tmp_path])


def test_a_folder_without_case_files_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EvalCaseError, match=r"no \.yaml case files"):
        load_suite([tmp_path])


def test_tag_filter_and_default_pack(tmp_path: Path) -> None:
    cases = load_case_file(write(tmp_path, """\
- {id: a, question: q, tags: [cpu, narrow]}
- {id: b, question: q, tags: [memory], pack: other}
- {id: c, question: q}
"""))
    assert [c.id for c in select_by_tags(cases, ["narrow", "memory"])] == ["a", "b"]
    assert [c.id for c in select_by_tags(cases, None)] == ["a", "b", "c"]
    assert [c.pack for c in with_default_pack(cases, None)] == ["demo", "other", "demo"]
    assert [c.pack for c in with_default_pack(cases, "mine")] == ["mine", "other", "mine"]


def test_default_suite_is_valid_large_tagged_and_covers_every_fault_mode() -> None:
    from core.agents.faults import FAULT_MODES

    cases = load_suite()
    assert DEFAULT_SUITE_DIR.is_dir()
    assert len(cases) >= 40
    assert all(case.tags for case in cases)
    assert set(FAULT_MODES) <= {case.executor_fault for case in cases}
    # Both languages: at least one case whose question has CJK and one in plain ASCII.
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in case.question) for case in cases)
    assert any(case.question.isascii() for case in cases)


def test_expectation_rejects_unknown_keys_directly() -> None:
    with pytest.raises(ValueError, match="verdcit"):
        Expectation.model_validate({"verdcit": "PASS"})
