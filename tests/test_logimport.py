"""Importing log files: the loghub samples as-is, multi-line entries, unparsed lines, appends,
zones, and every refusal leaving the store as it was."""

from __future__ import annotations

import csv
import gzip
import sqlite3
from datetime import UTC
from pathlib import Path

import pytest

from core.errors import LogImportError, LogStoreError
from core.sources import logfile, logimport
from core.sources.logfile import BULK_CACHE_KIB
from core.sources.logimport import MAX_LINE_BYTES, import_files
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs

LOGHUB = ("HDFS", "Hadoop", "OpenStack", "Spark", "Zookeeper")
JAVA = """2024-03-01 10:00:00,001 INFO [main] com.shop.App: started
2024-03-01 10:00:01,002 ERROR [pool-1] com.shop.Db: query failed
java.sql.SQLException: Connection refused
\tat com.shop.Db.run(Db.java:42)
\t... 3 more
Caused by: java.net.ConnectException: refused
this line is garbage
2024-03-01 10:00:02,003 WARN [main] com.shop.App: retrying

2024-03-01 10:00:03,004 INFO [main] com.shop.App: recovered
"""


def _rows(store: Path, sql: str) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(store)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def test_loghub_samples_import_as_loghub_reads_them(corpora_dir: Path, tmp_path: Path) -> None:
    store = tmp_path / "loghub.db"
    paths = [corpora_dir / "loghub" / name / f"{name}_2k.log" for name in LOGHUB]
    report = import_files(paths, store)
    assert [f.layout for f in report.files] == ["hdfs", "log4j", "openstack", "spark", "log4j"]
    assert [f.entries for f in report.files] == [2000] * 5 and all(f.unparsed == 0 for f in report.files)
    for file_id, name in enumerate(LOGHUB, start=1):
        with (corpora_dir / "loghub" / name / f"{name}_2k.log_structured.csv").open(newline="") as handle:
            truth = list(csv.DictReader(handle))
        mine = _rows(store, f"SELECT message, level FROM entries WHERE file_id = {file_id} ORDER BY id")
        assert [m[0] for m in mine] == [row["Content"] for row in truth]
        assert [m[1] for m in mine] == [row["Level"].upper().replace("WARNING", "WARN") for row in truth]
    opened = LogStore.open(store)
    stats = opened.stats()
    assert stats["lines"] == 10_000 and stats["levels"]["FATAL"] == 2
    assert stats["first_timestamp"] == "2008-11-09T20:36:15+00:00"  # HDFS: 081109 203615
    assert set(stats["services"]) >= {"nova-api", "nova-compute", "HDFS_2k"}
    result, _ = opened.query_logs(QueryLogsArgs(query="ERROR IN CONTACTING RM"))
    assert result.total == 147 and result.groups[0].count == 147


def test_multiline_entries_unparsed_lines_and_blank_lines(tmp_path: Path) -> None:
    log = tmp_path / "shop.log"
    log.write_text(JAVA, encoding="utf-8")
    report = import_files([log], tmp_path / "s.db")
    (file,) = report.files
    assert (file.layout, file.entries, file.continuation_lines, file.unparsed) == ("log4j", 4, 4, 1)
    assert file.unparsed_lines == [(7, "this line is garbage")]
    messages = [str(row[0]) for row in _rows(tmp_path / "s.db", "SELECT message FROM entries ORDER BY id")]
    assert messages[1].splitlines() == ["query failed", "java.sql.SQLException: Connection refused",
                                        "\tat com.shop.Db.run(Db.java:42)", "\t... 3 more",
                                        "Caused by: java.net.ConnectException: refused"]
    store = LogStore.open(tmp_path / "s.db")
    assert store.query_logs(QueryLogsArgs(query="ConnectException"))[0].total == 1  # the trace is searchable
    assert store.services() == ["shop"]  # from the file name


