"""Packs and logs: a pack may point at a log store; log timestamps and levels are validated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from core.cli import main
from core.errors import PackError
from core.packs import load_pack, validate_pack
from core.sources.logimport import import_files

DEMO_DIR = Path(__file__).resolve().parents[1] / "mockdata" / "demo"


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "packs" / "mine"
    shutil.copytree(DEMO_DIR, target)
    return target


def _point_at_store(pack: Path, store: str) -> None:
    meta = yaml.safe_load((pack / "pack.yaml").read_text(encoding="utf-8"))
    meta["logs"] = {"store": store}
    (pack / "pack.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")


def _rewrite_line(pack: Path, index: int, **fields: str) -> None:
    path = pack / "logs.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[index])
    entry.update(fields)
    lines[index] = json.dumps(entry, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_bad_timestamps_and_levels_name_file_line_and_field(pack_copy: Path) -> None:
    _rewrite_line(pack_copy, 2, timestamp="081109 203615")
    _rewrite_line(pack_copy, 4, level="LOUD")
    _rewrite_line(pack_copy, 6, level="warning", timestamp="2026-07-08 11:00:00")  # both fine
    problems = validate_pack(str(pack_copy))
    assert [(p.file, p.entry, p.field) for p in problems] == [
        ("logs.jsonl", "line 3", "timestamp"), ("logs.jsonl", "line 5", "level")]
    assert str(problems[0]).startswith("logs.jsonl: line 3: timestamp: not an ISO 8601 date and time")
    assert "unknown level 'LOUD'" in str(problems[1])


def test_logs_yaml_entries_are_validated_too(pack_copy: Path) -> None:
    entries = [json.loads(line) for line in (pack_copy / "logs.jsonl").read_text(encoding="utf-8").splitlines()]
    entries[1]["timestamp"] = "17/06/09 20:10:40"
    (pack_copy / "logs.jsonl").unlink()
    (pack_copy / "logs.yaml").write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")
    (problem,) = validate_pack(str(pack_copy))
    assert (problem.file, problem.entry, problem.field) == ("logs.yaml", "logs[1]", "timestamp")


def test_a_pack_points_at_a_store(pack_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "app.log"
    log.write_text("2024-03-01 10:00:00,000 INFO [m] a.B: hello\n" * 3)
    import_files([log], pack_copy / "logs.db")
    (pack_copy / "logs.jsonl").unlink()
    _point_at_store(pack_copy, "logs.db")
    pack = load_pack(str(pack_copy))
    assert pack.log_store == (pack_copy / "logs.db").resolve() and pack.logs == []
    assert main(["packs", "validate", str(pack_copy), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["logs"] == 3 and summary["log_store"] == str(pack.log_store)


@pytest.mark.parametrize(("setup", "message"), [
    ("missing", "pack.yaml: logs.store: log store not found: logs.db"),
    ("not_a_store", "pack.yaml: logs.store: not a log store"),
    ("both", "pack.yaml: logs.store: logs.store is set and logs.jsonl exists; keep one"),
])
def test_a_bad_store_is_one_line(pack_copy: Path, setup: str, message: str) -> None:
    if setup != "both":
        (pack_copy / "logs.jsonl").unlink()
    if setup == "not_a_store":
        (pack_copy / "logs.db").write_text("not sqlite", encoding="utf-8")
    _point_at_store(pack_copy, "logs.db")
    with pytest.raises(PackError) as caught:
        load_pack(str(pack_copy))
    assert str(caught.value).startswith(message)
