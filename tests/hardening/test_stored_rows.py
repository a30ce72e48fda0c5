"""A bad stored row never breaks a listing or an export: it is read defensively and reported.

Rows are damaged the ways an older version, another program or a disk can leave them: a lone
surrogate stored as a JSON escape, bytes that are not UTF-8 in a text column, JSON that does
not parse, a value the contracts do not allow. The store reads text back losslessly (lone
surrogates included, ``core.store.dialects``); every output copes: JSON output escapes them,
a terminal line shows U+FFFD, an export reports the session; a row that does not validate is
reported and skipped.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from core.cli import main
from core.contracts import SessionDocument
from core.store import open_store, repository


def _seed(db: Path, count: int) -> list[str]:
    """``count`` stored sessions (each a recorded tool call), oldest first."""
    for _ in range(count):
        assert main(["tools", "call", "query_metrics", "--db", str(db)]) == 0
    return [row.session_id for row in reversed(repository.list_sessions(open_store(str(db))))]


def _damage(db: Path, statement: str, *params: object) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute(statement, params)


def test_damaged_rows_are_listed_exported_and_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "audit.db"
    surrogate, not_utf8, bad_json, bad_value, good = _seed(db, 5)
    # A lone surrogate the way JSON columns store it (an escape), in the arguments and the plan.
    _damage(db, "UPDATE tool_invocations SET arguments = ? WHERE session_id = ?",
            '{"service": "\\ud800 order"}', surrogate)
    _damage(db, "UPDATE sessions SET engines = ? WHERE id = ?", '{"tools": "\\udcff"}', surrogate)
    _damage(db, "UPDATE sessions SET question = CAST(X'FFFE2071756573' AS TEXT) WHERE id = ?",
            not_utf8)
    _damage(db, "UPDATE sessions SET engines = '{broken', timings_ms = '[1,' WHERE id = ?", bad_json)
    _damage(db, "UPDATE sessions SET status = 'exploded' WHERE id = ?", bad_value)
    capsys.readouterr()

    assert main(["sessions", "list", "--json", "--db", str(db)]) == 0
    listed = json.loads(capsys.readouterr().out)  # valid JSON: bad text as \\u escapes
    assert {row["session_id"] for row in listed} == {surrogate, not_utf8, bad_json, bad_value, good}
    questions = {row["session_id"]: row["question"] for row in listed}
    assert questions[not_utf8].startswith("\udcff\udcfe")  # the store keeps the bytes

    assert main(["sessions", "list", "--db", str(db)]) == 0  # the readable table too
    table = capsys.readouterr().out
    assert len(table.splitlines()) == 5 and "\ufffd\ufffd ques" in table

    target = tmp_path / "out.jsonl"
    assert main(["sessions", "export", "-o", str(target), "--db", str(db)]) == 1
    warnings = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("superbiz: warning:")]
    assert f"superbiz: warning: session {bad_value}: the stored row cannot be read back " \
        "(status: Input should be 'running', 'completed', 'error' or 'incomplete'); skipped" \
        in warnings
    assert sorted(line.split(":")[2].split()[1] for line in warnings if "escapes" in line) \
        == sorted([surrogate, not_utf8])
    documents = [SessionDocument.model_validate(json.loads(line))
                 for line in target.read_text(encoding="utf-8").splitlines()]
    assert {document.session_id for document in documents} == {
        surrogate, not_utf8, bad_json, good}
    kept = next(document for document in documents if document.session_id == surrogate)
    assert kept.invocations[0].arguments == {"service": "\ud800 order"}  # lossless

    assert main(["sessions", "export", "--db", str(db)]) == 1  # to stdout: the same
    assert len(capsys.readouterr().out.splitlines()) == 4

    assert main(["sessions", "show", bad_value, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be read back" in err
    assert main(["sessions", "show", not_utf8, "--db", str(db)]) == 0
    assert "\ufffd\ufffd ques" in capsys.readouterr().out
    assert main(["sessions", "show", surrogate, "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["invocations"][0]["arguments"] == {
        "service": "\ud800 order"}

    assert main(["gatekeeper", "recheck", "--all", "--json", "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["checked"] == 0  # tool calls have no executor output
    assert f"session {bad_value}" in captured.err


def test_an_id_beyond_64_bits_is_simply_not_in_the_store(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "audit.db"))
    assert repository.get_invocation(store, invocation_id=2**70) is None
    assert repository.get_invocation(store, invocation_id=-(2**70)) is None


def test_export_replaces_a_regular_file_whole_and_leaves_no_temporary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "audit.db"
    _seed(db, 2)
    target = tmp_path / "out.jsonl"
    target.write_text("old content that is longer than nothing\n" * 1000, encoding="utf-8")
    target.chmod(0o640)
    assert main(["sessions", "export", "-o", str(target), "--db", str(db)]) == 0
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(line.startswith("{") for line in lines)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["audit.db", "audit.db-shm",
                                                                "audit.db-wal", "out.jsonl"]
    assert "exported 2 sessions" in capsys.readouterr().err
