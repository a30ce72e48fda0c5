"""``gatekeeper check`` / ``replay`` against the raw output and the audit store (gk-3).

Real sessions, asked and stored in the test's own SQLite store, then exported and edited the
way a person edits a document: the refs, the raw output, both consistently, an invocation
copied from another stored session. The gatekeeper recomputes refs from the raw output with
the recorder's recipe; with ``--db`` the stored invocation wins over the document's copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from core.cli import main
from core.gatekeeper import GATEKEEPER_VERSION
from core.store import Store
from core.store.models import SessionRow

HIKARI = "确认 order-service 是否存在 HikariCP 连接池耗尽"
MEMORY = "Only confirm whether order-service has a HighMemoryUsage alert right now."


def _ask(question: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["ask", question, "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def _write(document: dict[str, Any], path: Path) -> str:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return str(path)


def _check(path: str, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, dict[str, Any]]:
    code = main(["gatekeeper", "check", path, "--json", *options])
    return code, json.loads(capsys.readouterr().out)


def _bindings(document: dict[str, Any]) -> list[dict[str, Any]]:
    output = document["executor_output"]
    return [binding for owner in output["claims"] + output["recommended_actions"]
            for binding in owner["evidence_bindings"]]


def _cited(document: dict[str, Any], number: str) -> tuple[dict[str, Any], dict[str, Any], int]:
    """The first binding whose excerpt holds ``number``, its invocation and the ref's index."""
    binding = next(b for b in _bindings(document) if number in b["evidence_excerpt"])
    invocation = next(i for i in document["invocations"] if i["invocation_id"] == binding["source_invocation_id"])
    index = int(binding["raw_path"].split("[")[1].rstrip("]"))
    return binding, invocation, index


def _entry(invocation: dict[str, Any], index: int) -> dict[str, Any]:
    key = "logs" if invocation["tool_name"] == "query_logs" else "alerts"
    entry: dict[str, Any] = invocation["output"][key][index]
    return entry


