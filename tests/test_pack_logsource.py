"""Every pack's logs are searched by the log store: a small log file in memory, a big one
through a cached store built once from it, a store the pack points at as it is."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from core import packs
from core.cli import main
from core.errors import PackError
from core.packfiles import logs as packlogs
from core.packs import load_pack, validate_pack
from core.sources import logcache, logfile
from core.sources.logimport import import_files
from core.sources.pack import load_world
from core.tools.spec import call_tool, run_tool
from tests.hand_sources import imported_payments_pack

DEMO_DIR = Path(__file__).resolve().parents[1] / "mockdata" / "demo"
QUERIES: list[dict[str, Any]] = [
    {"query": "HikariCP"}, {"service": "order-service", "query": "内存"}, {"level": "ERROR"},
    {"terms": ["request timed out"]}, {"query": "payment-service timeout", "match": "any"},
    {"since": "2026-07-08T11:00:00", "exclude": ["WARN"]}, {"service": "user-service", "limit": 3},
]


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "packs" / "mine"
    shutil.copytree(DEMO_DIR, target)
    return target


@pytest.fixture
def every_file_is_big(monkeypatch: pytest.MonkeyPatch) -> None:
    """Serve even the demo's few lines through a cached store."""
    monkeypatch.setattr(logcache, "SMALL_LOG_BYTES", 0)


def _fresh_load(pack: Path) -> packs.Pack:
    """Load as a new process would (the in-process pack cache forgotten)."""
    packs._CACHE.clear()
    return load_pack(str(pack))