def test_append_continues_ids_and_templates(tmp_path: Path) -> None:
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text("".join(f"2024-03-01 10:00:{i:02d},000 INFO [m] a.B: job {i} done\n" for i in range(30)))
    second.write_text("".join(f"2024-03-01 11:00:{i:02d},000 INFO [m] a.B: job {i + 30} done\n" for i in range(30)))
    store = tmp_path / "s.db"
    assert import_files([first], store).created is True
    report = import_files([second], store, service="jobs")
    assert report.created is False
    assert _rows(store, "SELECT min(id), max(id), count(DISTINCT group_id) FROM lines") == [(1, 60, 2)]
    assert _rows(store, "SELECT count(*) FROM templates") == [(1,)]  # one template across both files
    # the append's own FTS5 segment is merged with the import's: a term is looked up once
    assert _rows(store, "SELECT count(DISTINCT segid) FROM lines_fts_idx") == [(1,)]
    # and the query planner's statistics cover every line, the append's too
    assert _rows(store, "SELECT stat FROM sqlite_stat1 WHERE idx = 'lines_by_time'") == [("60 1",)]
    opened = LogStore.open(store)
    assert opened.services() == ["a", "jobs"]
    assert opened.query_logs(QueryLogsArgs(query="done", service="jobs"))[0].total == 30