def test_an_edited_ref_is_rejected_against_the_raw_output(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    document = _ask(HIKARI, capsys)
    binding, invocation, index = _cited(document, "30000ms")
    ref = invocation["retrieval_details"]["evidence_refs"][index]
    ref["text"] = ref["text"].replace("30000ms", "300ms")
    binding["evidence_excerpt"] = binding["evidence_excerpt"].replace("30000ms", "300ms")
    path = _write(document, tmp_path / "edited.json")
    code, result = _check(path, capsys)
    assert code == 1 and result["failed_rules"] == ["evidence.refs_tampered"]
    assert any("the output gives" in b["message"] and "30000ms" in b["message"]
               for b in result["checked_bindings"])
    assert main(["replay", path, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verifier_result"]["verdict"] == "REJECT"


def test_an_edited_output_is_rejected_against_its_refs(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    document = _ask(MEMORY, capsys)
    _, invocation, index = _cited(document, "91%")
    _entry(invocation, index)["current"] = "45%"
    code, result = _check(_write(document, tmp_path / "edited.json"), capsys)
    assert code == 1 and "evidence.refs_tampered" in result["failed_rules"]


def test_a_consistent_edit_needs_the_store(capsys, tmp_path, _isolated_store) -> None:  # type: ignore[no-untyped-def]
    document = _ask(MEMORY, capsys)
    _, invocation, index = _cited(document, "91%")
    _entry(invocation, index)["current"] = "45%"
    ref = invocation["retrieval_details"]["evidence_refs"][index]
    ref["text"] = ref["text"].replace("current=91%", "current=45%")
    ref["fields"]["current"] = "45%"  # text and fields: the edit leaves nothing inconsistent
    for binding in _bindings(document):  # every citation of it, claims' and actions'
        binding["evidence_excerpt"] = binding["evidence_excerpt"].replace("current=91%", "current=45%")
    path = _write(document, tmp_path / "edited.json")
    # The document alone is self-consistent: nothing in it tells the edit apart.
    assert _check(path, capsys)[0] == 0
    code, result = _check(path, capsys, "--db", str(_isolated_store))
    # The store's record wins: the document's copy of the invocation is not it.
    assert code == 1 and result["failed_rules"] == ["evidence.refs_tampered"]
    assert any("differs from the store's record (output, retrieval_details)" in b["message"]
               for b in result["checked_bindings"])
    assert main(["replay", path, "--db", str(_isolated_store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verifier_result"]["verdict"] == "REJECT"


@pytest.mark.parametrize("copied_session", ["null", "rewritten"])
def test_an_invocation_of_another_stored_session_is_rejected(  # type: ignore[no-untyped-def]
        capsys, tmp_path, _isolated_store, copied_session) -> None:
    donor = _ask(MEMORY, capsys)
    document = _ask(HIKARI, capsys)
    binding, invocation, _ = _cited(donor, "91%")
    copied = json.loads(json.dumps(invocation))
    copied["session_id"] = None if copied_session == "null" else document["session_id"]
    document["invocations"].append(copied)
    target = document["executor_output"]["claims"][0]["evidence_bindings"][0]
    target.update(source_invocation_id=copied["invocation_id"], tool_name=copied["tool_name"],
                  raw_path=binding["raw_path"], evidence_excerpt=binding["evidence_excerpt"])
    path = _write(document, tmp_path / "copied.json")
    code, alone = _check(path, capsys)
    if copied_session == "null":
        assert code == 1 and alone["failed_rules"] == ["evidence.invocation_session"]
    else:
        assert code == 0  # rewritten consistently: only the store knows where it came from
    code, stored = _check(path, capsys, "--db", str(_isolated_store))
    assert code == 1 and stored["failed_rules"] == ["evidence.invocation_session"]
    assert donor["session_id"] in " ".join(b["message"] for b in stored["checked_bindings"])
    assert main(["replay", path, "--db", str(_isolated_store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verifier_result"]["verdict"] == "REJECT"


def test_an_invocation_the_stored_session_never_made(capsys, tmp_path, _isolated_store) -> None:  # type: ignore[no-untyped-def]
    document = _ask(MEMORY, capsys)
    binding, invocation, _ = _cited(document, "91%")
    invented = json.loads(json.dumps(invocation))
    invented["invocation_id"] = 777_777
    document["invocations"].append(invented)
    binding["source_invocation_id"] = 777_777
    path = _write(document, tmp_path / "invented.json")
    assert _check(path, capsys)[0] == 0
    code, result = _check(path, capsys, "--db", str(_isolated_store))
    assert code == 1 and result["failed_rules"] == ["evidence.invocation_ref"]


def test_recheck_reports_a_stored_pass_that_gk3_rejects(capsys, tmp_store: Store) -> None:  # type: ignore[no-untyped-def]
    """A session an older gatekeeper passed (a comparison mark in front of the number) is
    reported by ``recheck --all`` with both versions."""
    document = _ask(MEMORY, capsys)
    binding, _, _ = _cited(document, "91%")
    binding["evidence_excerpt"] = binding["evidence_excerpt"].replace("current=91%", "current<91%")
    old = "gk-2/norm-1/fuzzy-0.90/minlen-8/frag-6"
    with tmp_store.engine.begin() as connection:
        connection.execute(update(SessionRow).where(SessionRow.id == document["session_id"]).values(
            executor_output=document["executor_output"],
            self_evaluation={"verifier_evaluation": {
                "gatekeeper_result": {**document["gatekeeper_result"], "version": old},
                "verifier_result": document["verifier_result"]}}))
    assert main(["gatekeeper", "recheck", "--all", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (changed,) = report["changed"]
    assert (changed["verdict_before"], changed["verdict_after"]) == ("PASS", "REJECT")
    assert (changed["version_before"], changed["version_after"]) == (old, GATEKEEPER_VERSION)
