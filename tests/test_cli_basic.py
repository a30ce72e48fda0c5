"""The foundation CLI: tools call, packs, sessions, schema, db — as a user runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.contracts import SessionDocument

HIKARI_SYNONYMS = ["HikariCP", "HikariPool", "connection pool", "数据库连接池", "连接池耗尽",
                   "active=50/50", "waiting", "request timed out after 30000ms"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out)  # exactly one JSON document on stdout


def test_tools_call_hikari_on_order_service(capsys: pytest.CaptureFixture[str]) -> None:
    invocation = run_json(capsys, "tools", "call", "query_logs", "--args",
                          '{"service":"order-service","query":"HikariCP"}', "--json")
    assert set(invocation) == {"invocation_id", "tool_name", "arguments", "output",
                               "retrieval_details", "source", "request"}
    assert invocation["source"] == "pack:demo"
    assert invocation["request"]["service"] == "order-service"
    assert invocation["request"]["query"] == "HikariCP"
    logs = invocation["output"]["logs"]
    assert logs and all(log["service"] == "order-service" for log in logs)
    details = invocation["retrieval_details"]
    assert details["evidence_status"] == "supported"
    groups = invocation["output"]["groups"]
    assert groups and sum(group["count"] for group in groups) == invocation["output"]["total"]
    assert [r["raw_path"] for r in details["evidence_refs"]] == [
        f"$.logs[{i}]" for i in range(len(logs))] + [f"$.groups[{i}]" for i in range(len(groups))]
    assert invocation["request"]["search"]["query"]["service"] == "order-service"  # what the store ran
    texts = " ".join(r["text"] for r in details["evidence_refs"])
    assert "HikariPool-1 - Connection is not available" in texts and "active=50/50" in texts


@pytest.mark.parametrize("synonym", HIKARI_SYNONYMS)
def test_every_seed_synonym_finds_the_pool_lines(capsys: pytest.CaptureFixture[str],
                                                 synonym: str) -> None:
    invocation = run_json(capsys, "tools", "call", "query_logs", "--json", "--args",
                          json.dumps({"service": "order-service", "query": synonym}))
    texts = [r["text"] for r in invocation["retrieval_details"]["evidence_refs"]]
    assert any("HikariPool-1" in t or "active=50/50" in t for t in texts), texts


def test_tools_call_miss_is_success_with_no_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    invocation = run_json(capsys, "tools", "call", "query_logs", "--json", "--args",
                          '{"service":"inventory-service","query":"HikariCP"}')
    assert invocation["output"]["success"] is True
    assert (invocation["output"]["logs"], invocation["output"]["total"]) == ([], 0)
    assert invocation["retrieval_details"] == {"evidence_status": "no_evidence", "evidence_refs": []}


def test_tools_call_metrics_ref_holds_every_fact(capsys: pytest.CaptureFixture[str]) -> None:
    invocation = run_json(capsys, "tools", "call", "query_metrics", "--json", "--args",
                          '{"service":"order-service"}')
    (alert_ref,) = [r for r in invocation["retrieval_details"]["evidence_refs"]
                    if "HighMemoryUsage" in r["text"]]
    assert alert_ref["raw_path"].startswith("$.alerts[")
    for fact in ("HighMemoryUsage", "firing", "order-service", "91%", "15m", "3.8GB/4GB"):
        assert fact in alert_ref["text"]


def test_tools_call_memory_query_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    invocation = run_json(capsys, "tools", "call", "query_logs", "--json", "--args",
                          '{"service":"order-service","query":"内存"}')
    text = " ".join(r["text"] for r in invocation["retrieval_details"]["evidence_refs"])
    for sample in ("91.0%", "89.8%", "88.6%", "87.4%", "86.2%"):
        assert sample in text
    assert "15" in text and "850ms" in text and "Full GC" in text


def test_the_call_is_recorded_in_the_store(capsys: pytest.CaptureFixture[str]) -> None:
    invocation = run_json(capsys, "tools", "call", "query_metrics", "--json", "--args", "{}")
    sessions = run_json(capsys, "sessions", "list", "--json")
    assert len(sessions) == 1
    document = run_json(capsys, "sessions", "show", sessions[0]["session_id"], "--json")
    assert document["invocations"][0]["invocation_id"] == invocation["invocation_id"]


@pytest.mark.parametrize("argv,message", [
    (["tools", "call", "query_everything"], "query_everything"),
    (["tools", "call", "query_logs", "--args", "{not json"], "not JSON"),
    (["tools", "call", "query_logs", "--args", "[1]"], "JSON object"),
    (["tools", "call", "query_logs", "--args", '{"limit": 500}'], "limit"),
    (["tools", "call", "query_logs", "--args", '{"limit": "many"}'], "limit"),
    (["tools", "call", "lookup_knowledge", "--args", "{}"], "query"),
    (["tools", "call", "query_logs", "--args", '{"bogus": 1}'], "bogus"),
    (["sessions", "show", "no-such-session"], "no-such-session"),
    (["packs", "validate", "/nonexistent/pack"], "/nonexistent/pack"),
])
def test_bad_input_is_one_line_and_nonzero(capsys: pytest.CaptureFixture[str], argv: list[str],
                                           message: str) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in captured.err


def test_bad_tool_call_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    main(["tools", "call", "query_logs", "--args", '{"limit": 500}'])
    capsys.readouterr()
    assert run_json(capsys, "sessions", "list", "--json") == []


def test_malformed_pack_is_one_line_naming_the_file(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from core.settings import DEFAULT_PACKS_DIR

    pack = tmp_path / "broken"
    shutil.copytree(DEFAULT_PACKS_DIR / "demo", pack)
    (pack / "alerts.yaml").write_text("- alert_name: X\n  state: firing\n", encoding="utf-8")
    assert main(["packs", "validate", str(pack)]) == 2
    err = capsys.readouterr().err
    assert "alerts.yaml" in err and "service" in err and len(err.strip().splitlines()) == 1
    assert main(["tools", "call", "query_metrics", "--pack", str(pack)]) == 2


def test_packs_list_and_validate_demo(capsys: pytest.CaptureFixture[str]) -> None:
    packs = run_json(capsys, "packs", "list", "--json")
    assert "demo" in [p["name"] for p in packs]
    summary = run_json(capsys, "packs", "validate", "demo", "--json")
    assert summary["valid"] and summary["alerts"] == 3 and summary["runbooks"] >= 6


def test_schema_is_the_session_document_schema(capsys: pytest.CaptureFixture[str]) -> None:
    schema = run_json(capsys, "schema")
    assert schema == SessionDocument.model_json_schema()
    assert {"session_id", "invocations", "gatekeeper_result"} <= set(schema["properties"])


def test_export_writes_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_json(capsys, "tools", "call", "query_metrics", "--json")
    run_json(capsys, "tools", "call", "query_logs", "--json")
    target = tmp_path / "out.jsonl"
    assert main(["sessions", "export", "-o", str(target)]) == 0
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert all(SessionDocument.model_validate_json(line).invocations for line in lines)
    assert not (tmp_path / "out.jsonl.partial").exists()


def test_help_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["tools", "call", "--help"], ["sessions", "export", "--help"],
                 ["packs", "validate", "--help"], ["gatekeeper", "check", "--help"]):
        assert main(argv) == 0
        assert "usage: superbiz" in capsys.readouterr().out


def test_db_init_creates_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "new" / "audit.db"
    assert main(["db", "init", "--db", str(target)]) == 0
    assert target.exists() and "audit store ready" in capsys.readouterr().out


def test_validate_lists_every_problem_of_a_pack(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from core.settings import DEFAULT_PACKS_DIR

    pack = tmp_path / "twice-broken"
    shutil.copytree(DEFAULT_PACKS_DIR / "demo", pack)
    (pack / "alerts.yaml").write_text("- alert_name: X\n  state: firing\n", encoding="utf-8")
    (pack / "pack.yaml").write_text("name: twice\nnow: yesterday\n", encoding="utf-8")
    assert main(["packs", "validate", str(pack), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert {p["file"] for p in report["problems"]} == {"alerts.yaml", "pack.yaml"}