def test_an_import_sorts_on_disk_with_a_small_page_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Peak RSS must not grow with the lines: temporary files in memory (connect's setting for
    # queries) held CREATE INDEX's whole sort (~60 MB a million lines), and a 64 MiB page cache
    # grew the RSS until it was full. FILE is 1; a negative cache_size is KiB.
    seen: list[tuple[int, int]] = []  # (temp_store, cache_size) where the indexes are built
    real = logfile.finish_indexes

    def spy(connection: sqlite3.Connection) -> None:
        seen.append((connection.execute("PRAGMA temp_store").fetchone()[0],
                     connection.execute("PRAGMA cache_size").fetchone()[0]))
        real(connection)

    monkeypatch.setattr(logimport, "finish_indexes", spy)
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text(JAVA)
    second.write_text(JAVA)
    import_files([first], tmp_path / "s.db")
    import_files([second], tmp_path / "s.db")  # an append too
    assert seen == [(1, -BULK_CACHE_KIB)] * 2
    assert BULK_CACHE_KIB <= 8192  # a few MiB, not a cache that grows with a big store


def test_timezones(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_text("2024-03-01 10:00:00,000 INFO [m] a.B: naive\n"
                   "2024-03-01T10:00:00.000+00:00 INFO [m] a.B: zoned\n")
    store = tmp_path / "s.db"
    report = import_files([log], store, timezone_name="Asia/Shanghai")
    assert report.timezone == "Asia/Shanghai"
    assert [row[0] for row in _rows(store, "SELECT ts FROM entries ORDER BY id")] == [
        "2024-03-01T10:00:00.000+08:00", "2024-03-01T18:00:00.000+08:00"]
    opened = LogStore.open(store)
    assert opened.query_logs(QueryLogsArgs(until="2024-03-01T10:00:00"))[0].total == 1  # store's zone


def test_json_lines_logfmt_syslog_and_regex(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"time": 1709287200, "level": "warning", "msg": "hot", "service": "x"}\n')
    (tmp_path / "b.logfmt").write_text('time=2024-03-01T10:00:00Z level=error msg="cold start" app=y\n')
    (tmp_path / "c.log").write_text("<11>Mar  1 10:00:00 host1 sshd[9]: Failed password\n")
    (tmp_path / "d.txt").write_text("[2024-03-01 10:00:00] E web: boom\n")
    store = tmp_path / "s.db"
    import_files([tmp_path / "a.jsonl", tmp_path / "b.logfmt", tmp_path / "c.log"], store)
    import_files([tmp_path / "d.txt"], store,
                 pattern=r"\[(?P<timestamp>[^\]]+)\] (?P<level>\w) (?P<service>\w+): (?P<message>.*)")
    rows = _rows(store, "SELECT level, service, message, host FROM entries ORDER BY id")
    assert rows == [("WARN", "x", "hot", None), ("ERROR", "y", "cold start", None),
                    ("ERROR", "sshd", "Failed password", "host1"), ("ERROR", "web", "boom", None)]


def test_kubernetes_component_logs_and_web_access_logs(tmp_path: Path) -> None:
    """klog has no year (the file's, as BSD syslog) and its level is a letter; an access log's
    zone is converted and its level is its status class; both are recognised by themselves."""
    import os
    from datetime import datetime

    klog = tmp_path / "kube-apiserver.log"
    klog.write_text("I0301 10:00:00.123456       1 server.go:123] Starting kube-apiserver\n"
                    "E0301 10:00:01.654321       1 controller.go:45] failed to sync: etcd timeout\n"
                    "\tgoroutine 1 [running]:\n")
    written = datetime(2025, 6, 1, tzinfo=UTC).timestamp()
    os.utime(klog, (written, written))
    access = tmp_path / "nginx-access.log.1"
    access.write_text('10.0.0.1 - - [01/Mar/2024:10:00:00 +0100] "GET /api/orders HTTP/1.1" 200 512 "-" "curl/8.0"\n'
                      '10.0.0.2 - - [01/Mar/2024:10:00:01 +0100] "POST /api/pay HTTP/1.1" 503 87 "-" "curl/8.0"\n')
    store = tmp_path / "s.db"
    report = import_files([klog, access], store)
    assert [(f.layout, f.entries, f.unparsed) for f in report.files] == [("klog", 2, 0), ("clf", 2, 0)]
    assert _rows(store, "SELECT ts, level, service, source FROM entries ORDER BY id") == [
        ("2025-03-01T10:00:00.123456+00:00", "INFO", "kube-apiserver", "server.go:123"),
        ("2025-03-01T10:00:01.654321+00:00", "ERROR", "kube-apiserver", "controller.go:45"),
        ("2024-03-01T09:00:00+00:00", "INFO", "nginx-access", None),
        ("2024-03-01T09:00:01+00:00", "ERROR", "nginx-access", None)]
    errors = LogStore.open(store).query_logs(QueryLogsArgs(service="nginx-access", level="ERROR"))[0]
    assert [entry.message for entry in errors.logs] == ['10.0.0.2 "POST /api/pay HTTP/1.1" 503 87 "-" "curl/8.0"']


def test_colours_and_byte_order_marks_are_not_text(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_text("\ufeff2024-03-01 10:00:00,000 \x1b[32mINFO\x1b[0m [m] a.B: green\n", encoding="utf-8")
    report = import_files([log], tmp_path / "s.db")
    assert (report.files[0].entries, report.files[0].unparsed) == (1, 0)
    assert _rows(tmp_path / "s.db", "SELECT level, message FROM entries") == [("INFO", "green")]


def test_gzip_files(tmp_path: Path) -> None:
    path = tmp_path / "app.log.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("2024-03-01 10:00:00,000 INFO [m] a.B: compressed\n")
    import_files([path], tmp_path / "s.db")
    assert LogStore.open(tmp_path / "s.db").services() == ["app"]


def _refused(paths: list[Path], store: Path, match: str, **options: object) -> None:
    before = store.read_bytes() if store.exists() else None
    with pytest.raises((LogImportError, LogStoreError), match=match):
        import_files(paths, store, **options)  # type: ignore[arg-type]
    assert (store.read_bytes() if store.exists() else None) == before
    assert [p.name for p in store.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_refusals_leave_the_store_as_it_was(tmp_path: Path) -> None:
    good = tmp_path / "good.log"
    good.write_text("2024-03-01 10:00:00,000 INFO [m] a.B: fine\n")
    store = tmp_path / "s.db"
    _refused([tmp_path / "missing.log"], store, "no such file")
    binary = tmp_path / "blob.log"
    binary.write_bytes(b"\x7fELF\x00\x00\x01" * 100)
    _refused([good, binary], store, "binary file")
    long_line = tmp_path / "long.log"
    long_line.write_bytes(b"2024-03-01 10:00:00,000 INFO [m] a.B: " + b"x" * MAX_LINE_BYTES + b"\n")
    _refused([good, long_line], store, "line 1 is longer than 1 MiB")
    import_files([good], store)  # now the store exists: a failed append keeps it whole
    mixed = tmp_path / "mixed.log"
    mixed.write_text("2024-03-01 10:00:00,000 INFO [m] a.B: ok\n" * 250 + "17/06/09 20:10:40 INFO a.B: spark\n")
    _refused([good, mixed], store, "mixed layouts: line 251 is spark")
    _refused([good], store, "unknown time zone", timezone_name="Mars/Base")
    _refused([good], store, "named groups", pattern=r"(?P<message>.*)")
    (tmp_path / "empty.log").write_text("\n\n")
    _refused([tmp_path / "empty.log"], store, "empty")
    assert LogStore.open(store).stats()["lines"] == 1
    not_a_store = tmp_path / "other.db"
    not_a_store.write_text("hello")
    _refused([good], not_a_store, "not a log store")