def _lines_in(pack: Path) -> int:
    """Entries of a pack's logs.jsonl, counted from the file itself."""
    return sum(1 for line in (pack / "logs.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())


def _cached_files() -> list[Path]:
    folder = logcache.cache_folder()
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_a_small_log_file_is_searched_in_memory_with_ranking_and_groups(demo_pack: packs.Pack) -> None:
    assert demo_pack.log_cache is None and len(demo_pack.logs) == demo_pack.log_lines == _lines_in(DEMO_DIR)
    answer = call_tool(load_world(demo_pack), "query_logs", {"query": "HikariCP"})
    assert answer.source == "pack:demo" and answer.request["query"] == "HikariCP"
    assert answer.request["search"]["query"]["units"]  # what the store ran
    output = answer.output
    assert output["total"] == 4 and sum(group["count"] for group in output["groups"]) == 4
    assert _cached_files() == []  # nothing written for a small file


@pytest.mark.usefixtures("every_file_is_big")
def test_a_cache_build_sorts_on_disk_with_a_small_page_cache(pack_copy: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # As an import (test_logimport): memory that does not grow with the file's lines.
    seen: list[tuple[int, int]] = []
    real = logfile.finish_indexes

    def spy(connection: sqlite3.Connection) -> None:
        seen.append((connection.execute("PRAGMA temp_store").fetchone()[0],
                     connection.execute("PRAGMA cache_size").fetchone()[0]))
        real(connection)

    monkeypatch.setattr(logcache, "finish_indexes", spy)
    assert _fresh_load(pack_copy).log_cache is not None
    assert seen == [(1, -logfile.BULK_CACHE_KIB)]  # FILE; KiB


@pytest.mark.usefixtures("every_file_is_big")
def test_a_big_log_file_is_served_from_a_store_cached_once(pack_copy: Path) -> None:
    pack = _fresh_load(pack_copy)
    assert pack.logs == [] and pack.log_lines == _lines_in(pack_copy) and pack.log_file == pack_copy / "logs.jsonl"
    assert pack.log_cache is not None and pack.log_cache.parent == logcache.cache_folder()
    assert pack.services == load_pack("demo").services
    for arguments in QUERIES:  # the cached store answers exactly as the in-memory one
        assert run_tool(pack, "query_logs", arguments) == run_tool("demo", "query_logs", arguments), arguments
    assert call_tool(load_world(pack), "query_logs", {}).source == f"pack:{pack.name}"


@pytest.mark.usefixtures("every_file_is_big")
def test_the_cache_is_reused_without_reading_and_rebuilt_when_the_file_changes(
        pack_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _fresh_load(pack_copy).log_cache
    with monkeypatch.context() as patch:
        def unread(*_: object) -> None:
            raise AssertionError("the log file was read again")
        patch.setattr(packlogs, "_jsonl_entries", unread)
        again = _fresh_load(pack_copy)
    lines = _lines_in(pack_copy)
    assert again.log_cache == first and again.log_lines == lines
    with (pack_copy / "logs.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"timestamp": "2026-07-08T11:19:00+08:00", "level": "ERROR",
                                 "service": "order-service", "message": "disk quota exceeded on /var/lib"}) + "\n")
    changed = _fresh_load(pack_copy)
    assert changed.log_cache != first and changed.log_lines == lines + 1
    assert _cached_files() == [changed.log_cache]  # the file's older store is gone
    assert run_tool(changed, "query_logs", {"query": "quota"})["total"] == 1


@pytest.mark.usefixtures("every_file_is_big")
def test_a_bad_line_builds_nothing_and_names_its_line(pack_copy: Path) -> None:
    path = pack_copy / "logs.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[2])
    entry["timestamp"] = "081109 203615"
    lines[2] = json.dumps(entry, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PackError, match=r"logs\.jsonl: line 3: timestamp: not an ISO 8601"):
        _fresh_load(pack_copy)
    assert _cached_files() == []  # no store, no temporary file left behind


@pytest.mark.usefixtures("every_file_is_big")
def test_validate_checks_a_big_file_without_building_a_store(
        pack_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate_pack(str(pack_copy)) == []
    assert main(["packs", "validate", str(pack_copy), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = _lines_in(pack_copy)
    assert summary["logs"] == lines and "kernel" in summary["services"] and summary["log_store"] is None
    assert _cached_files() == []
    _fresh_load(pack_copy)  # loading builds it; validating again reads the store, not the file
    assert main(["packs", "validate", str(pack_copy), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["logs"] == lines


def test_building_reports_progress_on_stderr(pack_copy: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(logcache, "SMALL_LOG_BYTES", 0)
    monkeypatch.setattr(logcache, "_PROGRESS_EVERY", 10)
    monkeypatch.setattr(logcache, "_PROGRESS_AFTER_S", 0.0)
    _fresh_load(pack_copy)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "indexing demo/logs.jsonl: 30 lines" in captured.err and "cached in" in captured.err


def test_a_pack_pointing_at_a_store_is_asked_like_any_pack(
        pack_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import_files([pack_copy / "logs.jsonl"], pack_copy / "logs.db", timezone_name="+08:00")
    (pack_copy / "logs.jsonl").unlink()
    meta = yaml.safe_load((pack_copy / "pack.yaml").read_text(encoding="utf-8"))
    meta["logs"] = {"store": "logs.db"}
    (pack_copy / "pack.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")
    question = "Confirm whether order-service has HikariCP connection pool exhaustion."
    assert main(["ask", question, "--pack", str(pack_copy), "--no-store", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    logs = [i for i in document["invocations"] if i["tool_name"] == "query_logs"]
    assert logs and {i["source"] for i in logs} == {f"logstore:{(pack_copy / 'logs.db').resolve()}"}
    assert any(i["output"]["total"] and i["output"]["groups"] for i in logs)
    assert document["verifier_result"]["verdict"] == "PASS"
    assert "HikariPool-1 - Connection is not available" in document["composer_output"]["user_facing_answer"]


def test_the_readme_pack_of_imported_logs_is_pack_yaml_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README's recipe, as written: import a log file, then a pack.yaml that says only where
    the store is. Named by its folder, its clock is its newest line."""
    pack = imported_payments_pack(tmp_path)
    loaded = load_pack(str(pack))
    assert (loaded.name, loaded.now.isoformat()) == ("mypack", "2024-03-01T10:06:00.003000+00:00")
    capsys.readouterr()
    assert main(["ask", "payments 有哪些错误日志？", "--pack", str(pack), "--no-store", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (call,) = [i for i in document["invocations"] if i["tool_name"] == "query_logs"]
    assert call["source"] == f"logstore:{(pack / 'logs.db').resolve()}"
    assert document["verifier_result"]["verdict"] == "PASS"
    assert "Connection refused to" in document["composer_output"]["user_facing_answer"]


@pytest.mark.usefixtures("every_file_is_big")
def test_stores_of_deleted_files_and_killed_builds_are_cleared(pack_copy: Path, tmp_path: Path) -> None:
    other = tmp_path / "packs" / "other"
    shutil.copytree(pack_copy, other)
    gone = _fresh_load(other).log_cache
    assert gone is not None and gone.is_file()
    shutil.rmtree(other)
    abandoned = logcache.cache_folder() / ".x.db.999999999.0123abcd.tmp"  # no such process
    abandoned.write_bytes(b"half a store")
    kept = _fresh_load(pack_copy).log_cache
    assert _cached_files() == [kept]  # the deleted pack's store and the dead build are gone


@pytest.mark.usefixtures("every_file_is_big")
def test_two_threads_loading_a_big_pack_at_once_both_get_its_store(pack_copy: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    packs._CACHE.clear()
    with ThreadPoolExecutor(2) as pool:
        loaded = list(pool.map(lambda _: packs._read_pack(pack_copy.resolve())[0], range(2)))
    assert all(pack is not None and pack.log_lines == _lines_in(pack_copy) for pack in loaded)
    assert {pack.log_cache for pack in loaded if pack is not None} == set(_cached_files())
    assert run_tool(_fresh_load(pack_copy), "query_logs", {"query": "HikariCP"})["total"] == 4
